"""Password guessing at every door (/accounts/login/, /admin/login/, HTTP Basic on /api/v1/auth/token), counted
per normalised account: 20 wrong passwords from one address lock the account out *from that address* — the
right password too — until the window ends, while the real user elsewhere still logs in; 50 failures lock
that address out for every account; the message is the same whether the user exists or not; a cache
outage falls back to this process's counters (still limited). Sign-up answers the same whether an address
has an account, and mails an address at most once per 15 minutes."""

from __future__ import annotations

import base64
import re
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth import SESSION_KEY
from django.core import mail
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

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


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


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
def test_the_real_user_still_logs_in_from_another_address(staff_user: User, form: str) -> None:
    """20 guesses from address A do not lock the account's owner out from address B."""
    guesser = Client(REMOTE_ADDR="198.51.100.1")
    for attempt in range(20):
        _attempt(guesser, form, "root", f"guess-{attempt}")
    assert LOCKED_RU in _attempt(guesser, form, "root", PASSWORD)
    owner = Client(REMOTE_ADDR="198.51.100.2")
    assert _attempt(owner, form, "root", PASSWORD) == "logged in"
    assert owner.session[SESSION_KEY] == str(staff_user.pk)


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


def test_nfkc_and_case_variants_of_a_username_share_one_counter(staff_user: User) -> None:
    """ "ＲＯＯＴ" (full-width) and "Root" are "root" once normalised: their guesses count on root's counter."""
    client = Client(REMOTE_ADDR="198.51.100.3")
    for attempt in range(10):
        _attempt(client, "site", "ＲＯＯＴ", f"guess-{attempt}")
        _attempt(client, "admin", "Root", f"guess-{attempt}")
    assert LOCKED_RU in _attempt(client, "site", "root", PASSWORD)
    assert SESSION_KEY not in client.session


def test_basic_auth_guesses_on_the_api_are_counted_with_the_forms(staff_user: User) -> None:
    """HTTP Basic on /api/v1/auth/token goes through the same counter: guesses there lock the login page
    for that account from that address, and the API refuses the right password from there with 429."""
    api = APIClient(REMOTE_ADDR="198.51.100.4")
    for attempt in range(20):
        assert (
            api.post("/api/v1/auth/token", HTTP_AUTHORIZATION=basic("ｒｏｏｔ", f"guess-{attempt}")).status_code == 401
        )
    locked = api.post("/api/v1/auth/token", HTTP_AUTHORIZATION=basic("root", PASSWORD))
    assert locked.status_code == 429 and locked.json()["error"]["code"] == "throttled"
    assert LOCKED_RU in _attempt(Client(REMOTE_ADDR="198.51.100.4"), "site", "root", PASSWORD)
    elsewhere = APIClient(REMOTE_ADDR="198.51.100.5")
    assert elsewhere.post("/api/v1/auth/token", HTTP_AUTHORIZATION=basic("root", PASSWORD)).status_code == 201


def test_form_guesses_lock_basic_auth_from_that_address(staff_user: User) -> None:
    client = Client(REMOTE_ADDR="198.51.100.6")
    for attempt in range(20):
        _attempt(client, "site", "root", f"guess-{attempt}")
    api = APIClient(REMOTE_ADDR="198.51.100.6")
    assert api.post("/api/v1/auth/token", HTTP_AUTHORIZATION=basic("root", PASSWORD)).status_code == 429


def test_50_failures_from_one_address_lock_it_out_for_every_username() -> None:
    factories.customer(username="alice", password=PASSWORD)
    client = Client(REMOTE_ADDR="192.0.2.7")
    for attempt in range(50):
        _attempt(client, "site", f"user{attempt}", "guess")
    assert LOCKED_RU in _attempt(client, "site", "alice", PASSWORD)
    assert _attempt(Client(REMOTE_ADDR="192.0.2.8"), "site", "alice", PASSWORD) == "logged in"


