"""Production settings through the real middleware stack (HTTPS redirect, HSTS, nosniff, referrer policy,
frame denial, secure cookies), JSON-lines logs with request ids, and no secret in the repository.

`manage.py check --deploy` itself runs in tests/test_project.py; here the values of
config/settings/production.py are applied to a test request so the headers and cookies are seen on the
wire, not just in the settings.
"""

from __future__ import annotations

import collections
import json
import logging
import math
import os
import re
import runpy
import secrets
import subprocess
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings

from tests import factories

ROOT = Path(settings.BASE_DIR)
PRODUCTION_SETTINGS = ROOT / "config" / "settings" / "production.py"


@pytest.fixture(scope="module")
def production() -> dict[str, Any]:
    """The names config/settings/production.py defines, read with a throwaway SECRET_KEY."""
    saved = {name: os.environ.get(name) for name in ("SECRET_KEY", "ALLOWED_HOSTS")}
    os.environ["SECRET_KEY"] = secrets.token_urlsafe(50)
    os.environ["ALLOWED_HOSTS"] = "configurator.example.com"
    try:
        namespace = runpy.run_path(str(PRODUCTION_SETTINGS))
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return {name: value for name, value in namespace.items() if name.isupper()}


SECURITY_SETTINGS = (
    "DEBUG",
    "ALLOWED_HOSTS",
    "MIDDLEWARE",
    "SECURE_PROXY_SSL_HEADER",
    "SECURE_SSL_REDIRECT",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SESSION_COOKIE_HTTPONLY",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_CONTENT_TYPE_NOSNIFF",
    "SECURE_REFERRER_POLICY",
    "SECURE_CROSS_ORIGIN_OPENER_POLICY",
    "X_FRAME_OPTIONS",
    "SESSION_COOKIE_NAME",
    "CSRF_COOKIE_NAME",
    "SESSION_COOKIE_PATH",
    "CSRF_COOKIE_PATH",
    "SESSION_COOKIE_DOMAIN",
    "CSRF_COOKIE_DOMAIN",
)
HOST = "configurator.example.com"


@pytest.fixture
def production_stack(production: dict[str, Any]) -> Iterator[None]:
    values = {name: production[name] for name in SECURITY_SETTINGS if name in production}
    with override_settings(**values):
        yield


def test_production_values_are_the_hardened_ones(production: dict[str, Any]) -> None:
    assert production["DEBUG"] is False
    assert production["SECURE_SSL_REDIRECT"] is True
    assert production["SESSION_COOKIE_SECURE"] is True and production["CSRF_COOKIE_SECURE"] is True
    assert production["SECURE_HSTS_SECONDS"] >= 31_536_000
    assert production["SECURE_CONTENT_TYPE_NOSNIFF"] is True
    assert production["ALLOWED_HOSTS"] == [HOST]
    # logs: JSON lines with the request id on stdout
    console = production["LOGGING"]["handlers"]["console"]
    assert console["formatter"] == "json" and console["stream"] == "ext://sys.stdout"
    assert "request_id" in console["filters"]


@pytest.mark.usefixtures("production_stack")
def test_plain_http_is_redirected_to_https() -> None:
    response = Client().get("/api/v1/ping", HTTP_HOST=HOST)
    assert response.status_code == 301
    assert response["Location"] == f"https://{HOST}/api/v1/ping"


