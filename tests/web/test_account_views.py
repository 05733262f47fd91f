"""Log in, log out, customer sign-up and the account page with the API token."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth import SESSION_KEY
from django.test import Client
from rest_framework.authtoken.models import Token

from accounts.models import User
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


def test_sign_up_makes_a_customer_and_logs_them_in() -> None:
    client = Client()
    response = client.post("/accounts/signup/", SIGNUP)
    assert response.status_code == 302 and response["Location"] == "/"
    user = User.objects.get(username="newco")
    assert (user.email, user.company) == ("buyer@newco.example", "ООО «Новая»")
    assert list(user.groups.values_list("name", flat=True)) == ["customers"]
    assert not user.is_sales and not user.is_staff
    assert client.session[SESSION_KEY] == str(user.pk)


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
    assert Token.objects.count() == 0


def test_the_api_token_is_created_then_rotated(client_for: ClientFor) -> None:
    user = factories.customer(username="alice")
    client = client_for(user)
    page = client.get("/accounts/").content.decode()
    assert "Токена API у вас пока нет." in page
    assert "Заказчик" in page
    client.post("/accounts/")
    first = Token.objects.get(user=user).key
    page = client.get("/accounts/").content.decode()
    assert first in page and "Токен API создан." in page
    client.post("/accounts/")
    second = Token.objects.get(user=user).key
    assert second != first
    assert not Token.objects.filter(key=first).exists()
    api = Client(HTTP_AUTHORIZATION=f"Token {second}")
    assert api.get("/api/v1/builds/").status_code == 200


def test_sales_see_their_role(client_for: ClientFor) -> None:
    page = client_for(factories.sales(username="sam")).get("/accounts/").content.decode()
    assert "Инженер по продажам" in page
