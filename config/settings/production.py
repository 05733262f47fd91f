"""Production: every secret from the environment, no defaults; HTTPS everywhere."""

from config.env import env_bool, env_int, env_list, env_str
from config.settings.base import *  # noqa: F403

SECRET_KEY = env_str("SECRET_KEY")  # no default: refuses to start without it
DEBUG = False
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost"])

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
# `__Host-` cookies: the browser takes them only with Secure, Path=/ and no Domain, so neither a subdomain nor
# plain HTTP can set or overwrite them (SESSION_COOKIE_PATH / CSRF_COOKIE_PATH "/" and *_DOMAIN None: defaults).
SESSION_COOKIE_NAME = "__Host-sessionid"
CSRF_COOKIE_NAME = "__Host-csrftoken"
SESSION_COOKIE_PATH = "/"
CSRF_COOKIE_PATH = "/"
SESSION_COOKIE_DOMAIN = None
CSRF_COOKIE_DOMAIN = None
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

STORAGES = {
    **STORAGES,  # noqa: F405  (FILE_STORE chooses the default storage)
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
