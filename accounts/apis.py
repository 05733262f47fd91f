"""/api/v1/auth/token: the caller's API token (create or rotate with POST, revoke with DELETE).

API clients send `Authorization: Token <key>`. A user holds at most one token; POST replaces it with a
new key (the old one stops working at once) and answers the key, the only time it is shown. The caller
proves who they are with the site's session (the account page's button; DRF checks CSRF), with HTTP
Basic auth (username and password, for scripts) or with the current token. Attempts are throttled per
client address before the credentials are checked, so password guessing is limited too. Superusers
manage every user's token in the admin.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import BasicAuthentication, SessionAuthentication, TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import ClientAddressScopedRateThrottle


def token_rotate(*, user: Any) -> Token:
    """Replace the user's token (if any) with a new one; the old key stops working when this commits."""
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user)


def token_revoke(*, user: Any) -> bool:
    """Delete the user's token; True when there was one."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return deleted > 0


class TokenOutputSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send it as `Authorization: Token <token>`; shown only now")
    username = serializers.CharField()
    created = serializers.DateTimeField()


class TokenApi(APIView):
    """Create or rotate (POST) and revoke (DELETE) the caller's API token."""

    authentication_classes = [BasicAuthentication, SessionAuthentication, TokenAuthentication]
    permission_classes = [IsAuthenticated]
    throttle_classes = [ClientAddressScopedRateThrottle]
    throttle_scope = "auth_token"

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # Count the attempt before the credentials are checked (DRF authenticates first otherwise).
        self.check_throttles(request)
        request._throttles_checked = True  # type: ignore[attr-defined]
        super().initial(request, *args, **kwargs)

    def check_throttles(self, request: Request) -> None:
        if getattr(request, "_throttles_checked", False):
            return
        super().check_throttles(request)

    @extend_schema(
        operation_id="auth_token_create",
        description=(
            "Make a new API token for the caller, replacing (and invalidating) the one they had. "
            "Authenticate with the session, HTTP Basic auth or the current token."
        ),
        request=None,
        responses={201: TokenOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        token = token_rotate(user=request.user)
        body = {"token": token.key, "username": request.user.get_username(), "created": token.created}
        return Response(TokenOutputSerializer(body).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="auth_token_destroy",
        description="Revoke the caller's API token (nothing happens when there is none).",
        responses={204: OpenApiResponse(description="The token, if any, no longer works")},
    )
    def delete(self, request: Request) -> Response:
        token_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
