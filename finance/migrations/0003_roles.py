"""Give catalog staff and sales their finance permissions (accounts.roles)."""

from django.db import migrations

from accounts.roles import sync_roles_operation


class Migration(migrations.Migration):
    dependencies = [
        ("finance", "0002_vat_rates"),
        ("accounts", "0005_russian_admin_labels"),
    ]

    operations = [sync_roles_operation()]
