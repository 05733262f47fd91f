"""The configurator's API: one APIView per operation (estimate, builds, recommendations)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from config.api import AnonymousScopedRateThrottle
from config.parsers import JsonBodyRequest


class PublicApi(APIView):
    """An operation anyone may call; anonymous callers are throttled per client address at the rate of the
    view's `throttle_scope` (signed-in users are not)."""

    permission_classes = [AllowAny]
    throttle_classes = [AnonymousScopedRateThrottle]

    def initialize_request(self, request: HttpRequest, *args: Any, **kwargs: Any) -> JsonBodyRequest:
        """APIView.initialize_request with a JsonBodyRequest: a JSON body is read without DRF's negotiation."""
        return JsonBodyRequest(
            request,
            parsers=self.get_parsers(),
            authenticators=self.get_authenticators(),
            negotiator=self.get_content_negotiator(),
            parser_context=self.get_parser_context(request),
        )
