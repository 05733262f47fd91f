"""Issue 16: the admin in Russian for Russian staff — its title, every model's name, the bulk price change with a
preview, the history without "None", and import errors that name the row as in the file, the column, the value
and the reason."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.conf import settings
from django.contrib import admin
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.text import capfirst

from catalog.models import Gpu
from catalog.resources import RESOURCES
from tests.factories import catalog_staff


def _staff_client(client: Client, language: str | None = None) -> Client:
    user = catalog_staff()
    user.is_superuser = True  # every registered model on the index page
    user.save()
    client.force_login(user)
    if language:
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client


def _title(page: str) -> str:
    found = re.search(r"<title>(.*?)</title>", page, re.S)
    assert found is not None
    return found.group(1)


@pytest.mark.django_db
def test_the_admin_index_is_russian_with_no_django_in_the_title_and_no_english_model_names(
    client: Client, catalog: None
) -> None:
    page = _staff_client(client).get(reverse("admin:index")).content.decode()
    assert "Django" not in _title(page)
    assert "Django" not in page.split("<body", 1)[1].split("</header>", 1)[0]  # the branding
    english = set()
    with translation.override("en"):
        for model in admin.site._registry:
            english.add(str(capfirst(model._meta.verbose_name_plural)))
    with translation.override("ru"):
        russian = {str(capfirst(model._meta.verbose_name_plural)) for model in admin.site._registry}
    shown = set(re.findall(r'<th scope="row"[^>]*>\s*<a href="[^"]*"[^>]*>([^<]+)</a>', page))
    assert shown, "the index lists the models"
    assert shown <= russian
    assert not (english - russian) & shown, sorted(english & shown)
    assert "Видеокарты" in shown and "Блоки питания" in shown and "Коммерческие предложения" in shown


@pytest.mark.django_db
def test_the_change_list_and_form_have_russian_headers(client: Client, catalog: None) -> None:
    staff = _staff_client(client)
    listing = staff.get(reverse("admin:catalog_psu_changelist")).content.decode()
    assert "Название (по-русски)" in listing and "Прайсовая цена" in listing
    assert "Блок питания CRPS 2000 Вт с горячей заменой" in listing
    assert "Django" not in _title(listing)
    form = staff.get(reverse("admin:catalog_gpu_change", args=[Gpu.objects.get(sku="l40s").pk])).content.decode()
    for label in ("Память, ГиБ", "Пропускная способность памяти, ГБ/с", "Форм-фактор", "Название (английское)"):
        assert label in form, label


@pytest.mark.django_db
def test_the_bulk_price_change_previews_old_and_new_prices_before_applying(client: Client, catalog: None) -> None:
    staff = _staff_client(client)
    gpu = Gpu.objects.get(sku="l4")
    old = gpu.list_price
    url = reverse("admin:catalog_gpu_changelist")
    selected = {"action": "change_prices", "_selected_action": [gpu.pk], "percent": "10"}
    preview = staff.post(url, {**selected, "preview": "1"})
    page = preview.content.decode()
    assert preview.status_code == 200
    assert 'id="price-preview"' in page and "Применить новые цены" in page
    new = (old * 11 / 10).quantize(old)
    with translation.override("ru"):
        from configurator.wording import num

        assert num(old, 2) in page and num(new, 2) in page
    gpu.refresh_from_db()
    assert gpu.list_price == old  # nothing changes on the preview
    staff.post(url, {**selected, "apply": "1"})
    gpu.refresh_from_db()
    assert gpu.list_price == new
    history = staff.get(reverse("admin:catalog_gpu_history", args=[gpu.pk])).content.decode()
    assert "Изменение цен на +10" in history
    assert "None" not in history
    assert "Прайсовая цена" in history  # the column is named, not "list_price"


def _gpu_csv(rows_changed: dict[int, dict[str, str]]) -> SimpleUploadedFile:
    dataset = RESOURCES[Gpu]().export(queryset=Gpu.objects.filter(sku__in=["l4", "l40s"]).order_by("sku"))
    reader = csv.DictReader(io.StringIO(dataset.csv))
    rows = list(reader)
    for index, change in rows_changed.items():
        rows[index].update(change)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(reader.fieldnames or []))
    writer.writeheader()
    writer.writerows(rows)
    return SimpleUploadedFile("gpus.csv", buffer.getvalue().encode(), content_type="text/csv")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "Row 3, column list_price, value &#x27;abc&#x27;: not a number"),
        ("ru", "Строка 3, столбец list_price, значение &#x27;abc&#x27;: не число"),
    ],
)
def test_a_bad_import_cell_is_named_by_its_row_in_the_file_column_value_and_reason(
    client: Client, catalog: None, language: str, expected: str
) -> None:
    """Header = row 1, so the second data row (the one with 'abc') is row 3 of the file."""
    staff = _staff_client(client, language)
    before = dict(Gpu.objects.values_list("sku", "list_price"))
    response = staff.post(
        reverse("admin:catalog_gpu_import"),
        {"import_file": _gpu_csv({1: {"list_price": "abc"}}), "format": "0", "resource": "0"},
    )
    page = response.content.decode()
    assert expected in page
    assert "ConversionSyntax" not in page
    assert dict(Gpu.objects.values_list("sku", "list_price")) == before


@pytest.mark.django_db
def test_a_model_check_failing_on_import_names_row_column_and_value(client: Client, catalog: None) -> None:
    staff = _staff_client(client, "en")
    response = staff.post(
        reverse("admin:catalog_gpu_import"),
        {"import_file": _gpu_csv({0: {"vram_gib": "0"}}), "format": "0", "resource": "0"},
    )
    assert "Row 2, column vram_gib, value &#x27;0&#x27;:" in response.content.decode()
