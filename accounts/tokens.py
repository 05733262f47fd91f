"""API tokens: issue (create or rotate) and revoke. The key is returned once, by `token_issue`; only its
sha256 is stored (accounts.models.ApiToken), with an expiry API_TOKEN_TTL_DAYS from its creation."""

from __future__ import annotations

import logging
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import ApiToken, token_digest

audit = logging.getLogger("accounts.audit")


def token_issue(*, user: Any, by: Any = None) -> tuple[ApiToken, str]:
    """A new token for `user`, replacing (and so invalidating) the one they had: (the row, the key)."""
    key = secrets.token_urlsafe(32)
    expires = timezone.now() + timedelta(days=int(settings.API_TOKEN_TTL_DAYS))
    with transaction.atomic():
        replaced, _ = ApiToken.objects.filter(user=user).delete()
        token = ApiToken.objects.create(user=user, key_hash=token_digest(key), prefix=key[:8], expires_at=expires)
    event = "token_rotated" if replaced else "token_created"
    audit.info(
        event.replace("_", " "),
        extra={
            "audit": {
                "event": event,
                "user_id": user.pk,
                "by_user_id": getattr(by or user, "pk", None),
                "token": token.prefix,
                "expires_at": expires.isoformat(),
            }
        },
    )
    return token, key


def token_revoke(*, user: Any, by: Any = None) -> bool:
    """Delete the user's token; True when there was one."""
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    if deleted:
        audit.info(
            "token revoked",
            extra={
                "audit": {"event": "token_revoked", "user_id": user.pk, "by_user_id": getattr(by or user, "pk", None)}
            },
        )
    return deleted > 0


def token_get(*, user: Any) -> ApiToken | None:
    """The user's token row (its prefix, creation and expiry; never the key)."""
    return ApiToken.objects.filter(user=user).first()
