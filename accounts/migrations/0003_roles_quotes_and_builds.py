"""Give sales engineers their quote and saved-build permissions (accounts.roles)."""

from django.db import migrations


def sync(apps, schema_editor):
    from accounts.roles import sync_roles

    sync_roles(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_roles"),
        ("quotes", "0001_initial"),
        ("configurator", "0001_initial"),
    ]

    operations = [migrations.RunPython(sync, migrations.RunPython.noop)]
