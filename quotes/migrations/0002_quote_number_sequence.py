"""The quote number sequence (PostgreSQL). SQLite has no sequences: it uses the QuoteCounter row instead.

A sequence never hands out a value twice, even to transactions that roll back, so a quote number is
never reused (gaps are allowed). The value is formatted `Q-<year>-<6 digits>` by quotes.services.
"""

from django.db import migrations

SEQUENCE = "quotes_quote_number_seq"


def create_sequence(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"CREATE SEQUENCE IF NOT EXISTS {SEQUENCE} START WITH 1 INCREMENT BY 1 NO CYCLE")


def drop_sequence(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP SEQUENCE IF EXISTS {SEQUENCE}")


class Migration(migrations.Migration):
    dependencies = [("quotes", "0001_initial")]

    operations = [migrations.RunPython(create_sequence, drop_sequence, elidable=False)]
