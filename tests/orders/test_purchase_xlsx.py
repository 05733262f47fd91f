"""Purchase lists as XLSX: the CSV's rows in one sheet, numbers as numbers; for sales and catalog staff."""

from __future__ import annotations

import io
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from openpyxl import load_workbook

from accounts.models import User
from procurement.models import Supplier
from quotes.models import Quote
from tests import factories
from tests.orders.test_orders_api import GPU, client_for

pytestmark = pytest.mark.django_db


def test_the_xlsx_holds_the_csv_rows_as_numbers(
    accepted: Callable[[], Quote],
    place: Callable[..., Any],
    customer_user: User,
    suppliers: tuple[Supplier, Supplier],
) -> None:
    number = place(client_for(customer_user), accepted().number).json()["number"]
    staff = client_for(factories.catalog_staff(username="cat"))
    response = staff.get(f"/api/v1/orders/{number}/purchase-lists/a.xlsx")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    assert response["Content-Disposition"] == f'attachment; filename="{number}-a.xlsx"'
    sheet = load_workbook(io.BytesIO(response.content)).active
    assert sheet is not None and sheet.title == "a"
    rows = [list(row) for row in sheet.iter_rows(values_only=True)]
    csv_rows = staff.get(f"/api/v1/orders/{number}/purchase-lists/a.csv").content.decode("utf-8-sig").splitlines()
    assert len(rows) == len(csv_rows) == 8  # the header, the six parts, the totals
    assert rows[0] == csv_rows[0].split(";")
    gpu = next(row for row in rows if row[2] == GPU)
    name = "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"
    assert gpu == [number, "a", GPU, None, name, 1, 700000, "RUB", None, None, 700000, 700000, 700000, "from stock"]
    assert all(isinstance(row[5], int) and Decimal(str(row[6])) > 0 for row in rows[1:-1])
    assert rows[-1][0] == "Total, RUB" and rows[-1][12] == 700000 + 1000 * (1 + 1 + 2 + 8 + 1)
    assert client_for(customer_user).get(f"/api/v1/orders/{number}/purchase-lists/a.xlsx").status_code == 403
    assert staff.get(f"/api/v1/orders/{number}/purchase-lists/nobody.xlsx").status_code == 404
