"""Developer laptop: DEBUG on, SQLite and in-process tasks unless DATABASE_URL / CELERY_BROKER_URL are set."""

from config.env import env_bool
from config.settings.base import *  # noqa: F403

DEBUG = env_bool("DEBUG", True)
