"""Price lists dropped into a directory, picked up by a Celery beat job (`procurement.scan_price_lists`).

Layout (the directory is `settings.PROCUREMENT_PRICE_LIST_DROP_DIR`, env `PRICE_LIST_DROP_DIR`):

    <drop dir>/<supplier slug>/acme-2026-11.xlsx      a new price list of that supplier
    <drop dir>/<supplier slug>/force/acme-2026-10.xlsx  a file imported again on purpose (see below)
    <drop dir>/<supplier slug>/done/…                  applied (or the same bytes were already applied)
    <drop dir>/<supplier slug>/review/…                held: waits for a person to apply it in the admin
    <drop dir>/<supplier slug>/failed/…                refused: nothing changed; the report says why

Each file goes through the admin's service (`price_list_preview`, then `price_list_apply`), so it is read
with the supplier's format and column mapping, in the supplier's default scope (partial or full), and
changes nothing when any row is bad. Beside the moved file lies `<file name>.report.json`: the outcome, the
import's id, every bad cell (line, field, column, value, message) or what changed (new SKUs, price moves,
held moves, offers gone, unmatched part numbers).

**Held for review**: a file with a price move beyond PROCUREMENT_PRICE_HOLD_PERCENT, or a full list that
would retire offers, is not applied (nothing changes); it goes to `review/` with its report and its import
stays `held`. A person applies it in the admin (Price list imports → the import → "Review and apply",
confirming the held moves and retirements) or discards it; the next scan moves the file from `review/` to
`done/` (applied) or `failed/` (discarded).

A file is known by the SHA-256 of its bytes. Bytes already applied or held (dropped, or uploaded in the
admin) are a `duplicate`: moved to `done/`, nothing imported. The database keeps one drop import per
(supplier, hash) that has not failed, so two scans running at once never both import a file: the one whose
insert comes second leaves the file, and whichever moves a file writes its report. A failed file changed
nothing; dropped again (say, once the catalog knows its SKUs), it is read again.

**Imported again on purpose**: a file put in the supplier's `force/` folder skips the duplicate check (to
go back to an earlier list, say); it is still held when it moves prices beyond the share.

A scan claims every file first by renaming it to `.<name>.taking` (only one of two racing scans can), so
each file is read by one scan and gets one report; a file claimed by a scan that was killed is given its
name back by a later scan once the claim is `CLAIM_STALE_SECONDS` old.

A file over the size limits (PROCUREMENT_PRICE_LIST_MAX_*) goes to `failed/` with its size in the report.

Only regular `.csv` and `.xlsx` files are taken (`..csv` and other names starting with a dot too, except
macOS's `._` companions, office lock files `.~…` and the scans' own claims); names ending `.part`/`.tmp`
are left alone, and so is a file changed within the last `PROCUREMENT_PRICE_LIST_SETTLE_SECONDS` (still
being copied). Write a file under a temporary name and rename it when it is complete.

**Links are never followed** (issue 38: a symlink to a file outside the folder was read and its content
echoed into the report): a symbolic link, in a supplier's folder or as a supplier's folder, is logged and
left alone, and the claimed file is opened with O_NOFOLLOW and read only when it is a regular file.
**Names of any length**: the claim, the moved file and its report must fit NAME_MAX (255 bytes); a longer
name is shortened keeping its start and suffix, with a hash of the whole name (`_fitting`). The report
says the file's own name.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import translation

from procurement.conf import setting
from procurement.models import PriceListImport, Supplier
from procurement.pricelist.files import PriceListTooLarge
from procurement.services import price_list_apply, price_list_preview, too_large_report

logger = logging.getLogger(__name__)

SUFFIXES = (".csv", ".xlsx")
CLAIMED = ".taking"  # `.<name>.taking`: a file a scan has claimed
CLAIM_STALE_SECONDS = 600
TEMPORARY_SUFFIXES = (".part", ".tmp", ".crdownload", CLAIMED)
DONE, FAILED, REVIEW, FORCE = "done", "failed", "review", "force"
REPORT_SUFFIX = ".report.json"
NAME_MAX_BYTES = 255  # POSIX NAME_MAX on Linux file systems (ext4, xfs, overlayfs): bytes, not characters
NOT_PRICE_LISTS = ("._", ".~")  # macOS resource-fork companions, office lock files
FREE_NAME_BYTES = 13  # `-<12 hex>` added by _free_name when the name is taken
#: An import's status after the scan → (outcome, folder); any other status is a failure (failed/).
OUTCOMES: dict[str, tuple[str, str]] = {"applied": ("applied", DONE), "held": ("held", REVIEW)}


@dataclass(frozen=True)
class DropOutcome:
    supplier: str
    filename: str
    outcome: str  # applied, failed, duplicate, held (or, for a file in review/: applied, discarded)
    moved_to: str  # done, failed or review
    import_id: int | None


def drop_dir() -> Path:
    return Path(settings.PROCUREMENT_PRICE_LIST_DROP_DIR)


def _waiting(directory: Path, *, settle_seconds: float, now: float) -> list[Path]:
    files = []
    for path in sorted(directory.iterdir()):
        name = path.name.lower()
        if name.startswith(NOT_PRICE_LISTS) or name.endswith(TEMPORARY_SUFFIXES) or not name.endswith(SUFFIXES):
            continue
        try:
            info = path.lstat()  # the entry itself, never a link's target
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(info.st_mode):
            logger.warning("price-list drop %s is a symbolic link; links are never followed, left alone", path)
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        if now - info.st_mtime < settle_seconds:
            continue  # still being written
        files.append(path)
    return files


def _fitting(name: str, room: int = 0) -> str:
    """`name`, or when it and `room` more bytes would not fit NAME_MAX: its start cut at a character, a hash
    of the whole name and its suffix (`<start>-<10 hex><suffix>`), `room` bytes left free."""
    if len(name.encode()) + room <= NAME_MAX_BYTES:
        return name
    stem, suffix = os.path.splitext(name)
    suffix = suffix[:16]
    tag = f"-{hashlib.sha256(name.encode(errors='surrogateescape')).hexdigest()[:10]}{suffix}"
    most = NAME_MAX_BYTES - room - len(tag.encode())
    start = stem.encode(errors="surrogateescape")[:most].decode(errors="ignore")
    return start + tag


def _free_name(folder: Path, name: str, sha256: str) -> Path:
    """`folder/name`, or `folder/<stem>-<hash prefix><suffix>` when a file of that name is already there;
    short enough for its report's name beside it."""
    name = _fitting(name, len(REPORT_SUFFIX) + FREE_NAME_BYTES)
    target = folder / name
    if not target.exists():
        return target
    stem, suffix = os.path.splitext(name)
    return folder / f"{stem}-{sha256[:12]}{suffix}"


