"""Give sales engineers their quote and saved-build permissions (accounts.roles)."""

from django.db import migrations

from accounts.roles import sync_roles_operation


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_roles"),
        ("quotes", "0001_initial"),
        ("configurator", "0001_initial"),
    ]

    operations = [sync_roles_operation()]
