"""Password guessing on the login forms (the site's /accounts/login/ and the admin's /admin/login/).

Failed attempts are counted in the default cache (Redis through CACHE_URL in production, so every
gunicorn worker sees one count) per username and per client address, each in a fixed window that starts
with the first failure. Once a count reaches its limit, every attempt on that username or from that
address is refused — the right password too — until the window ends, with one message that does not say
whether the user exists or whether the password was right. A successful login before the lockout clears
the username's count. When the cache cannot be reached the forms are not limited (logged), as for the
API's throttles.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

logger = logging.getLogger("accounts.throttle")

KEY_PREFIX = "login-failures"


@dataclass(frozen=True, slots=True)
class LoginLimits:
    per_username: int
    per_address: int
    window_s: int


def login_limits() -> LoginLimits:
    return LoginLimits(
        per_username=int(getattr(settings, "LOGIN_FAILURES_PER_USERNAME", 20)),
        per_address=int(getattr(settings, "LOGIN_FAILURES_PER_ADDRESS", 50)),
        window_s=int(getattr(settings, "LOGIN_LOCKOUT_WINDOW_S", 900)),
    )


def client_address(request: HttpRequest | None) -> str:
    """The client's address: REMOTE_ADDR, or the address the trusted proxies (API_NUM_PROXIES, the same
    setting as the API's throttles) saw in X-Forwarded-For."""
    if request is None:
        return ""
    remote = str(request.META.get("REMOTE_ADDR") or "")
    proxies = int(str(settings.REST_FRAMEWORK.get("NUM_PROXIES") or 0))
    forwarded = str(request.META.get("HTTP_X_FORWARDED_FOR") or "")
    if proxies and forwarded:
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            return hops[-min(proxies, len(hops))]
    return remote


def _keys(username: str, address: str) -> tuple[str, str]:
    name = hashlib.sha256(username.strip().casefold().encode()).hexdigest()[:32]  # any length, no raw input
    return f"{KEY_PREFIX}:user:{name}", f"{KEY_PREFIX}:addr:{address}"


def login_locked(*, username: str, address: str) -> bool:
    """Whether attempts on `username` or from `address` are refused now."""
    limits = login_limits()
    user_key, address_key = _keys(username, address)
    try:
        counts = cache.get_many([user_key, address_key])
    except Exception as exc:  # a cache outage must not lock everyone out
        logger.warning("login throttle cache unavailable, not limiting: %r", exc)
        return False
    return counts.get(user_key, 0) >= limits.per_username or counts.get(address_key, 0) >= limits.per_address


def login_failed(*, username: str, address: str) -> None:
    """Count a failed attempt against the username and the address."""
    window = login_limits().window_s
    try:
        for key in _keys(username, address):
            cache.add(key, 0, timeout=window)  # the window starts with the first failure
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.set(key, 1, timeout=window)
    except Exception as exc:
        logger.warning("login throttle cache unavailable, not counting: %r", exc)


def login_succeeded(*, username: str) -> None:
    """A successful login (before any lockout) clears the username's failures, not the address's."""
    try:
        cache.delete(_keys(username, "")[0])
    except Exception as exc:
        logger.warning("login throttle cache unavailable: %r", exc)