@pytest.mark.usefixtures("production_stack")
@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/v1/ping", "/admin/login/", "/api/v1/no-such-endpoint"])
def test_https_answers_carry_the_security_headers(url: str) -> None:
    # behind the proxy: it terminates TLS and says so in X-Forwarded-Proto (SECURE_PROXY_SSL_HEADER)
    response = Client().get(url, HTTP_HOST=HOST, HTTP_X_FORWARDED_PROTO="https")
    assert response.status_code in (200, 404)
    assert response["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert "camera=()" in response["Permissions-Policy"] and "geolocation=()" in response["Permissions-Policy"]
    assert re.fullmatch(r"[0-9a-f]{32}", response["X-Request-ID"])


@pytest.mark.usefixtures("production_stack")
@pytest.mark.django_db
def test_session_and_csrf_cookies_are_secure() -> None:
    user = factories.sales(username="cookie-check")
    client = Client(enforce_csrf_checks=True)
    https = {"Host": HOST, "X-Forwarded-Proto": "https"}
    login_page = client.get("/admin/login/", headers=https)
    # `__Host-` cookies: Secure, Path=/, no Domain (the browser refuses them otherwise)
    assert (settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME) == ("__Host-sessionid", "__Host-csrftoken")
    csrf = login_page.cookies["__Host-csrftoken"]
    assert csrf["secure"] is True and csrf["path"] == "/" and csrf["domain"] == ""
    logged_in = client.post(
        "/admin/login/",
        {"username": user.username, "password": "pass-12345", "csrfmiddlewaretoken": csrf.value, "next": "/admin/"},
        headers={**https, "Referer": f"https://{HOST}/admin/login/"},
    )
    assert logged_in.status_code == 302
    session = logged_in.cookies["__Host-sessionid"]
    assert session["secure"] is True and session["path"] == "/" and session["domain"] == ""
    assert session["httponly"] is True
    assert session["samesite"] == "Lax"


@pytest.mark.django_db
def test_request_log_lines_are_json_with_the_request_id(client: Client) -> None:
    from config.observability import JsonLinesFormatter, RequestIdFilter

    stream = StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonLinesFormatter())
    handler.addFilter(RequestIdFilter())
    logger = logging.getLogger("django.request")
    logger.addHandler(handler)
    try:
        response = client.get("/api/v1/no-such-endpoint", HTTP_X_REQUEST_ID="trace-0123456789")
    finally:
        logger.removeHandler(handler)
    assert response.status_code == 404
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert lines, "the 404 was not logged"
    assert {line["request_id"] for line in lines} == {"trace-0123456789"}
    assert lines[0]["level"] == "WARNING" and "/api/v1/no-such-endpoint" in lines[0]["message"]


# --------------------------------------------------------------------------- no secret in the repository

KNOWN_FORMATS = {
    "private key": re.compile(r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED )?PRIVATE KEY-----"),
    "AWS access key": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "GitHub token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    "Slack token": re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    "Stripe live key": re.compile(r"\b[sr]k_live_[A-Za-z0-9]{16,}"),
    "JSON web token": re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\."),
}
SECRET_KEY_VALUE = re.compile(r"""SECRET_KEY["']?\s*[:=]\s*[bf]?["']([^"'\s]*)["']""")
CREDENTIAL_VALUE = re.compile(
    r"""(?i)\b\w*(?:secret|token|passw(?:or)?d|api[_-]?key|access[_-]?key|auth)\w*["']?\s*[:=]\s*[bf]?["']"""
    r"""([^"'\s]{16,})["']"""
)
HEX_ONLY = re.compile(r"[0-9a-fA-F]+")
LONG_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32,}={0,2}(?![A-Za-z0-9+/_-])")
# Values that say they are not secrets: the development default and throwaway CI/test keys.
NOT_A_SECRET = re.compile(r"dev-only|insecure|not-a-real|change-me|example|test|\$\{|\$\(|\{[^{}]*\}|^$", re.IGNORECASE)
BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".ico", ".pdf", ".woff", ".woff2", ".ttf", ".mo", ".xlsx"}


def shannon_bits(text: str) -> float:
    counts = collections.Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def credential_entropy_floor(value: str) -> float:
    """Bits per character below which a credential-shaped value is a placeholder, not a secret.

    A hex token can carry at most 4 bits per character, and a random 40-character one measures
    3.0-3.9 (a 200,000-draw run gave a minimum of 2.98), so the 3.5 floor for general text missed
    about one hex token in twelve. Hex values get 2.5: still far above "0000…" or "abababab…".
    """
    return 2.5 if HEX_ONLY.fullmatch(value) else 3.5


def secrets_in(text: str) -> list[str]:
    """What in `text` looks like a committed secret (empty when nothing does)."""
    found = [name for name, pattern in KNOWN_FORMATS.items() if pattern.search(text)]
    found += [
        f"SECRET_KEY = {value[:12]}…" for value in SECRET_KEY_VALUE.findall(text) if not NOT_A_SECRET.search(value)
    ]
    found += [
        f"credential {value[:12]}…"
        for value in CREDENTIAL_VALUE.findall(text)
        if shannon_bits(value) >= credential_entropy_floor(value) and not NOT_A_SECRET.search(value)
    ]
    for token in LONG_TOKEN.findall(text):
        mixed = re.search(r"[a-z]", token) and re.search(r"[A-Z]", token) and re.search(r"[0-9]", token)
        if mixed and "/" not in token and shannon_bits(token) >= 4.5:
            found.append(f"high-entropy string {token[:12]}…")
    return found


