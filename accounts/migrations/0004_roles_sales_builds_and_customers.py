"""Sales engineers: every saved build in the admin (as in the API) and read access to users, to find the
customer a quote is for (accounts.roles)."""

from django.db import migrations

from accounts.roles import sync_roles_operation


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_roles_quotes_and_builds"),
        ("catalog", "0001_initial"),
        ("configurator", "0001_initial"),
        ("quotes", "0002_quote_number_sequence"),
    ]

    operations = [sync_roles_operation()]
