"""The TOTP implementation (accounts/totp.py) against the published test vectors."""

from __future__ import annotations

import pytest

from accounts import totp

# RFC 4226 Appendix D: HOTP values of the published test seed "12345678901234567890" (ASCII) for counters 0..9.
RFC4226_SEED = b"12345678901234567890"
RFC4226_HOTP = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]

# RFC 6238 Appendix B: 8-digit TOTP, T0 = 0, X = 30 s; the seeds are "1234567890" repeated to 20, 32 and 64 bytes.
RFC6238_SEEDS = {
    "sha1": b"12345678901234567890",
    "sha256": b"12345678901234567890123456789012",
    "sha512": b"1234567890123456789012345678901234567890123456789012345678901234",
}
RFC6238_VECTORS = [  # (time, SHA-1, SHA-256, SHA-512)
    (59, "94287082", "46119246", "90693936"),
    (1111111109, "07081804", "68084774", "25091201"),
    (1111111111, "14050471", "67062674", "99943326"),
    (1234567890, "89005924", "91819424", "93441116"),
    (2000000000, "69279037", "90698825", "38618901"),
    (20000000000, "65353130", "77737706", "47863826"),
]


@pytest.mark.parametrize(("counter", "expected"), list(enumerate(RFC4226_HOTP)))
def test_hotp_matches_rfc_4226(counter: int, expected: str) -> None:
    assert totp.hotp(RFC4226_SEED, counter) == expected


@pytest.mark.parametrize("row", RFC6238_VECTORS, ids=lambda row: str(row[0]))
@pytest.mark.parametrize("digest", ["sha1", "sha256", "sha512"])
def test_totp_matches_rfc_6238(row: tuple[int, str, str, str], digest: str) -> None:
    expected = row[1 + ["sha1", "sha256", "sha512"].index(digest)]
    assert totp.totp(RFC6238_SEEDS[digest], row[0], digits=8, digest=digest) == expected


def test_a_code_is_accepted_one_step_either_side_and_only_once() -> None:
    secret = totp.new_secret()
    key = totp.secret_bytes(secret)
    at = 1_800_000_000.0
    now = totp.time_step(at)
    assert totp.matching_step(secret, totp.hotp(key, now), at) == now
    assert totp.matching_step(secret, totp.hotp(key, now - 1), at) == now - 1
    assert totp.matching_step(secret, totp.hotp(key, now + 1), at) == now + 1
    assert totp.matching_step(secret, totp.hotp(key, now - 2), at) is None
    assert totp.matching_step(secret, totp.hotp(key, now), at, after_step=now) is None  # used already
    for bad in ("", "12345", "1234567", "abcdef", "١٢٣٤٥٦"):
        assert totp.matching_step(secret, bad, at) is None


def test_the_provisioning_uri_carries_the_secret_and_issuer() -> None:
    uri = totp.provisioning_uri("JBSWY3DPEHPK3PXP", account="root", issuer="GPU configurator")
    assert uri.startswith("otpauth://totp/GPU%20configurator%3Aroot?")
    assert "secret=JBSWY3DPEHPK3PXP" in uri and "period=30" in uri and "digits=6" in uri
