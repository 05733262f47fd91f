"""Price lists dropped into a supplier's folder, imported by the beat job (procurement/dropbox.py)."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings
from django.utils import timezone, translation
from openpyxl import Workbook

from procurement.dropbox import price_list_drop_scan
from procurement.models import PriceListImport, Supplier, SupplierOffer
from procurement.services import price_list_apply, price_list_preview
from procurement.tasks import price_list_scan_task

pytestmark = pytest.mark.django_db

VALID = (timezone.localdate() + dt.timedelta(days=30)).isoformat()
ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def supplier(catalog: None) -> Supplier:
    supplier = Supplier.objects.create(
        slug="acme",
        name="Acme",
        column_mapping={"sku": "Артикул", "purchase_price": "Цена", "stock_qty": "Остаток", "lead_time_days": "Срок"},
    )
    for sku, price in (("rtx-4090", "200000.00"), ("rtx-5090", "300000.00")):
        SupplierOffer.objects.create(
            supplier=supplier, sku=sku, kind="gpus", purchase_price=Decimal(price), stock_qty=3,
            lead_time_days=10, valid_until=timezone.localdate() + dt.timedelta(days=10),
        )  # fmt: skip
    return supplier


@pytest.fixture
def drop(tmp_path: Path, settings: object, supplier: Supplier) -> Path:
    settings.PROCUREMENT_PRICE_LIST_DROP_DIR = str(tmp_path)  # type: ignore[attr-defined]
    settings.PROCUREMENT_PRICE_LIST_SETTLE_SECONDS = 0  # type: ignore[attr-defined]
    (tmp_path / supplier.slug).mkdir()
    return tmp_path / supplier.slug


def _csv(rows: list[str]) -> bytes:
    return ("Артикул;Цена;Остаток;Срок;valid_until\n" + "\n".join(rows) + "\n").encode()


def _offers() -> list[tuple[str, Decimal | None, int, int]]:
    return list(
        SupplierOffer.objects.order_by("sku").values_list("sku", "purchase_price", "stock_qty", "lead_time_days")
    )


def _report(path: Path) -> dict[str, Any]:
    return json.loads(path.with_name(path.name + ".report.json").read_text(encoding="utf-8"))


def test_a_good_file_is_applied_through_the_mapping_and_moved_to_done(drop: Path) -> None:
    (drop / "acme-11.csv").write_bytes(_csv([f"rtx-4090;220000;5;7;{VALID}", f"h200-nvl;3000000;1;20;{VALID}"]))
    outcomes = price_list_drop_scan()
    assert [(o.filename, o.outcome, o.moved_to) for o in outcomes] == [("acme-11.csv", "applied", "done")]
    assert not (drop / "acme-11.csv").exists()
    assert (drop / "done" / "acme-11.csv").exists()
    report = _report(drop / "done" / "acme-11.csv")
    assert report["outcome"] == "applied" and report["status"] == "applied"
    assert report["new"] == ["h200-nvl"] and report["gone"] == []  # a partial list (the default) retires nothing
    assert report["moved"] == [
        {
            "sku": "rtx-4090",
            "old": "200000.00",
            "new": "220000",
            "currency": "RUB",
            "old_currency": "RUB",
            "percent": "+10.0",
        }
    ]
    assert not SupplierOffer.objects.get(sku="rtx-5090").is_stale
    offer = SupplierOffer.objects.get(sku="rtx-4090")
    assert (offer.purchase_price, offer.stock_qty, offer.lead_time_days) == (Decimal("220000.00"), 5, 7)
    assert [h.purchase_price for h in offer.history.order_by("history_date")] == [Decimal(200000), Decimal(220000)]
    price_import = PriceListImport.objects.get()
    assert (price_import.source, price_import.status, price_import.filename) == ("drop", "applied", "acme-11.csv")


def test_a_bad_file_changes_nothing_and_its_report_names_line_column_and_value(drop: Path) -> None:
    before = _offers()
    (drop / "bad.csv").write_bytes(
        _csv([f"rtx-4090;210000;5;7;{VALID}", f"rtx-5090;три сотни;5;7;{VALID}", f"rtx-3090;1;1;1;{VALID}"])
    )
    [outcome] = price_list_drop_scan()
    assert (outcome.outcome, outcome.moved_to) == ("failed", "failed")
    assert _offers() == before
    assert SupplierOffer.history.filter(history_type="~").count() == 0
    report = _report(drop / "failed" / "bad.csv")
    [error] = report["errors"]
    assert {key: error[key] for key in ("line", "field", "column", "value", "message")} == {
        "line": 3,
        "field": "purchase_price",
        "column": "Цена",
        "value": "три сотни",
        "message": "not a number",
    }
    assert error["text"] == "Строка 3, столбец Цена, значение 'три сотни': не число"  # said in the site's language
    assert PriceListImport.objects.get().status == "failed"
    # it changed nothing, so the same bytes dropped again (say, once the catalog knows a SKU) are read again
    (drop / "bad.csv").write_bytes((drop / "failed" / "bad.csv").read_bytes())
    [again] = price_list_drop_scan()
    assert (again.outcome, again.moved_to) == ("failed", "failed")
    assert PriceListImport.objects.filter(status="failed").count() == 2
    assert _offers() == before


def test_the_same_file_is_never_imported_twice(drop: Path) -> None:
    body = _csv([f"rtx-4090;220000;5;7;{VALID}", f"rtx-5090;300000;3;10;{VALID}"])
    (drop / "first.csv").write_bytes(body)
    price_list_drop_scan()
    SupplierOffer.objects.filter(sku="rtx-4090").update(purchase_price=Decimal(1))  # changed since by hand
    (drop / "again.csv").write_bytes(body)  # the same bytes under another name
    (drop / "first.csv").write_bytes(body)  # and under the same name: done/ has one already
    outcomes = price_list_drop_scan()
    assert sorted((o.filename, o.outcome, o.moved_to) for o in outcomes) == [
        ("again.csv", "duplicate", "done"),
        ("first.csv", "duplicate", "done"),
    ]
    assert SupplierOffer.objects.get(sku="rtx-4090").purchase_price == Decimal(1)
    assert PriceListImport.objects.count() == 1
    assert _report(drop / "done" / "again.csv")["duplicate_of"] == PriceListImport.objects.get().pk
    assert sorted(p.name for p in (drop / "done").glob("first*.csv")) == [
        "first-" + PriceListImport.objects.get().sha256[:12] + ".csv",
        "first.csv",
    ]


def test_a_file_already_applied_through_the_admin_is_a_duplicate(drop: Path, supplier: Supplier) -> None:
    body = _csv([f"rtx-4090;220000;5;7;{VALID}", f"rtx-5090;300000;3;10;{VALID}"])
    price_list_apply(price_import=price_list_preview(supplier=supplier, filename="admin.csv", content=body))
    (drop / "dropped.csv").write_bytes(body)
    [outcome] = price_list_drop_scan()
    assert outcome.outcome == "duplicate"
    assert PriceListImport.objects.count() == 1


def test_xlsx_files_are_read_too(drop: Path) -> None:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Артикул", "Цена", "Остаток", "Срок", "valid_until"])
    sheet.append(["rtx-4090", 199000.5, 2, 5, dt.datetime(2099, 1, 31)])  # noqa: DTZ001
    sheet.append(["rtx-5090", 300000, 3, 10, dt.datetime(2099, 1, 31)])  # noqa: DTZ001
    buffer = io.BytesIO()
    book.save(buffer)
    (drop / "acme.xlsx").write_bytes(buffer.getvalue())
    [outcome] = price_list_drop_scan()
    assert outcome.outcome == "applied"
    assert SupplierOffer.objects.get(sku="rtx-4090").purchase_price == Decimal("199000.50")


def test_what_is_not_a_finished_price_list_of_a_known_supplier_is_left_alone(
    drop: Path, tmp_path: Path, settings: object
) -> None:
    body = _csv([f"rtx-4090;220000;5;7;{VALID}"])
    for name in ("copying.csv.part", ".hidden.csv", "notes.txt"):
        (drop / name).write_bytes(body)
    (tmp_path / "nobody").mkdir()
    (tmp_path / "nobody" / "list.csv").write_bytes(body)
    (drop / "young.csv").write_bytes(body)
    settings.PROCUREMENT_PRICE_LIST_SETTLE_SECONDS = 3600  # type: ignore[attr-defined]
    assert price_list_drop_scan() == []
    old = drop / "old.csv"
    old.write_bytes(_csv([f"rtx-4090;220000;5;7;{VALID}", f"rtx-5090;300000;3;10;{VALID}"]))
    two_hours_ago = timezone.now().timestamp() - 7200
    os.utime(old, (two_hours_ago, two_hours_ago))
    assert [o.filename for o in price_list_drop_scan()] == ["old.csv"]
    assert sorted(p.name for p in drop.iterdir() if p.is_file()) == [
        ".hidden.csv", "copying.csv.part", "notes.txt", "young.csv",
    ]  # fmt: skip
    assert (tmp_path / "nobody" / "list.csv").exists()
    assert PriceListImport.objects.count() == 1


def test_a_missing_drop_directory_is_not_an_error(tmp_path: Path, settings: object, supplier: Supplier) -> None:
    settings.PROCUREMENT_PRICE_LIST_DROP_DIR = str(tmp_path / "absent")  # type: ignore[attr-defined]
    assert price_list_scan_task.apply().get() == 0


def test_the_beat_job_is_scheduled_and_runs_the_scan(drop: Path) -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["procurement-scan-price-lists"]
    assert entry["task"] == price_list_scan_task.name == "procurement.scan_price_lists"
    assert entry["schedule"] == float(settings.PRICE_LIST_SCAN_SECONDS)
    (drop / "a.csv").write_bytes(_csv([f"rtx-4090;220000;5;7;{VALID}", f"rtx-5090;300000;3;10;{VALID}"]))
    assert price_list_scan_task.apply().get() == 1
    assert (drop / "done" / "a.csv").exists()


def test_compose_gives_the_worker_the_drop_directory() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    worker = compose["services"]["worker"]
    drop_dir = worker["environment"]["PRICE_LIST_DROP_DIR"]
    assert any(volume.split(":")[1] == drop_dir for volume in worker["volumes"])


def test_a_file_that_cannot_be_read_goes_to_failed_with_the_reason(drop: Path) -> None:
    before = _offers()
    (drop / "broken.xlsx").write_bytes(b"PK\x03\x04 not really a workbook")
    [outcome] = price_list_drop_scan()
    assert (outcome.outcome, outcome.moved_to) == ("failed", "failed")
    [error] = _report(drop / "failed" / "broken.xlsx")["errors"]
    assert error["line"] == 0 and error["message"].startswith("cannot read the file")
    assert _offers() == before


def test_a_file_the_import_chokes_on_goes_to_failed_and_the_others_are_still_taken(
    drop: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import procurement.dropbox as dropbox

    real = dropbox.price_list_preview

    def choke(**kwargs: object) -> PriceListImport:
        if kwargs["filename"] == "a-choke.csv":
            raise RuntimeError("reader bug")
        return real(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(dropbox, "price_list_preview", choke)
    (drop / "a-choke.csv").write_bytes(_csv([f"rtx-4090;1;5;7;{VALID}"]))
    (drop / "b-good.csv").write_bytes(_csv([f"rtx-4090;220000;5;7;{VALID}", f"rtx-5090;300000;3;10;{VALID}"]))
    outcomes = price_list_drop_scan()
    assert [(o.filename, o.outcome) for o in outcomes] == [("a-choke.csv", "failed"), ("b-good.csv", "applied")]
    [error] = _report(drop / "failed" / "a-choke.csv")["errors"]
    assert error["message"] == "could not be imported: RuntimeError('reader bug')"
    assert SupplierOffer.objects.get(sku="rtx-4090").purchase_price == Decimal(220000)


def test_the_report_is_in_the_sites_language_whatever_was_active(drop: Path) -> None:
    (drop / "bad.csv").write_bytes(_csv([f"rtx-5090;три сотни;5;7;{VALID}"]))
    with translation.override("en"):  # a language left active by whatever the worker ran before
        price_list_drop_scan()
    [error] = _report(drop / "failed" / "bad.csv")["errors"]
    assert error["text"] == "Строка 2, столбец Цена, значение 'три сотни': не число"


def test_a_file_claimed_by_a_scan_is_left_to_it_and_a_stale_claim_is_given_back(drop: Path) -> None:
    """Every file is claimed (renamed `.<name>.taking`) before it is read, so of two racing scans one reads it
    and writes its one report; a claim left by a killed scan waits `CLAIM_STALE_SECONDS`, then the file gets
    its name back and is imported."""
    from procurement.dropbox import CLAIM_STALE_SECONDS

    fresh = drop / ".acme-12.csv.taking"
    fresh.write_bytes(_csv([f"rtx-4090;220000;5;7;{VALID}"]))
    assert price_list_drop_scan() == [] and fresh.exists()  # another scan is on it
    old = fresh.stat().st_mtime - CLAIM_STALE_SECONDS - 1
    os.utime(fresh, (old, old))
    outcomes = price_list_drop_scan()
    assert [(o.filename, o.outcome) for o in outcomes] == [("acme-12.csv", "applied")]
    assert not fresh.exists() and (drop / "done" / "acme-12.csv").exists()
    assert not list(drop.glob(".*.taking"))


def test_a_copy_left_to_a_concurrent_import_keeps_its_time_and_is_taken_by_the_next_scan(
    drop: Path, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scan whose insert collides with another scan's import of the same bytes gives the file its name back
    with its own modification time: with it the claim's, the file looked freshly copied and every scan within
    the settle time passed it by (a CI run waited 60 s for `copy.csv`)."""
    from django.db import IntegrityError

    from procurement import dropbox

    settings.PROCUREMENT_PRICE_LIST_SETTLE_SECONDS = 60
    copy = drop / "copy.csv"
    copy.write_bytes(_csv([f"rtx-4090;220000;5;7;{VALID}"]))
    settled = copy.stat().st_mtime - 3600
    os.utime(copy, (settled, settled))

    def collide(**kwargs: object) -> PriceListImport:
        raise IntegrityError("duplicate key value violates unique constraint")

    monkeypatch.setattr(dropbox, "price_list_preview", collide)
    assert price_list_drop_scan() == []
    assert copy.exists() and copy.stat().st_mtime == settled and not list(drop.glob(".*.taking"))
    monkeypatch.undo()
    settings.PROCUREMENT_PRICE_LIST_DROP_DIR = str(drop.parent)
    settings.PROCUREMENT_PRICE_LIST_SETTLE_SECONDS = 60
    assert [(o.filename, o.outcome) for o in price_list_drop_scan()] == [("copy.csv", "applied")]