def test_a_successful_login_before_the_lockout_clears_the_username_count() -> None:
    factories.customer(username="alice", password=PASSWORD)
    for _attempt_no in range(19):
        _attempt(Client(REMOTE_ADDR="10.1.0.1"), "site", "alice", "typo")
    assert _attempt(Client(REMOTE_ADDR="10.1.0.1"), "site", "alice", PASSWORD) == "logged in"
    for _attempt_no in range(19):
        assert LOCKED_RU not in _attempt(Client(REMOTE_ADDR="10.1.0.1"), "site", "alice", "typo")
    assert _attempt(Client(REMOTE_ADDR="10.1.0.1"), "site", "alice", PASSWORD) == "logged in"


def test_the_limits_hold_in_this_process_when_the_cache_is_down(
    staff_user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Redis outage does not open the door: the counts move to this process's memory (fail closed)."""
    from accounts import throttle

    class Broken:
        def __getattr__(self, name: str) -> object:
            def down(*args: object, **kwargs: object) -> object:
                raise ConnectionError("cache down")

            return down

    monkeypatch.setattr(throttle, "cache", Broken())
    client = Client(REMOTE_ADDR="198.51.100.7")
    for attempt in range(20):
        assert WRONG_RU in _attempt(client, "site", "root", f"guess-{attempt}")
    assert LOCKED_RU in _attempt(client, "site", "root", PASSWORD)
    api = APIClient(REMOTE_ADDR="198.51.100.7")
    assert api.post("/api/v1/auth/token", HTTP_AUTHORIZATION=basic("root", PASSWORD)).status_code == 429
    assert _attempt(Client(REMOTE_ADDR="198.51.100.8"), "site", "root", PASSWORD) == "logged in"
    # the address limit too
    crowd = Client(REMOTE_ADDR="198.51.100.9")
    for attempt in range(50):
        _attempt(crowd, "site", f"user{attempt}", "guess")
    assert LOCKED_RU in _attempt(crowd, "site", "root", PASSWORD)


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


def _answer(response: Any) -> tuple[Any, ...]:
    """What a visitor sees of a sign-up: status, where it sends them, the page it leads to (minus the token)."""
    follow = re.sub(r"[A-Za-z0-9]{64}", "", response.content.decode())  # CSRF tokens differ per visitor
    return response.redirect_chain, response.status_code, follow


def test_sign_up_answers_the_same_whether_the_address_is_taken_or_not() -> None:
    factories.customer(username="alice", email="taken@newco.example")
    taken = Client().post("/accounts/signup/", {**SIGNUP, "email": "taken@newco.example"}, follow=True)
    fresh = Client().post("/accounts/signup/", {**SIGNUP, "email": "fresh@newco.example"}, follow=True)
    assert _answer(taken)[:2] == _answer(fresh)[:2] == ([("/accounts/login/", 302)], 200)
    assert _answer(taken)[2].replace("taken@", "fresh@") == _answer(fresh)[2]
    assert "newco" not in {user.username for user in User.objects.filter(is_active=True)}
    assert sorted(m.to[0] for m in mail.outbox) == ["fresh@newco.example", "taken@newco.example"]


def test_sign_up_mails_an_address_at_most_once_per_15_minutes() -> None:
    factories.customer(username="alice", email="buyer@newco.example")
    with time_machine.travel(timezone.now(), tick=False) as clock:
        for attempt in range(30):
            response = Client().post("/accounts/signup/", {**SIGNUP, "username": f"newco{attempt}"})
            assert response.status_code == 302 and response["Location"] == "/accounts/login/"
        assert len(mail.outbox) == 1
        Client().post("/accounts/signup/", {**SIGNUP, "email": "other@newco.example"})  # another address: mailed
        assert len(mail.outbox) == 2
        clock.shift(timedelta(minutes=15, seconds=1))
        Client().post("/accounts/signup/", {**SIGNUP, "username": "newco-later"})
        assert len(mail.outbox) == 3 and mail.outbox[-1].to == ["Buyer@NewCo.example"]
