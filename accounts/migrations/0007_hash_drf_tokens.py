"""Existing DRF tokens (authtoken_token, keys in plain text) become ApiToken rows holding sha256(key), valid
API_TOKEN_TTL_DAYS from now (so a client's working key keeps working until then); the plain keys are deleted."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import migrations
from django.utils import timezone


def hash_tokens(apps: Any, schema_editor: Any) -> None:
    Token = apps.get_model("authtoken", "Token")
    ApiToken = apps.get_model("accounts", "ApiToken")
    expires = timezone.now() + timedelta(days=int(getattr(settings, "API_TOKEN_TTL_DAYS", 90)))
    for token in Token.objects.all().iterator():
        ApiToken.objects.update_or_create(
            user_id=token.user_id,
            defaults={
                "key_hash": hashlib.sha256(token.key.encode()).hexdigest(),
                "prefix": token.key[:8],
                "expires_at": expires,
            },
        )
    Token.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0006_api_token"),
        ("authtoken", "0004_alter_tokenproxy_options"),
    ]

    # Not reversible: the plain keys are gone (a reverse would have nothing to restore).
    operations = [migrations.RunPython(hash_tokens, migrations.RunPython.noop)]
