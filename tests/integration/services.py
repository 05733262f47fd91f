"""What the integration tests need before anything of the project is imported: a real PostgreSQL and Redis
(DATABASE_URL / CELERY_BROKER_URL, as .ci/run sets them), or the module is reported as skipped with the reason
(.ci/run fails on any skip, so CI never passes without them)."""

from __future__ import annotations

import os

import pytest

DATABASE_URL = os.environ.get("DATABASE_URL", "")
BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")


def require_real_services() -> None:
    """Skip the calling test module unless PostgreSQL and Redis are configured."""
    if not (DATABASE_URL.startswith(("postgres://", "postgresql://")) and BROKER_URL.startswith("redis://")):
        pytest.skip(
            "needs DATABASE_URL=postgres://… and CELERY_BROKER_URL=redis://… (a real PostgreSQL, Redis and worker)",
            allow_module_level=True,
        )
