"""Password guessing, counted per normalised account at every door: the site's /accounts/login/, the admin's
/admin/login/ and HTTP Basic auth on the API (/api/v1/auth/token), through `accounts.authentication`.

An account's name is normalised as Django stores usernames (NFKC) and then case-folded (and NFKC again), so
"Root", "ＲＯＯＴ" and "root" share one counter. Two counters, each a fixed window that starts with its first
failure, live in the default cache (Redis through CACHE_URL in production, so every gunicorn worker sees one
count):

* per (account, client address): LOGIN_FAILURES_PER_USERNAME wrong passwords lock that account *from that
  address* until the window ends — the right password from there too — while the real user, elsewhere,
  still logs in (a guesser cannot lock a user out of their own account);
* per client address: LOGIN_FAILURES_PER_ADDRESS failures (any names) lock that address only.

A successful login clears the (account, address) count. The refusal reads the same for any username, right
password or not. When the cache cannot be reached, the counts fall back to this process's memory (`_Local`):
guessing is still limited (per process), never unlimited — the limiter fails closed, not open.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
import unicodedata
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

logger = logging.getLogger("accounts.throttle")
audit = logging.getLogger("accounts.audit")

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


def normalise_account(name: str) -> str:
    """One spelling per account: NFKC (as Django normalises usernames), case-folded, NFKC again, trimmed."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold()).strip()


def account_id(name: str) -> str:
    """A fixed-length, non-reversible name for the account in keys and logs (no raw input stored)."""
    return hashlib.sha256(normalise_account(name).encode()).hexdigest()[:32]


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
    address_part = hashlib.sha256(address.encode()).hexdigest()[:32]
    return f"{KEY_PREFIX}:user:{account_id(username)}:{address_part}", f"{KEY_PREFIX}:addr:{address_part}"


class _Local:
    """This process's fallback counters while the cache is down: the same fixed windows, in memory."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, tuple[int, float]] = {}

    def get(self, key: str) -> int:
        with self._lock:
            count, ends = self._counts.get(key, (0, 0.0))
            return count if ends > time.time() else 0

    def incr(self, key: str, window_s: int) -> int:
        now = time.time()
        with self._lock:
            if len(self._counts) > 100_000:  # bounded: drop the windows that have ended
                self._counts = {k: v for k, v in self._counts.items() if v[1] > now}
            count, ends = self._counts.get(key, (0, 0.0))
            if ends <= now:
                count, ends = 0, now + window_s
            self._counts[key] = (count + 1, ends)
            return count + 1

    def get_any(self) -> int:
        """How many windows are open (what the fallback holds now)."""
        now = time.time()
        with self._lock:
            return sum(1 for _count, ends in self._counts.values() if ends > now)

    def delete(self, key: str) -> None:
        with self._lock:
            self._counts.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._counts.clear()


local_counts = _Local()


def login_locked(*, username: str, address: str) -> bool:
    """Whether attempts on `username` from `address`, or any attempt from `address`, are refused now."""
    limits = login_limits()
    user_key, address_key = _keys(username, address)
    try:
        counts = cache.get_many([user_key, address_key])
    except Exception as exc:
        logger.warning("login throttle cache unavailable, counting in this process: %r", exc)
        counts = {user_key: local_counts.get(user_key), address_key: local_counts.get(address_key)}
    locked = counts.get(user_key, 0) >= limits.per_username or counts.get(address_key, 0) >= limits.per_address
    if locked:
        audit.warning(
            "login locked out",
            extra={"audit": {"event": "login_locked", "account": account_id(username), "address": address}},
        )
    return locked


def login_failed(*, username: str, address: str, door: str) -> None:
    """Count a failed attempt against the (account, address) and the address."""
    window = login_limits().window_s
    audit.warning(
        "login failed",
        extra={"audit": {"event": "login_failed", "account": account_id(username), "address": address, "door": door}},
    )
    try:
        for key in _keys(username, address):
            cache.add(key, 0, timeout=window)  # the window starts with the first failure
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.set(key, 1, timeout=window)
    except Exception as exc:
        logger.warning("login throttle cache unavailable, counting in this process: %r", exc)
        for key in _keys(username, address):
            local_counts.incr(key, window)


def login_succeeded(*, username: str, address: str, door: str) -> None:
    """A successful login clears the account's failures from this address, not the address's own count."""
    audit.info(
        "login succeeded",
        extra={
            "audit": {"event": "login_succeeded", "account": account_id(username), "address": address, "door": door}
        },
    )
    key = _keys(username, address)[0]
    local_counts.delete(key)
    try:
        cache.delete(key)
    except Exception as exc:
        logger.warning("login throttle cache unavailable: %r", exc)


def mail_allowed(email: str) -> bool:
    """At most one account mail (sign-up, password reset) per address per SIGNUP_MAIL_INTERVAL_S (this
    process's memory while the cache is down: still limited)."""
    interval = int(settings.SIGNUP_MAIL_INTERVAL_S)
    key = f"account-mail:{account_id(email)}"
    try:
        return bool(cache.add(key, 1, timeout=interval))
    except Exception as exc:
        logger.warning("account mail limit cache unavailable, limiting in this process: %r", exc)
        return local_counts.incr(key, interval) == 1
