"""Give catalog staff and sales their procurement permissions (accounts.roles)."""

from django.db import migrations

from accounts.roles import sync_roles_operation


class Migration(migrations.Migration):
    dependencies = [
        ("procurement", "0001_initial"),
        ("accounts", "0004_roles_sales_builds_and_customers"),
    ]

    operations = [sync_roles_operation()]
