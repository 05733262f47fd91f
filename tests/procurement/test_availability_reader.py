"""`availability_reader`: one reader answers many builds (a recommendation reads dozens); it keeps each
part's availability once and answers exactly what `build_availability` answers for each build alone."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import call_command

from catalog.specs import catalog_snapshot
from configurator.engine import availability as engine_availability
from configurator.engine.availability import build_availability
from configurator.engine.builds import build_from_payload
from procurement.selectors import availability_reader, offer_book, schedule
from tests.builds import ARCHITECTURE_EXAMPLE, ERROR_BUILD, GOOD_BUILD, TOO_FEW_PSUS, WARNING_BUILD

TODAY = dt.date(2026, 3, 2)


@pytest.mark.django_db
def test_one_reader_answers_each_build_as_alone_reading_each_part_once(
    catalog: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    call_command("load_offers", verbosity=0)
    snapshot = catalog_snapshot()
    builds = [
        build_from_payload(body, snapshot)
        for body in (GOOD_BUILD, WARNING_BUILD, ERROR_BUILD, TOO_FEW_PSUS, ARCHITECTURE_EXAMPLE, TOO_FEW_PSUS)
    ]
    alone = [build_availability(build, offer_book(), today=TODAY, schedule=schedule()) for build in builds]
    read: list[tuple[str, int]] = []
    part_availability = engine_availability.part_availability

    def counted(offers: object, sku: str, qty: int, *, stock_days: int) -> object:
        read.append((sku, qty))
        return part_availability(offers, sku, qty, stock_days=stock_days)  # type: ignore[arg-type]

    monkeypatch.setattr(engine_availability, "part_availability", counted)
    reader = availability_reader(today=TODAY)
    assert [reader(build) for build in builds] == alone
    assert sorted(read) == sorted(set(read))  # each (SKU, quantity) once for all six builds
    assert any(answer.ship_date for answer in alone)  # offers were there to read
    assert len(read) < sum(len(answer.parts) for answer in alone)


@pytest.mark.django_db
def test_the_reader_carries_over_while_the_offer_book_does_and_sees_a_new_book(
    catalog: None, settings: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within CATALOG_SNAPSHOT_TTL_S the offer book is the same object and so is the reader (its parts'
    availability carries over to the next request); a new day or a book read again gets a new reader,
    which answers from the offers as they are then."""
    from procurement import selectors
    from procurement.models import SupplierOffer

    call_command("load_offers", verbosity=0)
    settings.CATALOG_SNAPSHOT_TTL_S = 60.0  # type: ignore[attr-defined]
    monkeypatch.setattr(selectors, "_recent", None)
    build = build_from_payload(ARCHITECTURE_EXAMPLE, catalog_snapshot())
    first = availability_reader(today=TODAY)
    before = first(build)
    assert availability_reader(today=TODAY) is first
    assert availability_reader(today=TODAY + dt.timedelta(days=1)) is not first
    stocked = next(part.sku for part in before.parts if part.in_stock_qty > 0)
    SupplierOffer.objects.filter(sku=stocked).update(stock_qty=0, reserved_qty=0)
    assert availability_reader(today=TODAY)(build) == before  # the same book: the offers as read then
    monkeypatch.setattr(selectors, "_recent", None)  # the TTL has run out: the book is read again
    fresh = availability_reader(today=TODAY)
    assert fresh is not first
    after = fresh(build)
    assert next(part for part in after.parts if part.sku == stocked).in_stock_qty == 0


@pytest.mark.django_db
def test_a_book_read_again_unchanged_keeps_the_reader_and_a_changed_one_does_not(
    catalog: None, settings: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After CATALOG_SNAPSHOT_TTL_S the offers are read again: the same offers keep the book object, and so
    the reader and what it knows; a changed offer gives a new book and a new reader."""
    from procurement import selectors
    from procurement.models import SupplierOffer

    call_command("load_offers", verbosity=0)
    settings.CATALOG_SNAPSHOT_TTL_S = 60.0  # type: ignore[attr-defined]
    monkeypatch.setattr(selectors, "_recent", None)
    first = availability_reader()
    book = selectors.offer_book_recent()

    def expire() -> None:
        assert selectors._recent is not None
        selectors._recent = (selectors._recent[0] - 61.0, *selectors._recent[1:])

    expire()
    assert selectors.offer_book_recent() is book  # read again, equal: the same object
    assert availability_reader() is first
    SupplierOffer.objects.filter(pk=SupplierOffer.objects.first().pk).update(stock_qty=12345)  # type: ignore[union-attr]
    expire()
    assert selectors.offer_book_recent() is not book
    assert availability_reader() is not first


def test_the_sellers_day_follows_the_clock_and_the_time_zone(settings: object) -> None:
    """`seller_today` is `timezone.localdate()` at every moment, across midnight in the seller's time zone
    (Moscow, UTC+3) and back in time, and follows a change of TIME_ZONE."""
    import time_machine
    from django.utils import timezone

    from procurement.selectors import seller_today

    utc = dt.UTC
    for moment in (
        dt.datetime(2026, 3, 1, 20, 59, 59, tzinfo=utc),  # 23:59:59 in Moscow
        dt.datetime(2026, 3, 1, 21, 0, 0, tzinfo=utc),  # 00:00:00 in Moscow: the next day
        dt.datetime(2026, 3, 1, 20, 0, 0, tzinfo=utc),  # back in time: the day before again
        dt.datetime(2026, 12, 31, 21, 0, 0, tzinfo=utc),
    ):
        with time_machine.travel(moment, tick=False):
            assert seller_today() == timezone.localdate()
            assert seller_today() == timezone.localdate()  # the day remembered
    with time_machine.travel(dt.datetime(2026, 3, 1, 22, 0, 0, tzinfo=utc), tick=False):
        assert seller_today() == dt.date(2026, 3, 2)
        settings.TIME_ZONE = "UTC"  # type: ignore[attr-defined]
        assert seller_today() == dt.date(2026, 3, 1) == timezone.localdate()


def test_the_schedule_follows_a_changed_procurement_setting(settings: object) -> None:
    """`schedule()` is made once and made again when a PROCUREMENT_* setting changes (setting_changed)."""
    first = schedule()
    assert schedule() is first
    settings.PROCUREMENT_ASSEMBLY_DAYS = first.assembly_days + 4  # type: ignore[attr-defined]
    changed = schedule()
    assert changed.assembly_days == first.assembly_days + 4
    assert (changed.stock_days, changed.burn_in_days) == (first.stock_days, first.burn_in_days)
