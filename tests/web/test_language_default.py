"""Russian is the default whatever the browser says; the language switch (cookie) wins."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client


@pytest.mark.django_db
def test_english_browser_still_gets_russian_until_it_switches(client: Client) -> None:
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    assert page.status_code == 200
    assert '<html lang="ru"' in page.content.decode()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    english = client.get("/", HTTP_ACCEPT_LANGUAGE="ru")
    assert '<html lang="en"' in english.content.decode()
