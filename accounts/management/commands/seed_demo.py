"""Create the demo users printed by `make run` (idempotent; refuses to run with DEBUG off)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError

from accounts.models import User
from accounts.roles import sync_roles

# username, password, groups, is_staff, is_superuser — demo data for a developer's laptop only
DEMO_USERS: list[tuple[str, str, list[str], bool, bool]] = [
    ("admin", "admin-demo-2026", [], True, True),
    ("catalog", "catalog-demo-2026", ["catalog"], True, False),
    ("sales", "sales-demo-2026", ["sales"], True, False),
    ("customer", "customer-demo-2026", ["customers"], False, False),
    ("customer2", "customer2-demo-2026", ["customers"], False, False),
]


class Command(BaseCommand):
    help = "Create demo users (admin, catalog, sales, customer, customer2) if they do not exist."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--allow-without-debug", action="store_true", help="seed even when DEBUG is off")

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG and not options["allow_without_debug"]:
            raise CommandError("Demo users have published passwords; refusing to create them with DEBUG off.")
        sync_roles()
        created = 0
        for username, password, groups, is_staff, is_superuser in DEMO_USERS:
            user, was_created = User.objects.get_or_create(
                username=username,
                defaults={
                    "email": f"{username}@demo.local",
                    "is_staff": is_staff,
                    "is_superuser": is_superuser,
                },
            )
            if was_created:
                user.set_password(password)
                user.save(update_fields=["password"])
                user.groups.set(Group.objects.filter(name__in=groups))
                created += 1
        self.stdout.write(self.style.SUCCESS(f"demo users: {created} created, {len(DEMO_USERS) - created} existed"))
        for username, password, groups, _, is_superuser in DEMO_USERS:
            role = "superuser" if is_superuser else ", ".join(groups)
            self.stdout.write(f"  {username:10s} / {password:22s} ({role})")
