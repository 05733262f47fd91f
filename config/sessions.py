"""The session store: Django's database sessions, refusing keys that Django could never have issued.

Django's keys are 32 characters of [a-z0-9] (`get_random_string(32, VALID_KEY_CHARS)`), but it only checks
a cookie's key for length ≥ 8 before looking it up. Cookie values are unquoted (`"\\000"` becomes a NUL
byte), and PostgreSQL refuses NUL in text, so a forged cookie reached the database as a DataError. A key
outside Django's alphabet is now no session at all, before any query.
"""

from __future__ import annotations

from django.contrib.sessions.backends.base import VALID_KEY_CHARS
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore

_ALPHABET = frozenset(VALID_KEY_CHARS)
_MAX_KEY_LENGTH = 40  # the django_session.session_key column


class SessionStore(DatabaseSessionStore):
    def _validate_session_key(self, key: str | None) -> bool:
        """Django's own rule (at least 8 characters), plus its alphabet and the column's length."""
        return bool(key) and 8 <= len(key or "") <= _MAX_KEY_LENGTH and set(key or "") <= _ALPHABET
