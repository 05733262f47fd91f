"""Give catalog staff and sales their service-catalog permissions (accounts.roles)."""

from django.db import migrations


def sync(apps, schema_editor):
    from accounts.roles import sync_roles

    sync_roles(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("servicelines", "0001_initial"),
        ("orders", "0003_roles"),
    ]

    operations = [migrations.RunPython(sync, migrations.RunPython.noop)]
