"""Saved builds in the admin: who saved what, whether it passed, and the verdict it last got (read-only).

Saving re-validates the build through the service, so `valid` and the verdict never go stale.
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html

from configurator.engine.errors import DomainError
from configurator.models import SavedBuild
from configurator.services import build_validate, saved_build_update
from configurator.wording import said_fields, say


class SavedBuildForm(forms.ModelForm):
    class Meta:
        model = SavedBuild
        fields = ("owner", "name", "notes", "payload")

    def clean_payload(self) -> Any:
        payload = self.cleaned_data["payload"]
        try:
            build_validate(payload=payload)
        except DomainError as error:
            reasons = [f"{name}: {'; '.join(why)}" for name, why in said_fields(error.fields).items()] or [
                say(error.message)
            ]
            raise forms.ValidationError(reasons) from None
        return payload


@admin.register(SavedBuild)
class SavedBuildAdmin(admin.ModelAdmin):
    form = SavedBuildForm
    list_display = ("name", "owner", "valid", "updated")
    list_filter = ("valid",)
    search_fields = ("name", "notes", "owner__username", "owner__email")
    list_select_related = ("owner",)
    raw_id_fields = ("owner",)
    readonly_fields = ("valid", "verdict", "created", "updated")
    date_hierarchy = "updated"

    def save_model(self, request: HttpRequest, obj: SavedBuild, form: forms.ModelForm, change: bool) -> None:
        if not change:
            obj.save()
        saved_build_update(saved_build=obj, payload=obj.payload)

    @admin.display(description="Last verdict")
    def verdict(self, obj: SavedBuild) -> str:
        findings = obj.last_verdict.get("findings", []) if isinstance(obj.last_verdict, dict) else []
        lines = [f"{f.get('severity')}: {f.get('code')} — {f.get('message')}" for f in findings]
        return format_html(
            "<pre>{}</pre>\n<details><summary>JSON</summary><pre>{}</pre></details>",
            "\n".join(lines) or "no findings",
            json.dumps(obj.last_verdict, indent=2, ensure_ascii=False),
        )