def _read_regular(path: Path) -> bytes:
    """The bytes of `path` when it is a regular file, never through a link (O_NOFOLLOW: a link swapped in
    after the listing fails with ELOOP)."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise UnreadableDrop("not a regular file")
        return file.read()


class UnreadableDrop(OSError):
    """The dropped entry is no regular file (a link or a device swapped in after the listing)."""


def _move(path: Path, where: str, sha256: str, report: dict[str, Any], *, folder: Path, name: str = "") -> str:
    """Move `path` to `folder/where/` (as `name`, its own by default) and write its report beside it."""
    into = folder / where
    into.mkdir(exist_ok=True)
    target = _free_name(into, name or path.name, sha256)
    os.replace(path, target)  # first: of two racing scans only the one that moves the file writes its report
    report_path = target.with_name(target.name + REPORT_SUFFIX)
    report_path.write_text(json.dumps(report, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
    return where


def price_list_drop_file(*, supplier: Supplier, path: Path, forced: bool = False) -> DropOutcome | None:
    """Import one dropped file through the admin's preview and apply; move it with its report into the
    supplier's folder's done/, review/ or failed/. A file whose bytes were already applied or are held
    (dropped or through the admin) is not imported again (`duplicate`) unless `forced` (force/); bytes that
    failed changed nothing and are read again. None when another scan is importing the same bytes right
    now (the file is left to it)."""
    folder = path.parent.parent if forced else path.parent
    name = path.name
    # claim it: of two scans only one renames it (the other's rename finds no file). Without the claim, a scan
    # that found the bytes applied by the other, before that one moved its file, took it as a duplicate and
    # the applied file's report was lost. Its time is the claim's, for `_unclaim_stale`.
    claimed = _claim_path(path)
    settled_at = path.lstat().st_mtime
    os.rename(path, claimed)
    try:
        content = _read_regular(claimed)
    except OSError:
        os.rename(claimed, path)  # a link swapped in after the listing: left alone under its name
        logger.warning("price-list drop %s is no regular file (a link?); left alone", path)
        return None
    os.utime(claimed, follow_symlinks=False)
    path = claimed
    sha256 = hashlib.sha256(content).hexdigest()
    earlier = (
        None
        if forced
        else PriceListImport.objects.filter(
            supplier=supplier,
            sha256=sha256,
            status__in=[PriceListImport.Status.APPLIED, PriceListImport.Status.HELD],
        )
        .order_by("pk")
        .first()
    )
    if earlier is not None:
        report = _report(supplier, name, sha256, "duplicate", None) | {
            "duplicate_of": earlier.pk,
            "message": f"the same file was already imported (import {earlier.pk}, {earlier.status}); nothing changed",
        }
        where = _move(path, DONE, sha256, report, folder=folder, name=name)
        logger.info("price list %s/%s is a duplicate of import %s", supplier.slug, name, earlier.pk)
        return DropOutcome(supplier.slug, name, "duplicate", where, earlier.pk)
    try:
        # one transaction: a crash between preview and apply leaves no row, and the file waits for the
        # next scan; a concurrent scan's row for the same bytes makes this insert fail
        with transaction.atomic():
            price_import = price_list_preview(
                supplier=supplier, filename=name, content=content, source=PriceListImport.Source.DROP, forced=forced
            )
            if price_import.status == PriceListImport.Status.PREVIEWED:
                price_import = price_list_apply(price_import=price_import)
    except IntegrityError:  # another scan is importing the same bytes (a copy): this file waits for the next scan
        os.utime(path, (settled_at, settled_at))  # its own time back: not taken for a file still being copied
        os.rename(path, path.with_name(name))
        return None
    except PriceListTooLarge as exc:
        report = _report(supplier, name, sha256, "failed", None) | too_large_report(exc, name)
        logger.info("price list %s/%s is too large: %s", supplier.slug, name, exc)
        return DropOutcome(
            supplier.slug, name, "failed", _move(path, FAILED, sha256, report, folder=folder, name=name), None
        )
    outcome, where = OUTCOMES.get(price_import.status, ("failed", FAILED))
    report = _report(supplier, name, sha256, outcome, price_import)
    where = _move(path, where, sha256, report, folder=folder, name=name)
    logger.info("price list %s/%s %s (import %s)", supplier.slug, name, outcome, price_import.pk)
    return DropOutcome(supplier.slug, name, outcome, where, price_import.pk)


def _claim_path(path: Path) -> Path:
    """`.<name>.taking` beside `path`, its name shortened to fit NAME_MAX when it must."""
    return path.with_name(f".{_fitting(path.name, 1 + len(CLAIMED))}{CLAIMED}")


def _report(
    supplier: Supplier, name: str, sha256: str, outcome: str, price_import: PriceListImport | None
) -> dict[str, Any]:
    body: dict[str, Any] = {"supplier": supplier.slug, "file": name, "sha256": sha256, "outcome": outcome}
    if price_import is not None:
        body |= {"import_id": price_import.pk, "status": price_import.status, **price_import.report}
    return body


def _reviewed(supplier: Supplier, folder: Path) -> list[DropOutcome]:
    """Move the files in review/ whose import a person has applied (to done/) or discarded (to failed/),
    each with its report made again; the others wait."""
    review = folder / REVIEW
    if not review.is_dir():
        return []
    outcomes: list[DropOutcome] = []
    for path in sorted(review.iterdir()):
        report_path = path.with_name(path.name + REPORT_SUFFIX)
        if not path.is_file() or path.name.endswith(REPORT_SUFFIX) or not report_path.is_file():
            continue
        try:
            import_id = json.loads(report_path.read_text(encoding="utf-8")).get("import_id")
        except (OSError, ValueError):
            continue
        price_import = PriceListImport.objects.filter(pk=import_id, supplier=supplier).first()
        if price_import is None or price_import.status not in (
            PriceListImport.Status.APPLIED,
            PriceListImport.Status.FAILED,
        ):
            continue
        applied = price_import.status == PriceListImport.Status.APPLIED
        outcome = "applied" if applied else "discarded"
        report = _report(supplier, path.name, price_import.sha256, outcome, price_import)
        try:
            where = _move(path, DONE if applied else FAILED, price_import.sha256, report, folder=folder)
        except FileNotFoundError:  # moved by a concurrent scan
            continue
        report_path.unlink(missing_ok=True)
        outcomes.append(DropOutcome(supplier.slug, path.name, outcome, where, price_import.pk))
    return outcomes


def _unreadable(supplier: Supplier, path: Path, exc: Exception, *, forced: bool) -> DropOutcome:
    """Move a file whose import raised to `failed/` with the reason; nothing was changed (rolled back)."""
    name = path.name.removeprefix(".").removesuffix(CLAIMED) if path.name.endswith(CLAIMED) else path.name
    folder = path.parent.parent if forced else path.parent
    sha256 = hashlib.sha256(_read_regular(path)).hexdigest()
    # cut: a reader's exception may quote the file's content, and a report echoes at most 200 characters of it
    message = f"could not be imported: {exc!r:.200}"
    error = {"line": 0, "field": "", "column": "", "value": name[:200], "message": message}
    report = _report(supplier, name, sha256, "failed", None) | {"errors": [error]}
    return DropOutcome(
        supplier.slug, name, "failed", _move(path, FAILED, sha256, report, folder=folder, name=name), None
    )


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
        if folder.is_symlink():
            logger.warning("price-list drop folder %s is a symbolic link; links are never followed, left alone", folder)
            continue
        supplier = suppliers.get(folder.name)
        if supplier is None:
            logger.warning("price-list drop folder %s names no supplier; left alone", folder)
            continue
        outcomes.extend(_reviewed(supplier, folder))
        for directory in (folder, folder / FORCE):
            _unclaim_stale(directory, now=now)
        waiting = [(path, False) for path in _waiting(folder, settle_seconds=settle, now=now)]
        if (folder / FORCE).is_dir() and not (folder / FORCE).is_symlink():
            waiting += [(path, True) for path in _waiting(folder / FORCE, settle_seconds=settle, now=now)]
        for path, forced in waiting:
            found = _take(supplier, path, forced=forced)
            if found is not None:
                outcomes.append(found)
    return outcomes


def _unclaim_stale(directory: Path, *, now: float) -> None:
    """Give back the files a scan claimed and never moved (it was killed): claimed longer ago than a scan may
    run (the task's hard time limit, 300 s, twice over), they wait again under their own names."""
    if not directory.is_dir():
        return
    for claimed in directory.glob(f".*{CLAIMED}"):
        try:
            if now - claimed.stat().st_mtime < CLAIM_STALE_SECONDS:
                continue
            original = claimed.with_name(claimed.name.removeprefix(".").removesuffix(CLAIMED))
            if not original.exists():
                os.rename(claimed, original)
                logger.warning("price list %s was claimed by a scan that never finished; it waits again", original)
        except FileNotFoundError:  # taken back by a concurrent scan
            continue


def _take(supplier: Supplier, path: Path, *, forced: bool) -> DropOutcome | None:
    try:
        return price_list_drop_file(supplier=supplier, path=path, forced=forced)
    except FileNotFoundError:  # moved (or claimed) by a concurrent scan
        return None
    except DatabaseError:
        raise  # the database, not the file: the task retries and the file waits
    except Exception as exc:  # a file the reader chokes on must not block the others
        logger.exception("price list %s/%s could not be imported", supplier.slug, path.name)
        claimed = _claim_path(path)
        return _unreadable(supplier, claimed if claimed.exists() else path, exc, forced=forced)
