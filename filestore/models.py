"""The rows of `filestore.storage.DatabaseStorage`: one per stored file, its bytes in a bytea column."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

#: The longest storage name kept (FileField's own default is 100; quotes.Quote.pdf allows 200).
NAME_MAX_LENGTH = 255


class StoredFile(models.Model):
    name = models.CharField(_("name"), max_length=NAME_MAX_LENGTH, unique=True)
    content = models.BinaryField(_("content"))
    size = models.PositiveBigIntegerField(_("bytes"))
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("stored file")
        verbose_name_plural = _("stored files")

    def __str__(self) -> str:
        return self.name
