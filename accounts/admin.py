from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin

from accounts.models import User


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    fieldsets = (*(DjangoUserAdmin.fieldsets or ()), ("Customer", {"fields": ("company", "phone")}))
    list_display = ("username", "email", "company", "is_staff", "is_superuser")
    list_filter = ("groups", "is_staff", "is_superuser", "is_active")
