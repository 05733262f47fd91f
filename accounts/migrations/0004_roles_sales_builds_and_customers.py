"""Sales engineers: every saved build in the admin (as in the API) and read access to users, to find the
customer a quote is for (accounts.roles)."""

from django.db import migrations


def sync(apps, schema_editor):
    from accounts.roles import sync_roles

    sync_roles(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_roles_quotes_and_builds"),
        ("catalog", "0001_initial"),
        ("configurator", "0001_initial"),
        ("quotes", "0002_quote_number_sequence"),
    ]

    operations = [migrations.RunPython(sync, migrations.RunPython.noop)]
