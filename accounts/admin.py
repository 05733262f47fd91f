from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from rest_framework.authtoken.models import TokenProxy

from accounts.forms import AdminLoginForm
from accounts.models import ApiToken, User
from accounts.tokens import token_issue, token_revoke

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


# API tokens (`Authorization: Token <key>`, accounts/tokens.py): only sha256(key) is stored. A superuser
# issues one for a user (the key is shown once, in the message after saving) or deletes it to revoke; a user
# rotates their own with POST /api/v1/auth/token or on the account page. No group holds token permissions.
# DRF's own Token table stays only for the migration that hashed its keys (accounts 0006).
admin.site.unregister(TokenProxy)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("user", "prefix", "created", "expires_at")
    autocomplete_fields = ("user",)
    search_fields = ("user__username", "prefix")

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return ("user",) if obj is None else ("user", "prefix", "created", "expires_at")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else ("user", "prefix", "created", "expires_at")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None and super().has_change_permission(request, obj)

    def save_model(self, request: HttpRequest, obj: ApiToken, form: Any, change: bool) -> None:
        if change:
            return
        token, key = token_issue(user=obj.user, by=request.user)
        obj.pk = token.pk
        obj.__dict__.update({f.attname: getattr(token, f.attname) for f in token._meta.concrete_fields})
        messages.warning(
            request, _("The new key of %(user)s, shown only now: %(key)s") % {"user": obj.user, "key": key}
        )

    def delete_model(self, request: HttpRequest, obj: ApiToken) -> None:
        token_revoke(user=obj.user, by=request.user)

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        for token in queryset.select_related("user"):
            token_revoke(user=token.user, by=request.user)
