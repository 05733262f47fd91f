"""Developer laptop: DEBUG on, SQLite and in-process tasks unless DATABASE_URL / CELERY_BROKER_URL are set."""

from config.env import env_bool, env_str
from config.settings.base import *  # noqa: F403

DEBUG = env_bool("DEBUG", True)
# the sample seller on quote PDFs unless SELLER_NAME is set (README, "Seller details")
SELLER = SELLER if SELLER["name"] else SAMPLE_SELLER  # noqa: F405
# readable log lines on a laptop unless LOG_FORMAT asks for JSON
LOGGING["handlers"]["console"]["formatter"] = "json" if env_str("LOG_FORMAT", "plain") == "json" else "plain"  # noqa: F405
