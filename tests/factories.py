"""factory_boy factories for users per role."""

from __future__ import annotations

from typing import cast

import factory
from django.contrib.auth.models import Group

from accounts.models import User


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.django.Password("pass-12345")

    @factory.post_generation
    def groups(self, create: bool, extracted: list[str] | None, **kwargs: object) -> None:
        if not create or not extracted:
            return
        for name in extracted:
            self.groups.add(Group.objects.get(name=name))


def customer(**kwargs: object) -> User:
    return cast(User, UserFactory(groups=["customers"], **kwargs))


def sales(**kwargs: object) -> User:
    return cast(User, UserFactory(groups=["sales"], is_staff=True, **kwargs))


def catalog_staff(**kwargs: object) -> User:
    return cast(User, UserFactory(groups=["catalog"], is_staff=True, **kwargs))


def api_token(user: User) -> str:
    """A new API token of `user`: the key to send (only its sha256 is stored)."""
    from accounts.tokens import token_issue

    return token_issue(user=user)[1]
