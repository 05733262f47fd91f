"""Test run: fast hasher, locmem cache and e-mail; integration tests read DATABASE_URL / CELERY_BROKER_URL."""

from config.env import env_str
from config.settings.base import *  # noqa: F403

DEBUG = False
SELLER = SAMPLE_SELLER  # noqa: F405  (the quote PDF tests look for the seller's name)
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
CATALOG_SNAPSHOT_TTL_S = 0.0  # tests edit the catalog and expect the next request to see it
MEDIA_ROOT = env_str("MEDIA_ROOT", str(BASE_DIR / ".test-media"))  # noqa: F405  (a host of its own: tests/integration)
STORAGES = {  # no manifest needed when DEBUG is off in tests
    **STORAGES,  # noqa: F405  (FILE_STORE chooses the default storage)
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"null": {"class": "logging.NullHandler"}},
    "root": {"handlers": ["null"], "level": "WARNING"},
}
WHITENOISE_AUTOREFRESH = True  # serve from the finders; tests never run collectstatic
# Tests are never throttled by accident: every scope gets a rate no test reaches. The throttle tests
# lower the rate of the scope they check.
REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": dict.fromkeys(API_THROTTLE_RATES, "100000/min"),  # noqa: F405
}
# The admin's second factor is tested in tests/security/test_mfa.py; elsewhere staff reach the admin directly.
ADMIN_MFA_REQUIRED = False
