"""filestore.storage.DatabaseStorage: files as rows of the shared database, and FILE_STORE choosing it."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.core.files.base import ContentFile

from config.env import ImproperlyConfiguredEnv, env_choice
from filestore.models import StoredFile
from filestore.storage import DatabaseStorage

ROOT = Path(__file__).resolve().parents[2]
BODY = b"%PDF-1.4\n" + bytes(range(256)) * 40 + b"\n%%EOF\n"  # every byte value: bytea keeps them all

pytestmark = pytest.mark.django_db


def test_a_saved_file_reads_back_byte_for_byte() -> None:
    storage = DatabaseStorage()
    name = storage.save("quotes/Q-1-R1-1.pdf", ContentFile(BODY))
    assert name == "quotes/Q-1-R1-1.pdf"
    assert storage.exists(name) and storage.size(name) == len(BODY)
    with storage.open(name) as handle:
        assert handle.read() == BODY
    row = StoredFile.objects.get(name=name)
    assert bytes(row.content) == BODY and row.sha256 == hashlib.sha256(BODY).hexdigest()
    assert storage.get_modified_time(name) == row.created_at
    storage.delete(name)
    assert not storage.exists(name) and not StoredFile.objects.exists()


def test_a_taken_name_gets_another_and_leaves_the_first_alone() -> None:
    storage = DatabaseStorage()
    first = storage.save("quotes/a.pdf", ContentFile(b"first"))
    second = storage.save("quotes/a.pdf", ContentFile(b"second"))
    assert first == "quotes/a.pdf" and second != first
    assert second.startswith("quotes/a_") and second.endswith(".pdf")
    assert storage.open(first).read() == b"first" and storage.open(second).read() == b"second"


def test_a_name_taken_between_the_check_and_the_insert_gets_another() -> None:
    """What a concurrent save does: `_save` finds the row's unique name taken and picks a free one."""
    storage = DatabaseStorage()
    StoredFile.objects.create(name="quotes/b.pdf", content=b"theirs", size=6, sha256="")
    name = storage._save("quotes/b.pdf", ContentFile(b"mine"))
    assert name != "quotes/b.pdf" and storage.open(name).read() == b"mine"
    assert storage.open("quotes/b.pdf").read() == b"theirs"


def test_missing_files_and_writes_through_open_are_refused() -> None:
    storage = DatabaseStorage()
    with pytest.raises(FileNotFoundError):
        storage.open("quotes/none.pdf")
    with pytest.raises(FileNotFoundError):
        storage.size("quotes/none.pdf")
    storage.save("quotes/c.pdf", ContentFile(b"x"))
    with pytest.raises(ValueError, match="reading only"):
        storage.open("quotes/c.pdf", "wb")
    storage.delete("quotes/none.pdf")  # deleting what is not there is not an error (as FileSystemStorage)


def test_listdir_names_folders_and_files_of_one_level() -> None:
    storage = DatabaseStorage()
    for name in ("quotes/a.pdf", "quotes/old/b.pdf", "top.txt", "quotesx/c.pdf"):
        storage.save(name, ContentFile(b"x"))
    assert storage.listdir("quotes") == (["old"], ["a.pdf"])
    assert storage.listdir("") == (["quotes", "quotesx"], ["top.txt"])


def test_file_store_accepts_the_named_stores_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FILE_STORE", "Database")
    assert env_choice("FILE_STORE", ("local", "database"), "local") == "database"
    monkeypatch.setenv("FILE_STORE", "")
    assert env_choice("FILE_STORE", ("local", "database"), "local") == "local"
    monkeypatch.setenv("FILE_STORE", "nfs")
    with pytest.raises(ImproperlyConfiguredEnv, match="FILE_STORE='nfs' is not one of local, database"):
        env_choice("FILE_STORE", ("local", "database"), "local")


@pytest.mark.parametrize(
    ("store", "backend"),
    [
        ("", "django.core.files.storage.FileSystemStorage"),
        ("database", "filestore.storage.DatabaseStorage"),
    ],
)
@pytest.mark.parametrize("module", ["config.settings.production", "config.settings.test"])
def test_file_store_chooses_the_default_storage_of_every_settings_module(module: str, store: str, backend: str) -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": module, "FILE_STORE": store, "SECRET_KEY": "test-" + "k" * 55}
    script = "import django; django.setup(); from django.conf import settings; print(settings.STORAGES['default'])"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == repr({"BACKEND": backend})


def test_compose_keeps_quote_pdfs_in_the_shared_database_not_on_a_volume() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    for name in ("web", "worker", "beat", "migrate"):
        service = compose["services"][name]
        assert service["environment"]["FILE_STORE"] == "database", name
        assert not any("media" in volume for volume in service.get("volumes", [])), name
    assert "media" not in compose["volumes"]
