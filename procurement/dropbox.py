"""Price lists dropped into a directory, picked up by a Celery beat job (`procurement.scan_price_lists`).

Layout (the directory is `settings.PROCUREMENT_PRICE_LIST_DROP_DIR`, env `PRICE_LIST_DROP_DIR`):

    <drop dir>/<supplier slug>/acme-2026-11.xlsx      a new price list of that supplier
    <drop dir>/<supplier slug>/done/…                  applied (or the same bytes were already applied)
    <drop dir>/<supplier slug>/failed/…                refused: nothing changed; the report says why

Each file goes through the admin's service (`price_list_preview`, then `price_list_apply`), so it is read
with the supplier's column mapping and changes nothing when any row is bad. Beside the moved file lies
`<file name>.report.json`: the outcome, the import's id, every bad cell (line, field, column, value,
message) or what changed (new SKUs, price moves, offers gone).

A file is known by the SHA-256 of its bytes. Bytes already applied (dropped, or uploaded in the admin) are
a `duplicate`: moved to `done/`, nothing imported. The database keeps one drop import per (supplier, hash)
that has not failed, so two scans running at once never both import a file: the one whose insert comes
second leaves the file, and whichever moves a file writes its report. A failed file changed nothing;
dropped again (say, once the catalog knows its SKUs), it is read again.

Only `.csv` and `.xlsx` files are taken; hidden files and names ending `.part`/`.tmp` are left alone, and
so is a file changed within the last `PROCUREMENT_PRICE_LIST_SETTLE_SECONDS` (still being copied). Write
a file under a temporary name and rename it when it is complete.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import translation

from procurement.conf import setting
from procurement.models import PriceListImport, Supplier
from procurement.services import price_list_apply, price_list_preview

logger = logging.getLogger(__name__)

SUFFIXES = (".csv", ".xlsx")
TEMPORARY_SUFFIXES = (".part", ".tmp", ".crdownload")
DONE, FAILED = "done", "failed"


@dataclass(frozen=True)
class DropOutcome:
    supplier: str
    filename: str
    outcome: str  # applied, failed, duplicate
    moved_to: str  # done or failed
    import_id: int | None


def drop_dir() -> Path:
    return Path(settings.PROCUREMENT_PRICE_LIST_DROP_DIR)


def _waiting(directory: Path, *, settle_seconds: float, now: float) -> list[Path]:
    files = []
    for path in sorted(directory.iterdir()):
        name = path.name.lower()
        if not path.is_file() or name.startswith(".") or name.endswith(TEMPORARY_SUFFIXES):
            continue
        if not name.endswith(SUFFIXES):
            continue
        if now - path.stat().st_mtime < settle_seconds:
            continue  # still being written
        files.append(path)
    return files


def _free_name(folder: Path, name: str, sha256: str) -> Path:
    """`folder/name`, or `folder/<stem>-<hash prefix><suffix>` when a file of that name is already there."""
    target = folder / name
    if not target.exists():
        return target
    stem, suffix = os.path.splitext(name)
    return folder / f"{stem}-{sha256[:12]}{suffix}"


def _move(path: Path, where: str, sha256: str, report: dict[str, Any]) -> str:
    folder = path.parent / where
    folder.mkdir(exist_ok=True)
    target = _free_name(folder, path.name, sha256)
    os.replace(path, target)  # first: of two racing scans only the one that moves the file writes its report
    report_path = target.with_name(target.name + ".report.json")
    report_path.write_text(json.dumps(report, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
    return where


def _report(
    supplier: Supplier, path: Path, sha256: str, outcome: str, price_import: PriceListImport | None
) -> dict[str, Any]:
    body: dict[str, Any] = {"supplier": supplier.slug, "file": path.name, "sha256": sha256, "outcome": outcome}
    if price_import is not None:
        body |= {"import_id": price_import.pk, "status": price_import.status, **price_import.report}
    return body


def price_list_drop_file(*, supplier: Supplier, path: Path) -> DropOutcome | None:
    """Import one dropped file through the admin's preview and apply; move it with its report. A file whose
    bytes were already applied (dropped or through the admin) is not imported again (`duplicate`); bytes
    that failed changed nothing and are read again. None when another scan is importing the same bytes
    right now (the file is left to it)."""
    content = path.read_bytes()
    sha256 = hashlib.sha256(content).hexdigest()
    earlier = (
        PriceListImport.objects.filter(supplier=supplier, sha256=sha256, status=PriceListImport.Status.APPLIED)
        .order_by("pk")
        .first()
    )
    if earlier is None:
        try:
            # one transaction: a crash between preview and apply leaves no row, and the file waits for the
            # next scan; a concurrent scan's row for the same bytes makes this insert fail
            with transaction.atomic():
                price_import = price_list_preview(
                    supplier=supplier, filename=path.name, content=content, source=PriceListImport.Source.DROP
                )
                if price_import.status == PriceListImport.Status.PREVIEWED:
                    price_import = price_list_apply(price_import=price_import)
        except IntegrityError:
            return None
        applied = price_import.status == PriceListImport.Status.APPLIED
        outcome = "applied" if applied else "failed"
        report = _report(supplier, path, sha256, outcome, price_import)
        where = _move(path, DONE if applied else FAILED, sha256, report)
        logger.info("price list %s/%s %s (import %s)", supplier.slug, path.name, outcome, price_import.pk)
        return DropOutcome(supplier.slug, path.name, outcome, where, price_import.pk)
    report = _report(supplier, path, sha256, "duplicate", None) | {
        "duplicate_of": earlier.pk,
        "message": f"the same file was already imported (import {earlier.pk}, {earlier.status}); nothing changed",
    }
    where = _move(path, DONE, sha256, report)
    logger.info("price list %s/%s is a duplicate of import %s", supplier.slug, path.name, earlier.pk)
    return DropOutcome(supplier.slug, path.name, "duplicate", where, earlier.pk)


def _unreadable(supplier: Supplier, path: Path, exc: Exception) -> DropOutcome:
    """Move a file whose import raised to `failed/` with the reason; nothing was changed (rolled back)."""
    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    error = {"line": 0, "field": "", "column": "", "value": path.name, "message": f"could not be imported: {exc!r}"}
    report = _report(supplier, path, sha256, "failed", None) | {"errors": [error]}
    return DropOutcome(supplier.slug, path.name, "failed", _move(path, FAILED, sha256, report), None)


def price_list_drop_scan(*, root: Path | None = None, settle_seconds: float | None = None) -> list[DropOutcome]:
    """Import every waiting file of every supplier's folder under the drop directory (see the module's
    docstring). Folders named after no supplier are logged and left alone. The reports are written in the
    site's language (settings.LANGUAGE_CODE), whatever language the process last had active."""
    with translation.override(settings.LANGUAGE_CODE):
        return _scan(root=root, settle_seconds=settle_seconds)


