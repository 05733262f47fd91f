"""What the estimate tests share: POST /api/v1/estimate and its answer, which must be a 200."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

URL = "/api/v1/estimate"


def estimated(client: APIClient, body: dict[str, Any]) -> dict[str, Any]:
    """The body of POST /api/v1/estimate for `body`, asserting it answered 200 (the error shown when not)."""
    response = client.post(URL, body, format="json")
    assert response.status_code == 200, response.content[:600]
    return response.json()
