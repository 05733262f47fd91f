"""Users. A project-owned user model from day one, so customer fields can be added without a swap."""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.signals import m2m_changed
from django.dispatch import receiver
from django.utils.translation import gettext_lazy as _

from configurator.engine.requisites import inn_problem, kpp_problem

CUSTOMERS = "customers"
SALES = "sales"
CATALOG = "catalog"
GROUPS = (CUSTOMERS, SALES, CATALOG)
_GROUP_NAMES = "_group_names"  # the instance's cache of User.group_names()


class User(AbstractUser):
    company = models.CharField(_("company"), max_length=200, blank=True)
    phone = models.CharField(_("phone"), max_length=40, blank=True)
    # the buyer's requisites a счёт and an УПД print (issue 36): checked by configurator.engine.requisites
    inn = models.CharField(_("INN"), max_length=12, blank=True, help_text=_("10 digits (organisation) or 12"))
    kpp = models.CharField(_("KPP"), max_length=9, blank=True, help_text=_("9 characters; organisations only"))
    legal_address = models.CharField(_("legal address"), max_length=300, blank=True)

    def clean(self) -> None:
        super().clean()
        self.inn, self.kpp = self.inn.strip(), self.kpp.strip().upper()
        errors = requisites_problems(inn=self.inn, kpp=self.kpp)
        if errors:
            raise ValidationError(errors)

    def in_group(self, name: str) -> bool:
        return name in self.group_names()

    def group_names(self) -> frozenset[str]:
        """The names of the user's groups, read once per instance: a page or a list asks `is_sales` for each of
        its rows (a catalog list asked it per part, one query each), and each request reads its user afresh.
        As with Django's permission cache (ModelBackend's `_perm_cache`), a change through this instance
        (`user.groups.add/remove/set/clear`) or `refresh_from_db()` forgets it; one made through the group
        (`group.user_set.add(user)`) is seen by the next instance read from the database."""
        names: frozenset[str] | None = self.__dict__.get(_GROUP_NAMES)
        if names is None:
            names = self.__dict__[_GROUP_NAMES] = frozenset(self.groups.values_list("name", flat=True))
        return names

    def refresh_from_db(self, *args: Any, **kwargs: Any) -> None:
        self.__dict__.pop(_GROUP_NAMES, None)
        super().refresh_from_db(*args, **kwargs)

    @property
    def is_sales(self) -> bool:
        return self.is_superuser or self.in_group(SALES)

    @property
    def is_catalog_staff(self) -> bool:
        return self.is_superuser or self.in_group(CATALOG)


def requisites_problems(*, inn: str, kpp: str) -> dict[str, list[str]]:
    """Field → reasons for a buyer's ИНН and КПП (empty ИНН: none given, nothing to check)."""
    errors: dict[str, list[str]] = {}
    if inn and (problem := inn_problem(inn)):
        errors["inn"] = [problem]
    if (inn or kpp) and (problem := kpp_problem(kpp, inn=inn)):
        errors["kpp"] = [problem]
    return errors


@receiver(m2m_changed, sender=User.groups.through)
def _forget_group_names(sender: Any, instance: Any, action: str, **kwargs: Any) -> None:
    """`user.groups.add(...)` and the like: the user's cached group names are stale."""
    if isinstance(instance, User) and action.startswith("post_"):
        instance.__dict__.pop(_GROUP_NAMES, None)


def token_digest(key: str) -> str:
    """What is stored of an API token: sha256 of the key, in hex (the key itself is shown once, never kept)."""
    return hashlib.sha256(key.encode()).hexdigest()


class ApiToken(models.Model):
    """A user's API token (`Authorization: Token <key>`), stored as sha256(key) with an expiry.

    The key is 32 random bytes (`secrets.token_urlsafe`), so a fast hash is enough: nothing can be guessed
    from its digest. A user holds at most one; issuing a new one replaces it (accounts.tokens)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_token", verbose_name=_("user")
    )
    key_hash = models.CharField(_("key digest (sha256)"), max_length=64, unique=True)
    prefix = models.CharField(_("key start"), max_length=8, help_text=_("The first characters, to tell keys apart"))
    created = models.DateTimeField(_("created"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.prefix}…"


class StaffTotp(models.Model):
    """A staff member's TOTP authenticator (accounts/totp.py), required for /admin/ (accounts.mfa).

    `last_step` is the time step of the last accepted code: a code is accepted once."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="totp", verbose_name=_("user")
    )
    secret = models.CharField(_("secret (base32)"), max_length=64)
    confirmed_at = models.DateTimeField(_("confirmed"), null=True, blank=True)
    last_step = models.BigIntegerField(_("last used time step"), default=-1)

    class Meta:
        verbose_name = _("authenticator (TOTP)")
        verbose_name_plural = _("authenticators (TOTP)")

    def __str__(self) -> str:
        return str(self.user)