def _scan(*, root: Path | None, settle_seconds: float | None) -> list[DropOutcome]:
    root = root or drop_dir()
    settle = setting("PRICE_LIST_SETTLE_SECONDS") if settle_seconds is None else settle_seconds
    if not root.is_dir():
        logger.info("no price-list drop directory at %s", root)
        return []
    suppliers = {supplier.slug: supplier for supplier in Supplier.objects.all()}
    outcomes: list[DropOutcome] = []
    now = time.time()
    for folder in sorted(path for path in root.iterdir() if path.is_dir() and not path.name.startswith(".")):
        supplier = suppliers.get(folder.name)
        if supplier is None:
            logger.warning("price-list drop folder %s names no supplier; left alone", folder)
            continue
        for path in _waiting(folder, settle_seconds=settle, now=now):
            try:
                found = price_list_drop_file(supplier=supplier, path=path)
            except FileNotFoundError:  # moved by a concurrent scan
                continue
            except DatabaseError:
                raise  # the database, not the file: the task retries and the file waits
            except Exception as exc:  # a file the reader chokes on must not block the others
                logger.exception("price list %s/%s could not be imported", supplier.slug, path.name)
                found = _unreadable(supplier, path, exc)
            if found is not None:
                outcomes.append(found)
    return outcomes
