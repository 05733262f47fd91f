from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from rest_framework.authtoken.admin import TokenAdmin
from rest_framework.authtoken.models import TokenProxy

from accounts.forms import AdminLoginForm
from accounts.models import User

# /admin/login/ counts failed attempts like the site's form (accounts/throttle.py)
admin.site.login_form = AdminLoginForm
# The admin's own names, translated (Django's defaults say "Django administration")
admin.site.site_header = _("GPU configurator: administration")
admin.site.site_title = _("GPU configurator")
admin.site.index_title = _("Catalog, quotes and orders")


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    fieldsets = (*(DjangoUserAdmin.fieldsets or ()), (_("Customer"), {"fields": ("company", "phone")}))
    list_display = ("username", "email", "company", "is_staff", "is_superuser")
    list_filter = ("groups", "is_staff", "is_superuser", "is_active")


# API tokens (`Authorization: Token <key>`): superusers create one for a user (the key appears on the
# token's page once saved) or delete it to revoke; a user rotates their own with POST /api/v1/auth/token.
# No group holds token permissions. The list shows only the start of each key.
admin.site.unregister(TokenProxy)


@admin.register(TokenProxy)
class ApiTokenAdmin(TokenAdmin):
    list_display = ("user", "key_start", "created")
    autocomplete_fields = ("user",)

    @admin.display(description="Key")
    def key_start(self, obj: TokenProxy) -> str:
        return f"{obj.key[:6]}…"

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return ("user",) if obj is None else ("user", "key", "created")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else ("user", "key", "created")
