"""Give catalog staff and sales their service-catalog permissions (accounts.roles)."""

from django.db import migrations

from accounts.roles import sync_roles_operation


class Migration(migrations.Migration):
    dependencies = [
        ("servicelines", "0001_initial"),
        ("orders", "0003_roles"),
    ]

    operations = [sync_roles_operation()]
