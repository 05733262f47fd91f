"""Password guessing on both login forms (/accounts/login/ and /admin/login/): 20 wrong passwords lock the
username out — the right password too — until the window ends; 50 failures lock the address out; the
message is the same whether the user exists or not. Sign-up does not tell whether an address has an account."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import SESSION_KEY
from django.core import mail
from django.test import Client
from django.utils import timezone

from accounts.models import User
from tests import factories

pytestmark = pytest.mark.django_db

PASSWORD = "right-pass-2026"
LOCKED_RU = "Слишком много неудачных попыток входа. Попробуйте снова через 15 мин."
FORMS = {"site": "/accounts/login/", "admin": "/admin/login/"}
WRONG = {  # Django's own refusal of a wrong password, per form
    "site": "Пожалуйста, введите правильные имя пользователя и пароль.",
    "admin": "Пожалуйста, введите корректные имя пользователя и пароль учётной записи.",
}
WRONG_RU = WRONG["site"]


@pytest.fixture
def staff_user(db: None) -> User:
    user = User.objects.create_superuser("root", "root@example.com", PASSWORD)
    return user


def _attempt(client: Client, form: str, username: str, password: str, **extra: str) -> str:
    response = client.post(FORMS[form], {"username": username, "password": password}, **extra)  # type: ignore[arg-type]
    if response.status_code == 302:
        return "logged in"
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("form", list(FORMS))
def test_20_wrong_passwords_lock_the_username_out_until_the_window_ends(staff_user: User, form: str) -> None:
    client = Client()
    with time_machine.travel(timezone.now(), tick=False) as clock:
        for attempt in range(20):
            page = _attempt(client, form, "root", f"guess-{attempt}")
            assert WRONG[form] in page and LOCKED_RU not in page, attempt
        refused = _attempt(client, form, "root", PASSWORD)  # the right password, after 20 failures
        assert LOCKED_RU in refused and WRONG[form] not in refused
        assert SESSION_KEY not in client.session

        clock.shift(timedelta(minutes=14, seconds=50))
        assert LOCKED_RU in _attempt(client, form, "root", PASSWORD)  # still inside the window
        assert SESSION_KEY not in client.session

        clock.shift(timedelta(seconds=20))  # the window (15 min from the first failure) has ended
        assert _attempt(client, form, "root", PASSWORD) == "logged in"
        assert client.session[SESSION_KEY] == str(staff_user.pk)


@pytest.mark.parametrize("form", list(FORMS))
def test_the_lockout_reads_the_same_for_a_user_who_does_not_exist(staff_user: User, form: str) -> None:
    pages = {}
    for username in ("root", "nobody-here"):
        client = Client()
        for attempt in range(20):
            _attempt(client, form, username, f"guess-{attempt}")
        pages[username] = _attempt(client, form, username, PASSWORD)
    for page in pages.values():
        assert page.count(LOCKED_RU) == 1 and WRONG[form] not in page


def test_another_address_is_locked_out_of_the_username_too(staff_user: User) -> None:
    """The username's count is shared by every address (a botnet guessing one account)."""
    for attempt in range(20):
        _attempt(Client(), "site", "root", f"guess-{attempt}", REMOTE_ADDR=f"10.0.0.{attempt}")
    page = _attempt(Client(), "site", "root", PASSWORD, REMOTE_ADDR="10.0.1.1")
    assert LOCKED_RU in page


def test_50_failures_from_one_address_lock_it_out_for_every_username() -> None:
    factories.customer(username="alice", password=PASSWORD)
    client = Client(REMOTE_ADDR="192.0.2.7")
    for attempt in range(50):
        _attempt(client, "site", f"user{attempt}", "guess")
    assert LOCKED_RU in _attempt(client, "site", "alice", PASSWORD)
    assert _attempt(Client(REMOTE_ADDR="192.0.2.8"), "site", "alice", PASSWORD) == "logged in"


def test_a_successful_login_before_the_lockout_clears_the_username_count() -> None:
    factories.customer(username="alice", password=PASSWORD)
    for attempt in range(19):
        _attempt(Client(REMOTE_ADDR=f"10.1.0.{attempt}"), "site", "alice", "typo")
    assert _attempt(Client(), "site", "alice", PASSWORD) == "logged in"
    for attempt in range(19):
        assert LOCKED_RU not in _attempt(Client(REMOTE_ADDR=f"10.2.0.{attempt}"), "site", "alice", "typo")
    assert _attempt(Client(), "site", "alice", PASSWORD) == "logged in"


def test_the_forms_are_not_limited_when_the_cache_is_down(staff_user: User, monkeypatch: pytest.MonkeyPatch) -> None:
    from accounts import throttle

    class Broken:
        def __getattr__(self, name: str) -> object:
            raise ConnectionError("cache down")

    monkeypatch.setattr(throttle, "cache", Broken())
    client = Client()
    for attempt in range(25):
        assert WRONG_RU in _attempt(client, "site", "root", f"guess-{attempt}")
    assert _attempt(client, "site", "root", PASSWORD) == "logged in"


# --------------------------------------------------------------------------- sign-up


SIGNUP = {
    "username": "newco",
    "email": "Buyer@NewCo.example",
    "company": "",
    "password1": "a-long-pass-2026!",
    "password2": "a-long-pass-2026!",
}


def test_sign_up_with_a_taken_address_mails_the_owner_and_says_nothing_of_the_account() -> None:
    owner = factories.customer(username="alice", email="buyer@newco.example")
    client = Client()
    response = client.post("/accounts/signup/", SIGNUP, follow=True)
    page = response.content.decode()
    assert response.redirect_chain == [("/accounts/login/", 302)]
    assert "Мы отправили письмо на адрес Buyer@NewCo.example; проверьте почту." in page
    assert "уже есть" not in page and "already" not in page
    assert not User.objects.filter(username="newco").exists()
    assert SESSION_KEY not in client.session
    assert len(mail.outbox) == 1
    sent = mail.outbox[0]
    assert (sent.to, sent.subject) == (["Buyer@NewCo.example"], "Регистрация с вашим адресом эл. почты")
    assert "http://testserver/accounts/login/" in sent.body and "учётная запись с ним уже есть" in sent.body
    assert User.objects.get(pk=owner.pk).email == "buyer@newco.example"
