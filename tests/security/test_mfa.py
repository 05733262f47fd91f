"""Staff give a TOTP code before /admin/ (accounts/mfa.py): enrolment, a code per session, codes used once,
wrong codes counted by the login throttle; customers and the site's pages are not asked."""

from __future__ import annotations

import re
import time

import pytest
from django.test import Client, override_settings

from accounts import totp
from accounts.models import StaffTotp, User
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mfa_on")]


@pytest.fixture
def mfa_on() -> object:
    with override_settings(ADMIN_MFA_REQUIRED=True):
        yield


def _code(secret: str, steps_ago: int = 0) -> str:
    return totp.hotp(totp.secret_bytes(secret), totp.time_step(time.time()) - steps_ago)


def _signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_staff_enrol_an_authenticator_then_reach_the_admin() -> None:
    root = User.objects.create_superuser("root", "root@example.com", "pass-12345")
    client = _signed_in(root)
    sent = client.get("/admin/quotes/quote/")
    assert sent.status_code == 302 and sent["Location"] == "/accounts/mfa/?next=/admin/quotes/quote/"
    page = client.get(sent["Location"]).content.decode()
    secret_match = re.search(r'id="mfa-secret"[^>]*value="([A-Z2-7]+)"', page)
    assert secret_match is not None and "otpauth://totp/" in page
    secret = secret_match.group(1)
    assert not StaffTotp.objects.filter(user=root).exists()  # nothing kept before a code from it is accepted

    wrong = client.post("/accounts/mfa/", {"code": "000000" if _code(secret) != "000000" else "111111"})
    assert wrong.status_code == 400 and client.get("/admin/").status_code == 302
    done = client.post("/accounts/mfa/", {"code": _code(secret), "next": "/admin/quotes/quote/"})
    assert done.status_code == 302 and done["Location"] == "/admin/quotes/quote/"
    assert StaffTotp.objects.get(user=root).secret == secret
    assert client.get("/admin/quotes/quote/").status_code == 200

    # a new session asks again, for a code now (no new key shown), and the code just used is refused
    again = _signed_in(root)
    assert again.get("/admin/").status_code == 302
    asked = again.get("/accounts/mfa/").content.decode()
    assert "mfa-secret" not in asked and secret not in asked
    assert again.post("/accounts/mfa/", {"code": _code(secret)}).status_code == 400  # used once already
    device = StaffTotp.objects.get(user=root)
    device.last_step -= 2  # as if the last code was a minute ago
    device.save()
    assert again.post("/accounts/mfa/", {"code": _code(secret)}).status_code == 302
    assert again.get("/admin/").status_code == 200


def test_wrong_codes_are_counted_like_wrong_passwords() -> None:
    sales = factories.sales(username="sam")
    secret = totp.new_secret()
    StaffTotp.objects.create(user=sales, secret=secret, confirmed_at="2026-12-01T00:00:00Z")
    client = _signed_in(sales)
    wrong = "000000" if _code(secret) != "000000" else "111111"
    for _attempt in range(20):
        assert client.post("/accounts/mfa/", {"code": wrong}).status_code == 400
    refused = client.post("/accounts/mfa/", {"code": _code(secret)})
    assert refused.status_code == 400 and "Слишком много" in refused.content.decode()
    assert client.get("/admin/").status_code == 302


def test_customers_and_the_site_are_not_asked() -> None:
    customer = _signed_in(factories.customer())
    assert customer.get("/accounts/").status_code == 200
    assert customer.get("/admin/").status_code == 302  # not staff: the admin's own login page
    assert customer.get("/admin/")["Location"].startswith("/admin/login/")
    staff = _signed_in(factories.sales())
    assert staff.get("/quotes/").status_code == 200  # the site's pages need no code
    assert staff.get("/admin/login/").status_code in (200, 302)
    assert not staff.get("/admin/login/").get("Location", "").startswith("/accounts/mfa/")
