"""The general VAT rate of the Tax Code (art. 164 p. 3): 20 % from 01.01.2019 (Federal Law No. 303-FZ of
03.08.2018), 22 % from 01.01.2026 (the 2025 amendments to art. 164)."""

import datetime as dt
from decimal import Decimal

from django.db import migrations

ROWS = (
    (dt.date(2019, 1, 1), Decimal(20), "Tax Code art. 164 p. 3, Federal Law No. 303-FZ of 03.08.2018"),
    (dt.date(2026, 1, 1), Decimal(22), "Tax Code art. 164 p. 3 as amended in 2025, from 01.01.2026"),
)


def load(apps, schema_editor):  # type: ignore[no-untyped-def]
    VatRate = apps.get_model("finance", "VatRate")
    for valid_from, percent, note in ROWS:
        VatRate.objects.get_or_create(valid_from=valid_from, defaults={"percent": percent, "note": note})


def unload(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("finance", "VatRate").objects.filter(valid_from__in=[row[0] for row in ROWS]).delete()


class Migration(migrations.Migration):
    dependencies = [("finance", "0001_initial")]
    operations = [migrations.RunPython(load, unload)]
