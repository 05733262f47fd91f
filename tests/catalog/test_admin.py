"""The catalog admin: what catalog staff can do, what sales may only see, what customers never reach."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from catalog.models import CATALOG_MODELS, Gpu, Psu
from tests.factories import catalog_staff, customer, sales

MODEL_NAMES = [model._meta.model_name for model in CATALOG_MODELS.values()]


def _login(client: Client, user: object) -> Client:
    client.force_login(user)  # type: ignore[arg-type]
    return client


def _export_csv_rows(skus: list[str]) -> tuple[list[str], list[dict[str, str]]]:
    """The GPU rows as the admin would export them, for building import files."""
    from catalog.resources import RESOURCES

    dataset = RESOURCES[Gpu]().export(queryset=Gpu.objects.filter(sku__in=skus).order_by("sku"))
    reader = csv.DictReader(io.StringIO(dataset.csv))
    rows = list(reader)
    return list(reader.fieldnames or []), rows


def _csv_file(header: list[str], rows: list[dict[str, str]]) -> SimpleUploadedFile:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header)
    writer.writeheader()
    writer.writerows(rows)
    return SimpleUploadedFile("gpus.csv", buffer.getvalue().encode(), content_type="text/csv")


@pytest.mark.django_db
@pytest.mark.parametrize("model_name", MODEL_NAMES)
def test_catalog_staff_reach_every_admin_page(client: Client, catalog: None, model_name: str) -> None:
    _login(client, catalog_staff())
    model = next(m for m in CATALOG_MODELS.values() if m._meta.model_name == model_name)
    obj = model.objects.order_by("sku").first()
    assert obj is not None, f"the fixture has no {model_name} rows"

    changelist = client.get(reverse(f"admin:catalog_{model_name}_changelist"))
    assert changelist.status_code == 200
    assert obj.sku in changelist.content.decode()

    change = client.get(reverse(f"admin:catalog_{model_name}_change", args=[obj.pk]))
    assert change.status_code == 200
    assert 'name="_save"' in change.content.decode()

    history = client.get(reverse(f"admin:catalog_{model_name}_history", args=[obj.pk]))
    assert history.status_code == 200
    assert obj.sku in history.content.decode()

    importer = client.get(reverse(f"admin:catalog_{model_name}_import"))
    assert importer.status_code == 200
    assert 'name="import_file"' in importer.content.decode()

    exporter = client.get(reverse(f"admin:catalog_{model_name}_export"))
    assert exporter.status_code == 200


@pytest.mark.django_db
def test_gpu_changelist_shows_the_columns_that_matter_and_filters(client: Client, catalog: None) -> None:
    _login(client, catalog_staff())
    response = client.get(reverse("admin:catalog_gpu_changelist"), {"ecc__exact": "1", "q": "h200"})
    body = response.content.decode()
    assert response.status_code == 200
    for column in ("Память, ГиБ", "Пропускная способность памяти", "TDP, Вт", "Прайсовая цена"):  # Russian staff
        assert column.lower() in body.lower()
    skus = [gpu.sku for gpu in response.context["cl"].result_list]
    assert sorted(skus) == ["h200-nvl", "h200-sxm"]


@pytest.mark.django_db
def test_customer_is_refused_every_admin_page_and_changes_nothing(client: Client, catalog: None) -> None:
    _login(client, customer())
    gpu = Gpu.objects.get(sku="rtx-3090")
    for url in (
        reverse("admin:catalog_gpu_changelist"),
        reverse("admin:catalog_gpu_change", args=[gpu.pk]),
        reverse("admin:catalog_gpu_import"),
        reverse("admin:catalog_gpu_history", args=[gpu.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))
    response = client.post(
        reverse("admin:catalog_gpu_changelist"),
        {"action": "change_prices", "_selected_action": [gpu.pk], "apply": "1", "percent": "50"},
    )
    assert response.status_code == 302
    gpu.refresh_from_db()
    assert gpu.list_price == Gpu.objects.get(sku="rtx-3090").list_price
    assert gpu.history.count() == 1  # only the creation by the fixture loader


@pytest.mark.django_db
def test_sales_can_view_but_not_change_or_import(client: Client, catalog: None) -> None:
    _login(client, sales())
    gpu = Gpu.objects.get(sku="h200-nvl")
    price_before = gpu.list_price

    assert client.get(reverse("admin:catalog_gpu_changelist")).status_code == 200
    change = client.get(reverse("admin:catalog_gpu_change", args=[gpu.pk]))
    assert change.status_code == 200
    assert 'name="_save"' not in change.content.decode()  # read-only view

    post = client.post(reverse("admin:catalog_gpu_change", args=[gpu.pk]), {"list_price": "1.00"})
    assert post.status_code == 403
    assert client.get(reverse("admin:catalog_gpu_import")).status_code == 403
    action = client.post(
        reverse("admin:catalog_gpu_changelist"),
        {"action": "change_prices", "_selected_action": [gpu.pk], "apply": "1", "percent": "50"},
    )
    assert action.status_code in (200, 302)
    gpu.refresh_from_db()
    assert gpu.list_price == price_before


@pytest.mark.django_db
def test_import_with_one_bad_row_reports_it_and_changes_nothing(client: Client, catalog: None) -> None:
    _login(client, catalog_staff())
    header, rows = _export_csv_rows(["rtx-3090", "rtx-4090"])
    prices_before = dict(Gpu.objects.filter(sku__in=["rtx-3090", "rtx-4090"]).values_list("sku", "list_price"))
    rows[0]["list_price"] = "99999.00"  # a valid change on line 1
    rows[1]["vram_gib"] = "0"  # impossible: zero VRAM on line 2
    rows.append({**rows[0], "sku": "rtx-new-card", "name": "New card"})  # a valid new row
    count_before = Gpu.objects.count()

    response = client.post(
        reverse("admin:catalog_gpu_import"),
        {"import_file": _csv_file(header, rows), "format": "0", "resource": "0"},
    )
    assert response.status_code == 200
    result = response.context["result"]
    assert result.has_validation_errors()
    bad_rows = [row.number for row in result.invalid_rows]
    assert bad_rows == [2]
    assert "vram_gib" in result.invalid_rows[0].field_specific_errors
    assert "confirm" not in response.content.decode().lower() or "process_import" not in response.content.decode()

    assert Gpu.objects.count() == count_before
    assert not Gpu.objects.filter(sku="rtx-new-card").exists()
    after = dict(Gpu.objects.filter(sku__in=["rtx-3090", "rtx-4090"]).values_list("sku", "list_price"))
    assert after == prices_before


@pytest.mark.django_db
def test_import_preview_changes_nothing_until_confirmed_then_upserts_by_sku(client: Client, catalog: None) -> None:
    staff = catalog_staff()
    _login(client, staff)
    header, rows = _export_csv_rows(["rtx-3090"])
    rows[0]["list_price"] = "123456.78"
    rows.append({**rows[0], "sku": "rtx-3090-refurb", "name": "RTX 3090 refurbished", "list_price": "60000.00"})
    before = Gpu.objects.get(sku="rtx-3090").list_price

    preview = client.post(
        reverse("admin:catalog_gpu_import"),
        {"import_file": _csv_file(header, rows), "format": "0", "resource": "0"},
    )
    assert preview.status_code == 200
    result = preview.context["result"]
    assert not result.has_errors() and not result.has_validation_errors()
    assert [row.import_type for row in result.rows] == ["update", "new"]
    assert Gpu.objects.get(sku="rtx-3090").list_price == before  # dry run
    assert not Gpu.objects.filter(sku="rtx-3090-refurb").exists()

    confirm_form = preview.context["confirm_form"]
    confirmed = client.post(reverse("admin:catalog_gpu_process_import"), confirm_form.initial)
    assert confirmed.status_code == 302
    assert Gpu.objects.get(sku="rtx-3090").list_price == Decimal("123456.78")
    assert Gpu.objects.get(sku="rtx-3090-refurb").vram_gib == Decimal("24.0")
    latest = Gpu.objects.get(sku="rtx-3090").history.first()
    assert latest.history_user == staff
    assert latest.history_type == "~"


@pytest.mark.django_db
def test_price_change_in_the_form_is_recorded_with_user_old_and_new(client: Client, catalog: None) -> None:
    staff = catalog_staff()
    _login(client, staff)
    psu = Psu.objects.get(sku="psu-crps-3000w")
    old_price = psu.list_price
    page = client.get(reverse("admin:catalog_psu_change", args=[psu.pk]))
    form = page.context["adminform"].form
    data = {name: form[name].value() for name in form.fields}
    data = {key: ("" if value is None else value) for key, value in data.items()}
    data["list_price"] = "77777.00"
    response = client.post(reverse("admin:catalog_psu_change", args=[psu.pk]), data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else ""

    record = psu.history.first()
    assert record.history_user == staff
    delta = record.diff_against(record.prev_record)
    changes = {change.field: (change.old, change.new) for change in delta.changes}
    assert changes == {"list_price": (old_price, Decimal("77777.00"))} or (
        set(changes) == {"list_price", "updated_at"} and changes["list_price"] == (old_price, Decimal("77777.00"))
    )
    history_page = client.get(reverse("admin:catalog_psu_history", args=[psu.pk]))
    assert staff.username in history_page.content.decode()


@pytest.mark.django_db
def test_bulk_price_action_changes_selected_rows_by_percent_with_history(client: Client, catalog: None) -> None:
    staff = catalog_staff()
    _login(client, staff)
    gpus = list(Gpu.objects.filter(sku__in=["l40s", "l4"]).order_by("sku"))
    before = {gpu.sku: gpu.list_price for gpu in gpus}
    untouched = Gpu.objects.get(sku="a10").list_price

    confirm_page = client.post(
        reverse("admin:catalog_gpu_changelist"),
        {"action": "change_prices", "_selected_action": [gpu.pk for gpu in gpus]},
    )
    assert confirm_page.status_code == 200
    assert "l40s" in confirm_page.content.decode()

    response = client.post(
        reverse("admin:catalog_gpu_changelist"),
        {
            "action": "change_prices",
            "_selected_action": [gpu.pk for gpu in gpus],
            "apply": "1",
            "percent": "-5",
        },
    )
    assert response.status_code == 302
    for gpu in gpus:
        gpu.refresh_from_db()
        expected = (before[gpu.sku] * Decimal("0.95")).quantize(Decimal("0.01"))
        assert gpu.list_price == expected
        assert gpu.history.first().history_user == staff
    assert Gpu.objects.get(sku="a10").list_price == untouched