# --------------------------------------------------------------------------- links and names (issue 38)


def test_a_symlink_is_left_alone_and_its_target_never_echoed(drop: Path, tmp_path_factory: Any) -> None:
    secret = tmp_path_factory.mktemp("outside") / "secret.csv"
    secret.write_bytes(_csv([f"TOP-SECRET-{'x' * 300};1;1;1;{VALID}"]))
    (drop / "secret.csv").symlink_to(secret)
    (drop / "secrets").symlink_to(secret.parent, target_is_directory=True)
    (drop.parent / "linked").symlink_to(drop, target_is_directory=True)
    assert price_list_drop_scan() == []
    assert (drop / "secret.csv").is_symlink()  # not claimed, not moved
    assert secret.read_bytes().startswith("Артикул".encode())  # untouched
    written = [path for path in drop.parent.rglob("*") if not path.is_symlink() and path.is_file()]
    assert written == []  # no report anywhere, so nothing of the target echoed
    assert PriceListImport.objects.count() == 0


def test_a_246_character_name_is_imported_and_its_report_fits(drop: Path) -> None:
    shortest = "a" * 242 + ".csv"  # 246 characters: its claim and report names were over NAME_MAX
    (drop / shortest).write_bytes(_csv([f"rtx-4090;220000;5;7;{VALID}"]))
    outcomes = price_list_drop_scan()
    assert [(o.filename, o.outcome, o.moved_to) for o in outcomes] == [(shortest, "applied", "done")]
    (moved,) = [path for path in (drop / "done").iterdir() if not path.name.endswith(".report.json")]
    assert len(moved.name.encode()) + len(".report.json") <= 255 and moved.name.endswith(".csv")
    assert (_report(moved)["supplier"], _report(moved)["outcome"]) == ("acme", "applied")


def test_a_name_of_255_utf8_bytes_is_imported(drop: Path) -> None:
    name = "прайс" * 25 + "a" + ".csv"  # 250 + 1 + 4 = 255 bytes: the claim and the report would not fit
    assert len(name.encode()) == 255
    (drop / name).write_bytes(_csv([f"rtx-4090;220000;5;7;{VALID}"]))
    outcomes = price_list_drop_scan()
    assert [(o.filename, o.outcome) for o in outcomes] == [(name, "applied")]
    assert _offers()[0][1] == Decimal("220000.00")


def test_a_file_named_dot_dot_csv_is_imported_but_not_office_leftovers(drop: Path) -> None:
    (drop / "..csv").write_bytes(_csv([f"rtx-4090;220000;5;7;{VALID}"]))
    (drop / "._acme.csv").write_bytes(b"\x00\x05\x16\x07 mac resource fork")
    (drop / ".~lock.acme.csv").write_bytes(b"lock")
    outcomes = price_list_drop_scan()
    assert [(o.filename, o.outcome, o.moved_to) for o in outcomes] == [("..csv", "applied", "done")]
    assert (drop / "done" / "..csv").exists() and (drop / "._acme.csv").exists()
