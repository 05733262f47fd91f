"""Saved builds: a named build body (with its optional workload) and the verdict it last got.

The lines stay inside `payload` (the exact JSON of `POST /api/v1/builds/validate`): a build is always
read and written whole, validated against the current catalog snapshot, and quotes copy their own
lines with prices when they are made — so separate line tables would only duplicate the body.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class SavedBuild(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("customer"), on_delete=models.CASCADE, related_name="saved_builds"
    )
    name = models.CharField(_("name"), max_length=200)
    notes = models.TextField(_("notes"), blank=True)
    payload = models.JSONField(
        _("build"), help_text=_("The build body (chassis, lines, redundancy, voltage, workload).")
    )
    last_verdict = models.JSONField(
        _("last verdict"), default=dict, blank=True, help_text=_("The verdict at the last save.")
    )
    valid = models.BooleanField(_("valid"), default=False)
    created = models.DateTimeField(_("created"), auto_now_add=True)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("saved build")
        verbose_name_plural = _("saved builds")
        ordering = ("-updated", "-id")
        indexes = [models.Index(fields=["owner", "-updated"], name="savedbuild_owner_updated")]

    def __str__(self) -> str:
        return self.name
