"""Services of accounts: customer sign-up; the API token read (rotation: `accounts.apis.token_rotate`)."""

from __future__ import annotations

from django.contrib.auth.models import Group
from django.db import transaction
from rest_framework.authtoken.models import Token

from accounts.models import CUSTOMERS, User


@transaction.atomic
def customer_signup(*, username: str, email: str, password: str, company: str = "") -> User:
    """A new active user in the `customers` group (own builds and quotes only)."""
    user = User.objects.create_user(username=username, email=email, password=password, company=company)
    group, _ = Group.objects.get_or_create(name=CUSTOMERS)
    user.groups.add(group)
    return user


def api_token_get(*, user: User) -> Token | None:
    return Token.objects.filter(user=user).first()
