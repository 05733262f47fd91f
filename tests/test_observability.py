"""Request ids in headers and logs; JSON log lines; a database outage answers JSON 503."""

from __future__ import annotations

import json
import logging

import pytest
from django.db import OperationalError
from django.test import Client

from config.observability import JsonLinesFormatter, RequestIdFilter, request_id_var


@pytest.mark.django_db
def test_every_response_carries_a_request_id_and_keeps_a_sane_incoming_one(client: Client) -> None:
    fresh = client.get("/healthz")
    assert len(fresh["X-Request-ID"]) == 32
    kept = client.get("/healthz", HTTP_X_REQUEST_ID="abc-123-def-456")
    assert kept["X-Request-ID"] == "abc-123-def-456"
    replaced = client.get("/healthz", HTTP_X_REQUEST_ID="bad id with spaces\n")
    assert replaced["X-Request-ID"] != "bad id with spaces\n"
    assert len(replaced["X-Request-ID"]) == 32


def test_log_lines_are_json_with_the_request_id() -> None:
    record = logging.LogRecord("quotes", logging.INFO, __file__, 1, "quote %s ready", ("Q-2026-000001",), None)
    token = request_id_var.set("req-12345678")
    try:
        RequestIdFilter().filter(record)
    finally:
        request_id_var.reset(token)
    line = JsonLinesFormatter().format(record)
    payload = json.loads(line)
    assert payload["message"] == "quote Q-2026-000001 ready"
    assert payload["request_id"] == "req-12345678"
    assert payload["level"] == "INFO"
    assert payload["logger"] == "quotes"
    assert "\n" not in line


@pytest.mark.django_db
def test_database_outage_is_a_json_503_not_an_html_500(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise OperationalError("connection refused")

    monkeypatch.setattr("configurator.web.views.render", broken)
    response = client.get("/")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json()["error"]["code"] == "service_unavailable"
