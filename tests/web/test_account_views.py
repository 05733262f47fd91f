"""Log in, log out, customer sign-up and the account page with the API token."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

import pytest
from django.contrib.auth import SESSION_KEY
from django.core import mail
from django.test import Client

from accounts.models import ApiToken, User
from tests import factories

pytestmark = pytest.mark.django_db

ClientFor = Callable[[User | None], Client]

SIGNUP = {
    "username": "newco",
    "email": "buyer@newco.example",
    "company": "ООО «Новая»",
    "password1": "a-long-pass-2026!",
    "password2": "a-long-pass-2026!",
}


def test_log_in_and_come_back_where_you_were() -> None:
    factories.customer(username="alice", password="pass-12345-long")
    client = Client()
    page = client.get("/accounts/login/?next=/builds/new").content.decode()
    assert 'for="id_username"' in page and 'for="id_password"' in page
    response = client.post(
        "/accounts/login/", {"username": "alice", "password": "pass-12345-long", "next": "/builds/new"}
    )
    assert response.status_code == 302 and response["Location"] == "/builds/new"
    assert SESSION_KEY in client.session


def test_a_wrong_password_is_refused() -> None:
    factories.customer(username="alice", password="pass-12345-long")
    client = Client()
    response = client.post("/accounts/login/", {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert "Пожалуйста, введите правильные имя пользователя и пароль." in response.content.decode()
    assert SESSION_KEY not in client.session


def test_log_out_is_a_post() -> None:
    client = Client()
    client.force_login(factories.customer(username="alice"))
    assert client.get("/accounts/logout/").status_code == 405
    assert SESSION_KEY in client.session
    response = client.post("/accounts/logout/")
    assert response.status_code == 302 and response["Location"] == "/"
    assert SESSION_KEY not in client.session


def test_sign_up_makes_an_inactive_customer_that_the_mailed_link_activates() -> None:
    client = Client()
    response = client.post("/accounts/signup/", SIGNUP)
    assert response.status_code == 302 and response["Location"] == "/accounts/login/"
    user = User.objects.get(username="newco")
    assert (user.email, user.company) == ("buyer@newco.example", "ООО «Новая»")
    assert list(user.groups.values_list("name", flat=True)) == ["customers"]
    assert not user.is_sales and not user.is_staff and not user.is_active
    assert SESSION_KEY not in client.session
    # not active yet: the password is refused like a wrong one
    refused = client.post("/accounts/login/", {"username": "newco", "password": SIGNUP["password1"]})
    assert refused.status_code == 200 and SESSION_KEY not in client.session
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["buyer@newco.example"]
    link = re.search(r"http://testserver(/accounts/activate/\S+/)", str(mail.outbox[0].body))
    assert link is not None
    assert client.get(link.group(1)).status_code == 302
    user.refresh_from_db()
    assert user.is_active
    assert client.post("/accounts/login/", {"username": "newco", "password": SIGNUP["password1"]}).status_code == 302
    assert client.session[SESSION_KEY] == str(user.pk)


def test_a_forged_activation_link_activates_nothing() -> None:
    Client().post("/accounts/signup/", SIGNUP)
    user = User.objects.get(username="newco")
    for path in (f"/accounts/activate/{user.pk}/wrong-token/", "/accounts/activate/%ZZ/x/", "/accounts/activate/MQ/x/"):
        assert Client().get(path).status_code == 302
    user.refresh_from_db()
    assert not user.is_active


def test_sign_up_refuses_weak_passwords() -> None:
    """A taken address: tests/web/test_login_throttle.py (the owner is mailed, the page says nothing)."""
    weak = Client().post(
        "/accounts/signup/", {**SIGNUP, "email": "x@y.example", "password1": "123", "password2": "123"}
    )
    assert "Введённый пароль слишком короткий" in weak.content.decode()
    assert not User.objects.filter(username="newco").exists()


def test_the_account_page_needs_a_login() -> None:
    response = Client().get("/accounts/")
    assert response.status_code == 302 and response["Location"] == "/accounts/login/?next=/accounts/"
    assert Client().post("/accounts/").status_code == 302
    assert ApiToken.objects.count() == 0


def test_the_api_token_is_shown_once_stored_hashed_rotated_and_revoked(client_for: ClientFor) -> None:
    user = factories.customer(username="alice")
    client = client_for(user)
    page = client.get("/accounts/").content.decode()
    assert "Токена API у вас пока нет." in page
    assert "Заказчик" in page
    created = client.post("/accounts/", {"action": "issue"})
    first = re.search(r'id="api-token"[^>]*value="([^"]+)"', created.content.decode())
    assert created.status_code == 200 and first is not None and "Токен API создан." in created.content.decode()
    first_key = first.group(1)
    stored = ApiToken.objects.get(user=user)
    assert stored.key_hash == hashlib.sha256(first_key.encode()).hexdigest() and stored.prefix == first_key[:8]
    assert created["Cache-Control"] == "private, no-store"
    again = client.get("/accounts/").content.decode()  # never shown again: only the key's start
    assert first_key not in again and f"{first_key[:8]}…" in again
    assert Client(HTTP_AUTHORIZATION=f"Token {first_key}").get("/api/v1/builds/").status_code == 200

    rotated = client.post("/accounts/", {"action": "issue"}).content.decode()
    second = re.search(r'id="api-token"[^>]*value="([^"]+)"', rotated)
    assert second is not None and second.group(1) != first_key
    assert Client(HTTP_AUTHORIZATION=f"Token {first_key}").get("/api/v1/builds/").status_code == 401
    assert Client(HTTP_AUTHORIZATION=f"Token {second.group(1)}").get("/api/v1/builds/").status_code == 200

    assert client.post("/accounts/", {"action": "revoke"}).status_code == 302
    assert not ApiToken.objects.filter(user=user).exists()
    assert Client(HTTP_AUTHORIZATION=f"Token {second.group(1)}").get("/api/v1/builds/").status_code == 401


def test_sales_see_their_role(client_for: ClientFor) -> None:
    page = client_for(factories.sales(username="sam")).get("/accounts/").content.decode()
    assert "Инженер по продажам" in page


def test_a_password_reset_link_lets_a_locked_out_user_back_in_and_is_mailed_once_per_15_minutes() -> None:
    user = factories.customer(username="alice", email="alice@example.com")
    for attempt in range(20):  # locked out from this address
        Client(REMOTE_ADDR="192.0.2.50").post("/accounts/login/", {"username": "alice", "password": f"g{attempt}"})
    login_page = Client().get("/accounts/login/").content.decode()
    assert 'href="/accounts/password-reset/"' in login_page and "Забыли пароль?" in login_page
    for email in ("alice@example.com", "alice@example.com", "nobody@example.com"):
        sent = Client().post("/accounts/password-reset/", {"email": email})
        assert sent.status_code == 302 and sent["Location"] == "/accounts/password-reset/sent/"  # the same either way
    assert [m.to for m in mail.outbox] == [["alice@example.com"]]  # the repeat within 15 minutes is not mailed
    link = re.search(r"http://testserver(/accounts/password-reset/\S+/)", str(mail.outbox[0].body))
    assert link is not None and "alice" in str(mail.outbox[0].body)
    client = Client(REMOTE_ADDR="192.0.2.50")
    form = client.get(link.group(1), follow=True)
    assert form.status_code == 200 and "new_password1" in form.content.decode()
    done = client.post(
        form.redirect_chain[-1][0], {"new_password1": "a-new-pass-2026!", "new_password2": "a-new-pass-2026!"}
    )
    assert done.status_code == 302 and done["Location"] == "/accounts/password-reset/done/"
    user.refresh_from_db()
    assert user.check_password("a-new-pass-2026!")
    elsewhere = Client(REMOTE_ADDR="192.0.2.51")
    assert elsewhere.post("/accounts/login/", {"username": "alice", "password": "a-new-pass-2026!"}).status_code == 302
