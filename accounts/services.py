"""Services of accounts: customer sign-up, a buyer's requisites (API tokens: accounts/tokens.py)."""

from __future__ import annotations

from django.contrib.auth.models import Group
from django.db import transaction

from accounts.models import CUSTOMERS, User, requisites_problems
from configurator.engine.errors import Forbidden, InvalidInput


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


def requisites_may_edit(*, actor: User, customer: User) -> bool:
    """A customer edits their own requisites; a sales engineer (or a superuser) anyone's."""
    return actor.pk == customer.pk or actor.is_sales


def requisites_update(*, actor: User, customer: User, company: str, inn: str, kpp: str, legal_address: str) -> User:
    """Set `customer`'s company, ИНН, КПП and legal address (checked again: InvalidInput naming the field)."""
    if not requisites_may_edit(actor=actor, customer=customer):
        raise Forbidden("Only the customer or a sales engineer may change the buyer's requisites.")
    inn, kpp = inn.strip(), kpp.strip().upper()
    errors = requisites_problems(inn=inn, kpp=kpp)
    if errors:
        raise InvalidInput("The requisites are not valid.", fields=errors)
    customer.company, customer.inn, customer.kpp = company.strip()[:200], inn, kpp
    customer.legal_address = legal_address.strip()[:300]
    customer.save(update_fields=["company", "inn", "kpp", "legal_address"])
    return customer
