"""DRF authentication of the API: HTTP Basic counted by the login throttle, and hashed, expiring API tokens.

* `ThrottledBasicAuthentication`: HTTP Basic (scripts calling /api/v1/auth/token) goes through the same
  per-account and per-address counters as the login forms (accounts/throttle.py): a locked-out account or
  address gets 429 before the password is checked, a wrong password is counted, a right one clears the count.
* `HashedTokenAuthentication`: `Authorization: Token <key>` where only sha256(key) is stored
  (accounts.models.ApiToken); an expired token, or one of an inactive user, is refused like an unknown one.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.authentication import BasicScheme
from rest_framework import exceptions
from rest_framework.authentication import BasicAuthentication, TokenAuthentication
from rest_framework.request import Request

from accounts.throttle import client_address, login_failed, login_limits, login_locked, login_succeeded


class ThrottledBasicAuthentication(BasicAuthentication):
    door = "api_basic"

    def authenticate_credentials(self, userid: str, password: str, request: Request | None = None) -> Any:
        address = client_address(request)
        if login_locked(username=userid, address=address):
            raise exceptions.Throttled(
                wait=login_limits().window_s, detail="Too many failed attempts to log in; try again later."
            )
        try:
            result = super().authenticate_credentials(userid, password, request)
        except exceptions.AuthenticationFailed:
            login_failed(username=userid, address=address, door=self.door)
            raise
        login_succeeded(username=userid, address=address, door=self.door)
        return result


class HashedTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`, looked up by sha256(key); expired or revoked keys are refused."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        from accounts.models import ApiToken, token_digest

        token = ApiToken.objects.select_related("user").filter(key_hash=token_digest(key)).first()
        if token is None or token.expires_at <= timezone.now():
            raise exceptions.AuthenticationFailed("Invalid token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.user, token


class ThrottledBasicScheme(BasicScheme):
    """The OpenAPI schema: HTTP Basic, as DRF's own (the throttle changes no header)."""

    target_class = "accounts.authentication.ThrottledBasicAuthentication"
