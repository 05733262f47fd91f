"""The order number sequence (PostgreSQL). SQLite uses the `order_number` row of quotes.QuoteCounter."""

from django.db import migrations

SEQUENCE = "orders_order_number_seq"


def create_sequence(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"CREATE SEQUENCE IF NOT EXISTS {SEQUENCE} START WITH 1 INCREMENT BY 1 NO CYCLE")


def drop_sequence(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP SEQUENCE IF EXISTS {SEQUENCE}")


class Migration(migrations.Migration):
    dependencies = [("orders", "0001_initial")]

    operations = [migrations.RunPython(create_sequence, drop_sequence, elidable=False)]
