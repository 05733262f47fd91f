"""Give catalog staff and sales their procurement permissions (accounts.roles)."""

from django.db import migrations


def sync(apps, schema_editor):
    from accounts.roles import sync_roles

    sync_roles(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("procurement", "0001_initial"),
        ("accounts", "0004_roles_sales_builds_and_customers"),
    ]

    operations = [migrations.RunPython(sync, migrations.RunPython.noop)]
