"""GET /api/v1/catalog/<kind>/ and /<kind>/<sku>/: filters, pagination, detail, error envelope."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from catalog.models import CATALOG_MODELS, Gpu


@pytest.mark.django_db
@pytest.mark.parametrize("kind", list(CATALOG_MODELS))
def test_every_kind_lists_its_active_rows(api_client: APIClient, catalog: None, kind: str) -> None:
    model = CATALOG_MODELS[kind]
    response = api_client.get(f"/api/v1/catalog/{kind}/", {"page_size": 500})
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == model.objects.filter(is_active=True).count()
    assert sorted(row["sku"] for row in body["results"]) == sorted(
        model.objects.filter(is_active=True).values_list("sku", flat=True)
    )
    assert "id" not in body["results"][0]
    assert body["results"][0]["source"]


@pytest.mark.django_db
def test_gpu_detail_by_sku_carries_datasheet_fields(api_client: APIClient, catalog: None) -> None:
    body = api_client.get("/api/v1/catalog/gpus/h200-nvl/").json()
    assert body["sku"] == "h200-nvl"
    assert Decimal(body["vram_gib"]) == Decimal("141")
    assert Decimal(body["bandwidth_gbs"]) == Decimal("4800")
    assert body["nvlink_kind"] == "bridge-2or4way"
    assert body["ecc"] is True
    assert body["currency"] == "RUB"


@pytest.mark.django_db
def test_gpu_filters_vram_nvlink_ecc_form_factor_vendor(api_client: APIClient, catalog: None) -> None:
    def skus(**params: Any) -> set[str]:
        response = api_client.get("/api/v1/catalog/gpus/", {"page_size": 500, **params})
        assert response.status_code == 200
        return {row["sku"] for row in response.json()["results"]}

    big = skus(min_vram_gib=96)
    assert big == set(Gpu.objects.filter(vram_gib__gte=96, is_active=True).values_list("sku", flat=True))
    assert {"h200-nvl", "mi300x", "rtx-pro-6000-blackwell"} <= big
    assert "rtx-5090" not in big

    linked = skus(nvlink="true")
    assert {"rtx-3090", "h200-nvl", "h100-sxm"} <= linked
    assert "rtx-4090" not in linked and "rtx-pro-6000-blackwell" not in linked
    assert "rtx-4090" in skus(nvlink="false")

    assert skus(form_factor="sxm") == {"a100-80gb-sxm", "h100-sxm", "h200-sxm", "b200-sxm", "b300-sxm"}
    ecc_skus = skus(ecc="true")
    assert "rtx-a6000" in ecc_skus and "rtx-4090" not in ecc_skus
    assert skus(vendor="amd") == {"rx-7900-xtx", "radeon-pro-w7900", "mi300x", "mi325x"}


@pytest.mark.django_db
def test_inactive_rows_hidden_unless_asked(api_client: APIClient, catalog: None) -> None:
    Gpu.objects.filter(sku="t4").update(is_active=False)
    default = {row["sku"] for row in api_client.get("/api/v1/catalog/gpus/", {"page_size": 500}).json()["results"]}
    assert "t4" not in default and "a10g" not in default
    inactive = api_client.get("/api/v1/catalog/gpus/", {"active": "false"}).json()
    assert [row["sku"] for row in inactive["results"]] == ["a10g", "t4"]  # the fixture's A10G: cloud only
    everything = api_client.get("/api/v1/catalog/gpus/", {"active": "all", "page_size": "500"}).json()
    assert everything["count"] == Gpu.objects.count()


@pytest.mark.django_db
def test_pagination(api_client: APIClient, catalog: None) -> None:
    first = api_client.get("/api/v1/catalog/gpus/", {"page_size": 5}).json()
    second = api_client.get("/api/v1/catalog/gpus/", {"page_size": 5, "page": 2}).json()
    assert len(first["results"]) == 5 and len(second["results"]) == 5
    assert first["next"] and second["previous"]
    assert not {r["sku"] for r in first["results"]} & {r["sku"] for r in second["results"]}


@pytest.mark.django_db
def test_bridge_lists_its_gpus_by_sku(api_client: APIClient, catalog: None) -> None:
    body = api_client.get("/api/v1/catalog/bridges/nvlink-bridge-h200-4way/").json()
    assert body["gpus"] == ["h200-nvl"]
    assert body["ways"] == 4


@pytest.mark.django_db
def test_unknown_sku_and_bad_filter_use_the_error_envelope(api_client: APIClient, catalog: None) -> None:
    missing = api_client.get("/api/v1/catalog/gpus/no-such-gpu/")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"
    bad = api_client.get("/api/v1/catalog/gpus/", {"min_vram_gib": "lots"})
    assert bad.status_code == 400
    assert "min_vram_gib" in bad.json()["error"]["fields"]


@pytest.mark.django_db
def test_catalog_api_is_read_only(api_client: APIClient, catalog: None) -> None:
    response = api_client.post("/api/v1/catalog/gpus/", {"sku": "x"}, format="json")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert not Gpu.objects.filter(sku="x").exists()


@pytest.mark.django_db
def test_openapi_schema_and_docs_are_served(api_client: APIClient) -> None:
    schema = api_client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    paths = schema.json()["paths"] if schema["Content-Type"].endswith("json") else None
    if paths is None:
        import yaml

        paths = yaml.safe_load(schema.content)["paths"]
    assert "/api/v1/catalog/gpus/" in paths and "/api/v1/catalog/gpus/{sku}/" in paths
    docs = api_client.get("/api/v1/docs/")
    assert docs.status_code == 200
    assert b"swagger" in docs.content.lower()
