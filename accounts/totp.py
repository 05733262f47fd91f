"""Time-based one-time passwords (TOTP, RFC 6238) over HOTP (RFC 4226), for the staff's second factor.

A code is HOTP(secret, T) with T = floor((now - T0) / step): HMAC of the 8-byte big-endian counter, dynamic
truncation (RFC 4226 §5.3) to 31 bits, the last `digits` decimal digits. Authenticator apps use SHA-1, 30-second
steps and 6 digits (the defaults here). Checked against the test vectors of RFC 6238 Appendix B and
RFC 4226 Appendix D (tests/security/test_totp.py).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import struct
from urllib.parse import quote, urlencode

STEP_S = 30
DIGITS = 6


def hotp(key: bytes, counter: int, *, digits: int = DIGITS, digest: str = "sha1") -> str:
    mac = hmac.new(key, struct.pack(">Q", counter), getattr(hashlib, digest)).digest()
    offset = mac[-1] & 0x0F
    value = struct.unpack(">I", mac[offset : offset + 4])[0] & 0x7FFFFFFF
    return str(value % 10**digits).zfill(digits)


def time_step(at: float, *, step_s: int = STEP_S, t0: int = 0) -> int:
    return int((at - t0) // step_s)


def totp(key: bytes, at: float, *, step_s: int = STEP_S, digits: int = DIGITS, digest: str = "sha1") -> str:
    return hotp(key, time_step(at, step_s=step_s), digits=digits, digest=digest)


def new_secret() -> str:
    """20 random bytes (160 bits, RFC 4226's recommended length) in base32, as authenticator apps take them."""
    return base64.b32encode(secrets.token_bytes(20)).decode().rstrip("=")


def secret_bytes(secret_b32: str) -> bytes:
    cleaned = secret_b32.replace(" ", "").upper()
    return base64.b32decode(cleaned + "=" * (-len(cleaned) % 8))


def matching_step(secret_b32: str, code: str, at: float, *, after_step: int = -1, window: int = 1) -> int | None:
    """The time step whose code is `code` among now ± `window` steps (clock drift), only steps later than
    `after_step` (a code is used once); None when none matches."""
    code = code.strip().replace(" ", "")
    if not (code.isascii() and code.isdigit() and len(code) == DIGITS):
        return None
    key, now = secret_bytes(secret_b32), time_step(at)
    for step in range(now - window, now + window + 1):
        if step > after_step and hmac.compare_digest(hotp(key, step), code):
            return step
    return None


def provisioning_uri(secret_b32: str, *, account: str, issuer: str) -> str:
    """The otpauth:// URI an authenticator app reads (Key Uri Format)."""
    label = quote(f"{issuer}:{account}")
    query = urlencode({"secret": secret_b32, "issuer": issuer, "algorithm": "SHA1", "digits": DIGITS, "period": STEP_S})
    return f"otpauth://totp/{label}?{query}"
