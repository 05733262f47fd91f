"""Users. A project-owned user model from day one, so customer fields can be added without a swap."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _

CUSTOMERS = "customers"
SALES = "sales"
CATALOG = "catalog"
GROUPS = (CUSTOMERS, SALES, CATALOG)


class User(AbstractUser):
    company = models.CharField(_("company"), max_length=200, blank=True)
    phone = models.CharField(_("phone"), max_length=40, blank=True)

    def in_group(self, name: str) -> bool:
        return self.groups.filter(name=name).exists()

    @property
    def is_sales(self) -> bool:
        return self.is_superuser or self.in_group(SALES)

    @property
    def is_catalog_staff(self) -> bool:
        return self.is_superuser or self.in_group(CATALOG)
