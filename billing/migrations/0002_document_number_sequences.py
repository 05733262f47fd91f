"""The invoice and УПД number sequences (PostgreSQL). SQLite uses the `invoice_number` and `upd_number` rows of
quotes.QuoteCounter."""

from django.db import migrations

SEQUENCES = ("billing_invoice_number_seq", "billing_upd_number_seq")


def create_sequences(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for name in SEQUENCES:
            schema_editor.execute(f"CREATE SEQUENCE IF NOT EXISTS {name} START WITH 1 INCREMENT BY 1 NO CYCLE")


def drop_sequences(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for name in SEQUENCES:
            schema_editor.execute(f"DROP SEQUENCE IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("billing", "0001_initial")]

    operations = [migrations.RunPython(create_sequences, drop_sequences, elidable=False)]
