"""Settings shared by every run mode. Values that differ per machine come from config.env."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import dj_database_url

from config.env import BASE_DIR, env_bool, env_choice, env_int, env_list, env_str
from finance.schedule import CELERY_BEAT_SCHEDULE as FINANCE_BEAT_SCHEDULE
from orders.schedule import ORDERS_BEAT_SCHEDULE
from procurement.schedule import procurement_beat_schedule
from quotes.schedule import CELERY_BEAT_SCHEDULE as QUOTE_BEAT_SCHEDULE

SECRET_KEY = env_str("SECRET_KEY", "dev-only-insecure-key-change-me")  # overridden in production
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, pinned, from /static/ (no CDN)
    "import_export",
    "simple_history",
    "django_htmx",
    "accounts",
    "catalog",
    "configurator",
    "quotes",
    "finance",
    "procurement",
    "orders",
    "servicelines",
    "filestore",
    "billing",
]

SESSION_ENGINE = "config.sessions"  # database sessions that refuse forged keys before any query
# Signed-in sessions end after this long without a request (config.middleware.SessionIdleTimeoutMiddleware):
# employees (staff, sales, catalog) sooner than customers.
SESSION_IDLE_TIMEOUT_STAFF_S = env_int("SESSION_IDLE_TIMEOUT_STAFF_S", 1800)
SESSION_IDLE_TIMEOUT_S = env_int("SESSION_IDLE_TIMEOUT_S", 8 * 3600)
SESSION_COOKIE_AGE = SESSION_IDLE_TIMEOUT_S
# Staff give a TOTP code (an authenticator app) once per session before any /admin/ page (accounts/mfa.py).
ADMIN_MFA_REQUIRED = env_bool("ADMIN_MFA_REQUIRED", True)  # a session nobody signed in to ends no later

MIDDLEWARE = [
    "config.observability.RequestIdMiddleware",
    "config.security.SecurityHeadersMiddleware",  # Content-Security-Policy; no caching of signed-in API answers
    "config.api.ApiRequestLimitsMiddleware",  # 413 envelope for /api/ bodies over DATA_UPLOAD_MAX_MEMORY_SIZE
    "config.body_limits.RequestBodyLimitMiddleware",  # every route: 413 before reading, before CSRF reads POST
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.ApiAwareSessionMiddleware",  # the /api/ path: only with the session cookie
    "config.locale.DefaultLanguageMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "config.locale.ApiLanguageMiddleware",  # the API: English unless Accept-Language asks otherwise
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",  # kept whole: check --deploy looks for it by name
    "config.middleware.ApiAwareAuthenticationMiddleware",
    "config.middleware.PagesMessageMiddleware",  # pages only (config/middleware.py)
    "config.middleware.SessionIdleTimeoutMiddleware",  # signed-in sessions end after SESSION_IDLE_TIMEOUT_*_S idle
    "accounts.mfa.AdminMfaMiddleware",  # /admin/ needs a TOTP code once per session (ADMIN_MFA_REQUIRED)
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    "config.observability.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Embedded default: a SQLite file next to manage.py; DATABASE_URL switches to PostgreSQL.
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "ru"
LANGUAGES = [("ru", "Русский"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
QUOTE_LANGUAGE = "ru"  # the language of a quote's documents: terms, PDF, e-mail to the customer
# The folder of DejaVuSans.ttf and DejaVuSans-Bold.ttf for quote PDFs; empty = the usual font folders and
# fontconfig (quotes/pdf_layout.py).
QUOTE_PDF_FONT_DIR = env_str("QUOTE_PDF_FONT_DIR", "")
TIME_ZONE = "Europe/Moscow"  # the seller's time zone: quote validity ends at midnight here
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "/media/"
MEDIA_ROOT = env_str("MEDIA_ROOT", str(BASE_DIR / "media"))
# Where quote PDFs are kept (the `default` storage): `local` files under MEDIA_ROOT serve one machine only;
# with several web or worker hosts, `database` keeps them in the database they all share (filestore/).
FILE_STORES = {
    "local": "django.core.files.storage.FileSystemStorage",
    "database": "filestore.storage.DatabaseStorage",
}
FILE_STORE = env_choice("FILE_STORE", tuple(FILE_STORES), "local")
STORAGES = {
    "default": {"BACKEND": FILE_STORES[FILE_STORE]},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Password guessing on /accounts/login/, /admin/login/ and HTTP Basic on the API (accounts/throttle.py): after
# this many failures in the window, per (account, client address) or per client address, attempts from that
# address are refused until the window ends; the account still opens from other addresses.
LOGIN_FAILURES_PER_USERNAME = env_int("LOGIN_FAILURES_PER_USERNAME", 20)
LOGIN_FAILURES_PER_ADDRESS = env_int("LOGIN_FAILURES_PER_ADDRESS", 50)
LOGIN_LOCKOUT_WINDOW_S = env_int("LOGIN_LOCKOUT_WINDOW_S", 900)

# Every page and answer (config/security.py): scripts and styles from this origin only, nothing inline.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"
)

# API tokens (accounts/tokens.py): stored as sha256(key), shown once, valid this many days from their creation.
API_TOKEN_TTL_DAYS = env_int("API_TOKEN_TTL_DAYS", 90)

# Sign-up mails (the confirmation link, or "someone used your address"): at most one per address per interval.
SIGNUP_MAIL_INTERVAL_S = 900

LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

API_THROTTLE_RATES: dict[str, str] = {
    "anon_estimate": env_str("THROTTLE_ANON_ESTIMATE", "60/min"),
    "anon_validate": env_str("THROTTLE_ANON_VALIDATE", "60/min"),
    "anon_recommend": env_str("THROTTLE_ANON_RECOMMEND", "20/min"),
    "quote_create": env_str("THROTTLE_QUOTE_CREATE", "30/min"),
    "auth_token": env_str("THROTTLE_AUTH_TOKEN", "10/min"),
}
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "config.api.EnvelopeAutoSchema",
    # Token first: an anonymous API call gets 401 with `WWW-Authenticate: Token`; the session (with DRF's
    # CSRF check on unsafe methods) serves the site's own pages.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.HashedTokenAuthentication",  # only sha256(key) stored, expiring
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Per-scope limits (views set `throttle_scope`); counters live in the default cache.
    "DEFAULT_THROTTLE_RATES": API_THROTTLE_RATES,
    # Proxies in front of the app whose X-Forwarded-For is trusted for the client address of anonymous
    # throttles; 0 = the socket's address (a client cannot dodge its limit with a forged header).
    "NUM_PROXIES": env_int("API_NUM_PROXIES", 0),
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "config.api.StandardPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["config.renderers.FastJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.parsers.LimitedJSONParser"],
}

SPECTACULAR_SETTINGS = {
    "TITLE": "GPU workstation and server configurator API",
    "DESCRIPTION": (
        "Estimate what an LLM workload needs, validate GPU builds against integrator rules, "
        "get the cheapest valid builds and turn them into quotes. Memory in GiB (2^30 bytes), "
        "bandwidth in GB/s, power in W, money as decimal strings."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # /api/v1/docs/ takes Swagger UI from drf-spectacular-sidecar's static files, not from jsDelivr: the page
    # works offline and under a policy of 'self' only
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "GpuFormFactorEnum": "catalog.models.GpuFormFactor",
        "GpuSocketEnum": "catalog.models.GpuSocket",
        "PsuFormFactorEnum": "catalog.models.PsuFormFactor",
        "MemoryKindEnum": "catalog.models.MemoryKind",
        "ChassisKindEnum": "catalog.models.ChassisKind",
        "StorageInterfaceEnum": "catalog.models.StorageInterface",
        "OrderStatusEnum": "orders.models.OrderStatus",
        "BuildStepKindEnum": "orders.models.BuildStepKind",
        "PurchaseOrderStatusEnum": "orders.models.PurchaseOrderStatus",
        "StatusEnum": "quotes.models.QuoteStatus",  # the name it had before orders came
    },
}

# Celery: with no broker configured tasks run in the calling process (embedded default).
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = CELERY_BROKER_URL == ""
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 120
CELERY_TASK_SOFT_TIME_LIMIT = 90
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = TIME_ZONE
# Supplier price lists dropped into <PRICE_LIST_DROP_DIR>/<supplier slug>/ are imported every
# PRICE_LIST_SCAN_SECONDS by the beat job procurement.scan_price_lists (procurement/dropbox.py).
PROCUREMENT_PRICE_LIST_DROP_DIR = env_str("PRICE_LIST_DROP_DIR", str(BASE_DIR / "price-lists"))
PRICE_LIST_SCAN_SECONDS = env_int("PRICE_LIST_SCAN_SECONDS", 300)
# The queue tasks are sent to (one per deployment, or per test run when several share one Redis)
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "celery")
CELERY_BEAT_SCHEDULE = {
    **QUOTE_BEAT_SCHEDULE,
    **ORDERS_BEAT_SCHEDULE,
    **procurement_beat_schedule(PRICE_LIST_SCAN_SECONDS),
    **FINANCE_BEAT_SCHEDULE,
}
# The CBR's daily rates (finance/cbr.py, beat job finance.fetch_cbr_rates); a mirror or a file:// sample may
# stand in for it where the CBR cannot be reached
CBR_DAILY_URL = env_str("CBR_DAILY_URL", "https://www.cbr.ru/scripts/XML_daily.asp")

EMAIL_BACKEND = env_str("EMAIL_URL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "quotes@configurator.local")

# Throttle counters live in the default cache: per process by default, shared through Redis when
# CACHE_URL is set (the full stack), so N gunicorn workers enforce one limit between them.
CACHE_URL = env_str("CACHE_URL", "")
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL, "TIMEOUT": 300}
        if CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}
# Seconds a process trusts its catalog snapshot before asking the database for the version stamp
# again (catalog/specs.py): one query per second instead of one per request; an edit shows after ≤ 1 s.
CATALOG_SNAPSHOT_TTL_S = float(env_str("CATALOG_SNAPSHOT_TTL_S", "1.0"))

# Business settings (quotes)
QUOTE_VAT_PERCENT = Decimal(env_str("QUOTE_VAT_PERCENT", "22"))
QUOTE_VALIDITY_DAYS = env_int("QUOTE_VALIDITY_DAYS", 14)
SALES_DISCOUNT_LIMIT_PERCENT = Decimal(env_str("SALES_DISCOUNT_LIMIT_PERCENT", "10"))
# The seller on every quote PDF (name, address, tax numbers, bank details, who signs). Empty values are left off
# the document; production sets them from the environment, local and test runs use SAMPLE_SELLER (README).
SELLER: dict[str, str] = {
    "name": env_str("SELLER_NAME", ""),
    "address": env_str("SELLER_ADDRESS", ""),
    "inn": env_str("SELLER_INN", ""),
    "kpp": env_str("SELLER_KPP", ""),
    "bank": env_str("SELLER_BANK", ""),
    "bik": env_str("SELLER_BIK", ""),
    "account": env_str("SELLER_ACCOUNT", ""),
    "correspondent_account": env_str("SELLER_CORRESPONDENT_ACCOUNT", ""),
    "signatory": env_str("SELLER_SIGNATORY", ""),
    "signatory_title": env_str("SELLER_SIGNATORY_TITLE", ""),
}
#: Made-up details of the right shape for demos and tests (not a real company).
SAMPLE_SELLER: dict[str, str] = {
    "name": "ООО «Вычислительные системы» (образец)",
    "address": "123456, г. Москва, ул. Примерная, д. 1, офис 101",
    "inn": "7700000000",
    "kpp": "770001001",
    "bank": "АО «Банк-образец», г. Москва",
    "bik": "044500000",
    "account": "40702810000000000001",
    "correspondent_account": "30101810000000000000",
    "signatory": "И. И. Иванов",
    "signatory_title": "Генеральный директор",
}
MONEY_MAX_DIGITS = 14
MONEY_DECIMAL_PLACES = 2
DEFAULT_CURRENCY = "RUB"

DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024  # request bodies over 2 MiB are refused
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000  # form fields per request (Django's default, stated): more is a 400
DATA_UPLOAD_MAX_NUMBER_FILES = 10  # no form of the site takes files
# JSON bodies (the API) and JSON in form fields (the pages) nested deeper than this are refused as invalid
# input before parsing (config/parsers.py); Python's json recursion would otherwise fail at ~950 levels.
JSON_MAX_DEPTH = env_int("JSON_MAX_DEPTH", 32)

LOG_FORMAT = env_str("LOG_FORMAT", "json")  # json lines (default) or plain
LOGGING: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "config.observability.RequestIdFilter"}},
    "formatters": {
        "json": {"()": "config.observability.JsonLinesFormatter"},
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "formatter": LOG_FORMAT if LOG_FORMAT in ("json", "plain") else "json",
            "filters": ["request_id"],
        }
    },
    "root": {"handlers": ["console"], "level": "INFO"},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# Catalog import/export (django-import-export): importing needs "change", exporting "view".
IMPORT_EXPORT_IMPORT_PERMISSION_CODE = "change"
IMPORT_EXPORT_EXPORT_PERMISSION_CODE = "view"
IMPORT_EXPORT_USE_TRANSACTIONS = True
IMPORT_EXPORT_SKIP_ADMIN_LOG = False
