"""/api/v1/auth/token: the caller's API token (create or rotate with POST, revoke with DELETE).

API clients send `Authorization: Token <key>`. A user holds at most one token; POST replaces it with a
new key (the old one stops working at once) and answers the key, the only time it is shown: only its
sha256 is stored, and it expires API_TOKEN_TTL_DAYS after its creation (accounts/tokens.py). The caller
proves who they are with the site's session (the account page's button; DRF checks CSRF), with HTTP
Basic auth (username and password, for scripts; counted by the login throttle per account and address)
or with the current token. Attempts are also throttled per client address before the credentials are
checked. Superusers manage every user's token in the admin.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import HashedTokenAuthentication, ThrottledBasicAuthentication
from accounts.tokens import token_issue, token_revoke
from config.api import ClientAddressScopedRateThrottle


class TokenOutputSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send it as `Authorization: Token <token>`; shown only now")
    username = serializers.CharField()
    created = serializers.DateTimeField()
    expires = serializers.DateTimeField(help_text="After this the token is refused (401); make a new one")


class TokenApi(APIView):
    """Create or rotate (POST) and revoke (DELETE) the caller's API token."""

    authentication_classes = [ThrottledBasicAuthentication, SessionAuthentication, HashedTokenAuthentication]
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
            "Authenticate with the session, HTTP Basic auth or the current token. The key is in this answer "
            "only: it is stored hashed and cannot be shown again."
        ),
        request=None,
        responses={201: TokenOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        token, key = token_issue(user=request.user)
        body = {
            "token": key,
            "username": request.user.get_username(),
            "created": token.created,
            "expires": token.expires_at,
        }
        return Response(TokenOutputSerializer(body).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="auth_token_destroy",
        description="Revoke the caller's API token (nothing happens when there is none).",
        responses={204: OpenApiResponse(description="The token, if any, no longer works")},
    )
    def delete(self, request: Request) -> Response:
        token_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
