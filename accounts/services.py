"""Services of accounts: customer sign-up (API tokens: accounts/tokens.py)."""

from __future__ import annotations

from django.contrib.auth.models import Group
from django.db import transaction

from accounts.models import CUSTOMERS, User


@transaction.atomic
def customer_signup(*, username: str, email: str, password: str, company: str = "", active: bool = True) -> User:
    """A new user in the `customers` group (own builds and quotes only); inactive until the address is confirmed
    when `active` is false (the sign-up page)."""
    user = User.objects.create_user(
        username=username, email=email, password=password, company=company, is_active=active
    )
    group, _ = Group.objects.get_or_create(name=CUSTOMERS)
    user.groups.add(group)
    return user
