"""Trial tr34 (a sales engineer's trial of the API): inputs as people copy them. A budget typed with digit-group
spaces ("6 000 000", "6 000 000,00 ₽") is the number it reads as, not a 400; a SKU copied from a spec sheet in
another case ("L40S") is the catalog's SKU; an unknown SKU close to one names it ("h100-sxm5" → "h100-sxm")."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from configurator.engine.spellings import plain_amount

RECOMMEND = "/api/v1/recommendations"
VALIDATE = "/api/v1/builds/validate"
WORKLOAD = {"model": "llama-3.1-8b", "concurrent_users": 2}


@pytest.mark.parametrize(
    ("typed", "plain"),
    [
        ("6 000 000", "6000000"),
        ("6\u00a0000\u00a0000,00 ₽", "6000000.00"),
        ("6\u202f000\u202f000", "6000000"),
        ("1,500,000", "1500000"),
        ("2 500 000 руб.", "2500000"),
        ("1 500,5", "1500.5"),
        ("6000000", "6000000"),
        ("six million", "sixmillion"),
    ],
)
def test_plain_amount_reads_a_typed_sum(typed: str, plain: str) -> None:
    assert plain_amount(typed) == plain


@pytest.mark.parametrize("budget", ["600 000", "600\u00a0000,00 ₽", "600,000"])
def test_a_budget_with_digit_groups_is_the_number(catalog: None, api_client: APIClient, budget: str) -> None:
    response = api_client.post(
        RECOMMEND, {"workload": WORKLOAD, "constraints": {"max_price": budget}, "limit": 2}, format="json"
    )
    assert response.status_code == 200, response.content
    candidates = response.json()["candidates"]
    assert candidates and all(Decimal(c["price"]["gross"]) <= Decimal(600_000) for c in candidates)


def test_a_budget_that_is_no_number_is_still_a_400(catalog: None, api_client: APIClient) -> None:
    response = api_client.post(
        RECOMMEND, {"workload": WORKLOAD, "constraints": {"max_price": "six million"}}, format="json"
    )
    assert response.status_code == 400
    assert "constraints.max_price" in response.json()["error"]["fields"]


BUILD = {
    "chassis": "SRV-8GPU-4U-EPYC",
    "cpus": [{"sku": "EPYC-9354", "qty": 2}],
    "gpus": [{"sku": "L40S", "qty": 8}],
    "memory": [{"sku": "ddr5-rdimm-32gb", "qty": 24}],
    "storage": [{"sku": "nvme-1tb", "qty": 2}],
    "nics": [{"sku": "nic-25g", "qty": 1}],
    "psus": [{"sku": "psu-crps-3000w", "qty": 4}],
}


def test_skus_in_another_case_are_the_catalogs(catalog: None, api_client: APIClient) -> None:
    response = api_client.post(VALIDATE, BUILD, format="json")
    assert response.status_code == 200, response.content
    components = {c for f in response.json()["findings"] for c in f["components"]}
    assert "L40S" not in components and "SRV-8GPU-4U-EPYC" not in components


def test_an_unknown_sku_names_the_closest(catalog: None, api_client: APIClient) -> None:
    body = {**BUILD, "chassis": "srv-hgx-h200", "gpus": [{"sku": "h100-sxm5", "qty": 8}], "cpus": []}
    response = api_client.post(VALIDATE, body, format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert fields["gpus[0].sku"] == ["unknown gpus SKU 'h100-sxm5'; did you mean 'h100-sxm'?"]
    assert fields["chassis"] == ["unknown chassis SKU 'srv-hgx-h200'; did you mean 'srv-hgx-h200-5u'?"]
    far = api_client.post(VALIDATE, {**BUILD, "gpus": [{"sku": "rtx-9999", "qty": 1}]}, format="json")
    assert far.json()["error"]["fields"] == {"gpus[0].sku": ["unknown gpus SKU 'rtx-9999'"]}


def test_a_delivery_date_in_the_past_is_a_400(catalog: None, api_client: APIClient) -> None:
    """It answered 200 with "nothing ships by 2025-01-01: the earliest a build can ship is …"."""
    body = {"workload": WORKLOAD, "constraints": {"deliver_by": "2025-01-01"}}
    response = api_client.post(RECOMMEND, body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["fields"]["constraints.deliver_by"] == [
        "2025-01-01 is in the past: give the date the build must ship by, today or later."
    ]
    russian = api_client.post(RECOMMEND, body, format="json", HTTP_ACCEPT_LANGUAGE="ru")
    assert "уже прошла" in russian.json()["error"]["fields"]["constraints.deliver_by"][0]
    today = timezone.localdate().isoformat()
    ok = api_client.post(RECOMMEND, {**body, "constraints": {"deliver_by": today}, "limit": 1}, format="json")
    assert ok.status_code == 200, ok.content
