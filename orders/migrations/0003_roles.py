"""Give sales and catalog staff their order permissions (accounts.roles)."""

from django.db import migrations


def sync(apps, schema_editor):
    from accounts.roles import sync_roles

    sync_roles(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("orders", "0002_order_number_sequence"),
        ("procurement", "0002_roles"),
    ]

    operations = [migrations.RunPython(sync, migrations.RunPython.noop)]
