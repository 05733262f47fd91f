"""Catalog staff edit, sales see the cluster parts (issue 39: catalog migration 0007_cluster_parts)."""

from django.db import migrations

from accounts.roles import sync_roles_operation


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0008_staff_totp"),
        ("catalog", "0007_cluster_parts"),
    ]

    operations = [sync_roles_operation()]
