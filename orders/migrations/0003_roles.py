"""Give sales and catalog staff their order permissions (accounts.roles)."""

from django.db import migrations

from accounts.roles import sync_roles_operation


class Migration(migrations.Migration):
    dependencies = [
        ("orders", "0002_order_number_sequence"),
        ("procurement", "0002_roles"),
    ]

    operations = [sync_roles_operation()]
