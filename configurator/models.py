"""Saved builds: a named build body (with its optional workload) and the verdict it last got.

The lines stay inside `payload` (the exact JSON of `POST /api/v1/builds/validate`): a build is always
read and written whole, validated against the current catalog snapshot, and quotes copy their own
lines with prices when they are made — so separate line tables would only duplicate the body.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class SavedBuild(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_builds")
    name = models.CharField(max_length=200)
    notes = models.TextField(blank=True)
    payload = models.JSONField(help_text="The build body (chassis, lines, redundancy, voltage, workload).")
    last_verdict = models.JSONField(default=dict, blank=True, help_text="The verdict at the last save.")
    valid = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-updated", "-id")
        indexes = [models.Index(fields=["owner", "-updated"], name="savedbuild_owner_updated")]

    def __str__(self) -> str:
        return self.name
