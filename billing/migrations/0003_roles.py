"""Give sales and catalog staff their billing permissions (accounts.roles)."""

from django.db import migrations

from accounts.roles import sync_roles_operation


class Migration(migrations.Migration):
    dependencies = [
        ("billing", "0002_document_number_sequences"),
        ("orders", "0007_risks_and_skipped_plans"),
    ]

    operations = [sync_roles_operation()]