def repository_files() -> list[Path]:
    """Files git tracks or would track (untracked but not ignored), else every file outside caches."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout.decode()
        names = [name for name in listed.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        skip = {".venv", ".git", "node_modules", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis"}
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.parts)]
    return [ROOT / name for name in names if (ROOT / name).is_file()]


def test_the_detector_finds_secrets_of_every_kind() -> None:
    """Made up at run time, so none of them sits in the repository."""
    key = secrets.token_urlsafe(40)
    while NOT_A_SECRET.search(key):  # about 1 in 10,000 draws spells "test" or "example" somewhere
        key = secrets.token_urlsafe(40)
    samples = {
        f'SECRET_KEY = "{key}"': "SECRET_KEY",
        f'"SECRET_KEY": "{key}"': "SECRET_KEY",
        f'API_TOKEN = "{secrets.token_hex(20)}"': "credential",
        # A real hex token that measured 3.42 bits per character and slipped past the old 3.5 floor.
        'API_TOKEN = "' + "3cbf5609f6298c30" + "6656efe792fc65fb8ecef8f2" + '"': "credential",
        f"password: '{key}'": "credential",
        f"blob = {key}Aa1": "high-entropy",
        "-----BEGIN " + "PRIVATE KEY-----": "private key",
        "AKIA" + "".join(secrets.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(16)): "AWS",
    }
    for text, kind in samples.items():
        assert any(kind in hit for hit in secrets_in(text)), text
    for harmless in (
        'SECRET_KEY = env_str("SECRET_KEY", "dev-only-insecure-key-change-me")',
        'SECRET_KEY="ci-$(date +%s)-not-a-real-secret"',
        '"SECRET_KEY": "test-" + "x" * 60',
        "sha256 = 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        'PASSWORD = "pass-12345"',
        'API_TOKEN = "0000000000000000aaaa"',
    ):
        assert secrets_in(harmless) == [], harmless


def test_no_secret_is_committed() -> None:
    files = repository_files()
    assert len(files) > 50
    names = {path.relative_to(ROOT).as_posix() for path in files}
    assert ".env" not in names, ".env holds local secrets and must stay untracked (.gitignore)"
    findings = {}
    for path in files:
        if path.suffix.lower() in BINARY_SUFFIXES:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        hits = secrets_in(text)
        if hits:
            findings[path.relative_to(ROOT).as_posix()] = hits
    assert findings == {}


# --------------------------------------------------------------------------- gunicorn's logs


def test_gunicorn_access_and_error_logs_are_json_lines_with_the_request_id(capsys: pytest.CaptureFixture[str]) -> None:
    from datetime import timedelta
    from types import SimpleNamespace

    from gunicorn.config import Config

    from config.gunicorn import JsonLinesLogger

    config = Config()
    config.set("accesslog", "-")
    config.set("errorlog", "-")
    logger = JsonLinesLogger(config)
    response = SimpleNamespace(status="404 Not Found", headers=[("X-Request-ID", "trace-0123456789")], sent=112)
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": "/api/v1/nope?x=1",
        "PATH_INFO": "/api/v1/nope",
        "QUERY_STRING": "x=1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_USER_AGENT": 'curl "quoted"',
    }
    try:
        logger.access(response, SimpleNamespace(headers=[]), environ, timedelta(milliseconds=12.5))
        logger.info("Booting worker with pid: %s", 42)
    finally:
        for log in (logger.error_log, logger.access_log):  # process-wide loggers: leave them as they were
            for handler in list(log.handlers):
                log.removeHandler(handler)
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    access, error = lines
    assert access["logger"] == "gunicorn.access" and access["request_id"] == "trace-0123456789"
    assert (access["method"], access["path"], access["status"], access["bytes"]) == ("GET", "/api/v1/nope", 404, 112)
    assert access["duration_ms"] == 12.5 and access["user_agent"] == 'curl "quoted"'
    assert error["logger"] == "gunicorn.error" and error["message"] == "Booting worker with pid: 42"


def test_compose_runs_gunicorn_with_the_json_logging_config() -> None:
    import yaml

    command = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["web"]["command"]
    assert command[:3] == ["gunicorn", "-c", "config/gunicorn.py"]
    assert (ROOT / "config" / "gunicorn.py").is_file()
