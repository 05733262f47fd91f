"""A Django storage whose files are rows of `filestore.StoredFile` (bytea on PostgreSQL).

Every web and worker process that reaches the database reads what any of them wrote, whatever its local
disk holds: the store for several hosts when only PostgreSQL (and Redis) are shared. Files are read and
written whole, in memory; what goes here is small (a quote PDF is tens of kilobytes).

Names are unique: `save` of a name that exists (or that a concurrent save takes first) stores under
Django's alternative name (`<stem>_<random><suffix>`), as FileSystemStorage does. There is no public URL:
files are served by the views that check who may read them (quotes/views.py, quotes/apis.py); `url()`
returns the name under MEDIA_URL, as FileSystemStorage would, for the admin's display only.
"""

from __future__ import annotations

import hashlib
import posixpath
from datetime import datetime
from typing import Any
from urllib.parse import urljoin

from django.conf import settings
from django.core.files.base import ContentFile, File
from django.core.files.storage import Storage
from django.db import DEFAULT_DB_ALIAS, IntegrityError, transaction
from django.utils.deconstruct import deconstructible
from django.utils.encoding import filepath_to_uri

from filestore.models import NAME_MAX_LENGTH, StoredFile

#: Attempts at a free name when concurrent saves keep taking the chosen one first.
SAVE_ATTEMPTS = 20


@deconstructible(path="filestore.storage.DatabaseStorage")
class DatabaseStorage(Storage):
    def __init__(self, using: str = DEFAULT_DB_ALIAS) -> None:
        self.using = using

    def _rows(self) -> Any:
        return StoredFile.objects.using(self.using)

    def _open(self, name: str, mode: str = "rb") -> File:
        if any(flag in mode for flag in "wa+x"):
            raise ValueError(f"DatabaseStorage opens files for reading only, not {mode!r}; use save()")
        content = self._rows().filter(name=name).values_list("content", flat=True).first()
        if content is None:
            raise FileNotFoundError(f"no stored file {name!r}")
        return ContentFile(bytes(content), name=name)

    def _save(self, name: str, content: File) -> str:  # Storage.save wraps whatever it is given in a File
        data = b"".join(chunk.encode() if isinstance(chunk, str) else chunk for chunk in content.chunks())
        digest = hashlib.sha256(data).hexdigest()
        for _ in range(SAVE_ATTEMPTS):
            try:
                with transaction.atomic(using=self.using):  # a savepoint when the caller holds a transaction
                    self._rows().create(name=name, content=data, size=len(data), sha256=digest)
                return name
            except IntegrityError:  # a concurrent save took the name between the check and the insert
                name = self.get_available_name(name, max_length=NAME_MAX_LENGTH)
        raise FileExistsError(f"no free name for {name!r} after {SAVE_ATTEMPTS} attempts")

    def delete(self, name: str) -> None:
        self._rows().filter(name=name).delete()

    def exists(self, name: str) -> bool:
        return bool(self._rows().filter(name=name).exists())

    def size(self, name: str) -> int:
        size = self._rows().filter(name=name).values_list("size", flat=True).first()
        if size is None:
            raise FileNotFoundError(f"no stored file {name!r}")
        return int(size)

    def listdir(self, path: str) -> tuple[list[str], list[str]]:
        prefix = path.strip("/") + "/" if path.strip("/") else ""
        names = self._rows().filter(name__startswith=prefix).values_list("name", flat=True)
        directories: set[str] = set()
        files: list[str] = []
        for name in names:
            head, _, tail = name[len(prefix) :].partition("/")
            if tail:
                directories.add(head)
            else:
                files.append(head)
        return sorted(directories), sorted(files)

    def get_created_time(self, name: str) -> datetime:
        created = self._rows().filter(name=name).values_list("created_at", flat=True).first()
        if created is None:
            raise FileNotFoundError(f"no stored file {name!r}")
        return created

    def get_modified_time(self, name: str) -> datetime:
        return self.get_created_time(name)  # a stored file is never changed in place

    def url(self, name: str | None) -> str:
        return urljoin(settings.MEDIA_URL, filepath_to_uri(posixpath.normpath(name or "")))
