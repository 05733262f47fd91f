"""Rows made once for a module's tests (a module-scoped fixture), and the catalog they need."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import transaction

from catalog.models import Gpu
from catalog.services import catalog_load_fixture


def catalog_ready() -> None:
    """The catalog's rows are in the database (a transactional test before flushed them: load them again)."""
    if not Gpu.objects.exists():
        catalog_load_fixture()


@contextmanager
def rows_for_the_module(django_db_blocker: Any) -> Iterator[None]:
    """For a module-scoped fixture: rows made inside stay for the module's tests and are rolled back after them.

    A transaction stays open around the module's tests; each test's own transaction (pytest-django's, for
    `django_db` tests without `transaction=True`) is a savepoint inside it, so what a test writes is rolled back
    as before and the next test finds the rows as made. Only for modules without transactional tests (a flush
    would end the open transaction). Python objects made here must not be changed by the tests: they are not
    rolled back.
    """
    with django_db_blocker.unblock(), transaction.atomic():
        catalog_ready()
        try:
            yield
        finally:
            transaction.set_rollback(True)
