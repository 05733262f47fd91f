"""The one place that reads the process environment.

Every setting that may differ between a laptop, CI and production is read here, so that
`.env.example`, the README table and docker-compose.yml can be checked against one list.
"""

from __future__ import annotations

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent

_MISSING = object()


class ImproperlyConfiguredEnv(RuntimeError):
    """A required environment variable is absent or malformed."""


def _load_dotenv(path: Path) -> None:
    """Fill os.environ from a `.env` file if one exists; the real environment wins."""
    if not path.is_file():
        return
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        os.environ.setdefault(key.strip(), value.strip().strip("'\""))


_load_dotenv(BASE_DIR / ".env")


def env_str(name: str, default: object = _MISSING) -> str:
    value = os.environ.get(name)
    if value is None or value == "":
        if default is _MISSING:
            raise ImproperlyConfiguredEnv(f"Set the {name} environment variable.")
        return str(default)
    return value


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfiguredEnv(f"{name}={value!r} is not a boolean (use true/false).")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise ImproperlyConfiguredEnv(f"{name}={value!r} is not an integer.") from exc


def env_choice(name: str, choices: tuple[str, ...], default: str) -> str:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.strip().lower() not in choices:
        raise ImproperlyConfiguredEnv(f"{name}={value!r} is not one of {', '.join(choices)}.")
    return value.strip().lower()


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    value = os.environ.get(name)
    if value is None or value == "":
        return list(default or [])
    return [item.strip() for item in value.split(",") if item.strip()]


# The variables this project reads, with their meaning; the README table and a test use this.
KNOWN_VARIABLES: dict[str, str] = {
    "DJANGO_SETTINGS_MODULE": "config.settings.local (default), config.settings.production, config.settings.test",
    "SECRET_KEY": "Django secret key; required in production, a fixed dev key otherwise",
    "DEBUG": "true/false; local default true, production always false",
    "ALLOWED_HOSTS": "comma-separated host names (production)",
    "CSRF_TRUSTED_ORIGINS": "comma-separated origins such as https://configurator.example.com",
    "DATABASE_URL": "postgres://user:pass@host:5432/db; empty = SQLite file db.sqlite3",
    "CELERY_BROKER_URL": "redis://host:6379/0; empty = tasks run in-process (eager)",
    "FILE_STORE": (
        "where quote PDFs are stored: local (files under MEDIA_ROOT, one machine only, default) or database "
        "(rows of the database every web and worker host shares)"
    ),
    "MEDIA_ROOT": "the folder of quote PDFs with FILE_STORE=local (default ./media)",
    "QUOTE_PDF_FONT_DIR": "folder of DejaVuSans.ttf and DejaVuSans-Bold.ttf (default: the usual font folders)",
    "EMAIL_URL_BACKEND": "Django email backend path (console in development)",
    "DEFAULT_FROM_EMAIL": "sender address of quote e-mails",
    "SECURE_SSL_REDIRECT": (
        "true/false; production default true (false behind a TLS-terminating proxy that redirects itself)"
    ),
    "LOG_FORMAT": "json (JSON lines with request ids, default) or plain",
    "DB_CONN_MAX_AGE": "seconds a database connection is reused (default 60)",
    "WEB_CONCURRENCY": "gunicorn sync workers when --workers is not given (default: one per CPU the process may use)",
    "QUOTE_RENDER_TEST_DELAY_S": (
        "tests only: seconds the quote render sleeps (honoured only with config.settings.test)"
    ),
    "QUOTE_WORKER_SWEEP_S": (
        "seconds between a Celery worker's own sweeps for lost renders (default 15; 0 = only at its start)"
    ),
    "CELERY_TASK_DEFAULT_QUEUE": "the queue tasks are sent to and workers read by default (default celery)",
    "CACHE_URL": "redis://host:6379/1 for throttle counters shared by all workers; empty = per-process memory",
    "CATALOG_SNAPSHOT_TTL_S": (
        "seconds a process reuses its catalog snapshot before re-checking the version (default 1)"
    ),
    "QUOTE_VAT_PERCENT": "VAT rate when the dated VAT table (finance.VatRate) has no row for the day (default 22)",
    "CBR_DAILY_URL": "where the daily exchange rates are fetched from (default the Central Bank of Russia's XML_daily)",
    "QUOTE_VALIDITY_DAYS": "days a sent quote stays valid (default 14)",
    "SALES_DISCOUNT_LIMIT_PERCENT": "largest discount a sales engineer may give without approval (default 10)",
    "THROTTLE_ANON_ESTIMATE": "rate of POST /api/v1/estimate per anonymous client address (default 60/min)",
    "THROTTLE_ANON_VALIDATE": "rate of POST /api/v1/builds/validate per anonymous client address (default 60/min)",
    "THROTTLE_ANON_RECOMMEND": "rate of POST /api/v1/recommendations per anonymous client address (default 20/min)",
    "THROTTLE_QUOTE_CREATE": "rate of POST /api/v1/quotes/ per user (default 30/min)",
    "THROTTLE_AUTH_TOKEN": "rate of /api/v1/auth/token calls per client address, before credentials (default 10/min)",
    "PRICE_LIST_DROP_DIR": "price lists dropped in <dir>/<supplier slug>/ are imported (default ./price-lists)",
    "PRICE_LIST_SCAN_SECONDS": "how often the beat job looks for dropped price lists (default 300)",
    "API_NUM_PROXIES": (
        "reverse proxies in front of the app whose X-Forwarded-For is trusted for throttling (default 0)"
    ),
    "API_TOKEN_TTL_DAYS": "days an API token stays valid from its creation (default 90)",
    "SESSION_IDLE_TIMEOUT_STAFF_S": (
        "seconds without a request after which a staff/sales/catalog session ends (default 1800)"
    ),
    "SESSION_IDLE_TIMEOUT_S": "seconds without a request after which a customer's session ends (default 28800)",
    "ADMIN_MFA_REQUIRED": "true/false: staff give a TOTP code once per session before /admin/ (default true)",
    "SELLER_NAME": "the seller on quotes, invoices and УПД (empty: local and test runs use SAMPLE_SELLER, made up)",
    "SELLER_ADDRESS": "the seller's legal address on quotes, invoices and УПД",
    "SELLER_INN": "the seller's ИНН (taxpayer number, 10 digits for a company)",
    "SELLER_KPP": "the seller's КПП (tax registration reason code, 9 digits)",
    "SELLER_BANK": "the seller's bank, as the invoice's payee block names it",
    "SELLER_BIK": "the seller's bank's БИК (9 digits)",
    "SELLER_ACCOUNT": "the seller's settlement account, р/с (20 digits)",
    "SELLER_CORRESPONDENT_ACCOUNT": "the bank's correspondent account, к/с (20 digits)",
    "SELLER_SIGNATORY": "who signs the seller's documents (initials and surname)",
    "SELLER_SIGNATORY_TITLE": "the signatory's position",
}
