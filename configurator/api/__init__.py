"""The configurator's API: one APIView per operation (estimate, builds, recommendations)."""

from __future__ import annotations

from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from config.api import AnonymousScopedRateThrottle


class PublicApi(APIView):
    """An operation anyone may call; anonymous callers are throttled per client address at the rate of the
    view's `throttle_scope` (signed-in users are not)."""

    permission_classes = [AllowAny]
    throttle_classes = [AnonymousScopedRateThrottle]
