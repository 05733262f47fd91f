"""A second factor for staff: /admin/ asks for a TOTP code (accounts/totp.py) once per session.

`AdminMfaMiddleware` sends a signed-in staff member who has not given a code in this session from any /admin/
page (bar logout) to /accounts/mfa/: the first time to enrol an authenticator app (the secret is shown as text
and as an otpauth:// URI, and is kept once a code from it is accepted), then to enter a code. A code is valid
one 30-second step either side of now and only once; wrong codes count in the login throttle as failures of
that account from that address (accounts/throttle.py), so guessing is limited like passwords.
ADMIN_MFA_REQUIRED turns it off (the test settings do, except in the tests of this).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts import totp
from accounts.models import StaffTotp
from accounts.throttle import audit, client_address, login_failed, login_locked, login_succeeded

VERIFIED = "_mfa_verified_for"  # the session's key: the pk of the user who gave a code in this session
PENDING = "_mfa_pending_secret"  # a secret being enrolled, until a code from it is accepted
ISSUER = "GPU configurator"


def mfa_verified(request: HttpRequest) -> bool:
    session = getattr(request, "session", None)
    return session is not None and session.get(VERIFIED) == request.user.pk


class AdminMfaMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if settings.ADMIN_MFA_REQUIRED and request.path.startswith("/admin/"):
            user = getattr(request, "user", None)
            exempt = request.path in (reverse("admin:login"), reverse("admin:logout"))
            if (
                user is not None
                and user.is_authenticated
                and user.is_staff
                and not exempt
                and not mfa_verified(request)
            ):
                return redirect(f"{reverse('accounts:mfa')}?next={request.get_full_path()}")
        return self.get_response(request)


@login_required
@require_http_methods(["GET", "POST"])
def mfa(request: HttpRequest) -> HttpResponse:
    """Enrol an authenticator (first time) or enter its code; then on to `next` (the admin by default)."""
    user: Any = request.user
    target = request.POST.get("next") or request.GET.get("next") or reverse("admin:index")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=False):
        target = reverse("admin:index")
    device = StaffTotp.objects.filter(user=user, confirmed_at__isnull=False).first()
    secret = device.secret if device else request.session.setdefault(PENDING, totp.new_secret())
    error = ""
    if request.method == "POST":
        address = client_address(request)
        if login_locked(username=user.get_username(), address=address):
            error = _("Too many failed attempts. Try again later.")
        else:
            step = totp.matching_step(
                secret, str(request.POST.get("code") or ""), time.time(), after_step=device.last_step if device else -1
            )
            if step is None:
                login_failed(username=user.get_username(), address=address, door="mfa")
                error = _("That code is not right. Enter the current code from your authenticator app.")
            else:
                if device is None:
                    device, _created = StaffTotp.objects.update_or_create(
                        user=user, defaults={"secret": secret, "confirmed_at": timezone.now(), "last_step": step}
                    )
                    request.session.pop(PENDING, None)
                    audit.info("mfa enrolled", extra={"audit": {"event": "mfa_enrolled", "user_id": user.pk}})
                else:
                    StaffTotp.objects.filter(pk=device.pk).update(last_step=step)
                login_succeeded(username=user.get_username(), address=address, door="mfa")
                request.session[VERIFIED] = user.pk
                return redirect(target)
    context = {
        "enrol": device is None,
        "secret": secret if device is None else "",
        "uri": totp.provisioning_uri(secret, account=user.get_username(), issuer=ISSUER) if device is None else "",
        "error": error,
        "next": target,
    }
    return render(request, "accounts/mfa.html", context, status=400 if error else 200)
