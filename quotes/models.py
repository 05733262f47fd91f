"""Quotes: a numbered, priced snapshot of a build (ARCHITECTURE.md §Quotes).

* `Quote` — one revision of a commercial offer. The number (`Q-2026-000123`) comes from a database
  sequence (PostgreSQL) or a counter row updated inside the creating transaction (SQLite) and is never
  reused; a revision (`R2`) keeps the number. Everything the customer sees — lines, prices, VAT rate,
  terms, the build and its verdict — is copied when the quote is made, so later catalog changes never
  touch an issued quote.
* `QuoteLine` — SKU, name, spec summary and prices copied when the line is added. Optional lines are
  shown but kept out of the totals. A service line copies its pricing too: a fixed price, or the percentage
  of the hardware it is priced at again whenever the hardware's total changes (quotes.pricing).
* `QuoteEvent` — the append-only history: every service writes one.

The status machine lives in `TRANSITIONS` below and nowhere else; `quotes.services` checks it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

MONEY: dict[str, Any] = {"max_digits": settings.MONEY_MAX_DIGITS, "decimal_places": settings.MONEY_DECIMAL_PLACES}
PERCENT: dict[str, Any] = {"max_digits": 5, "decimal_places": 2}


class QuoteStatus(models.TextChoices):
    DRAFT = "draft", _("Draft")
    PENDING_APPROVAL = "pending_approval", _("Pending approval")
    APPROVED = "approved", _("Approved")
    SENT = "sent", _("Sent")
    ACCEPTED = "accepted", _("Accepted")
    REJECTED = "rejected", _("Rejected")
    EXPIRED = "expired", _("Expired")
    SUPERSEDED = "superseded", _("Superseded")


S = QuoteStatus

#: The one transition table. `from → {to, …}`.
#:
#: * draft → pending_approval (submit), → sent directly when the discount is within the sales limit
#:   (`quotes.services.quote_send` refuses draft → sent with `approval_required` otherwise).
#: * pending_approval → approved (approve, by another sales user); a declined approval is handled by
#:   `revise` with another discount (the pending revision becomes superseded).
#: * approved → sent; sent → accepted | rejected (the customer) | expired (the daily job).
#: * any issued-but-open or closed-without-a-deal revision → superseded when `revise` makes the next
#:   revision. A draft is edited in place (refresh prices) rather than revised; an accepted quote is a
#:   deal and is never superseded.
TRANSITIONS: dict[str, frozenset[str]] = {
    S.DRAFT: frozenset({S.PENDING_APPROVAL, S.SENT}),
    S.PENDING_APPROVAL: frozenset({S.APPROVED, S.SUPERSEDED}),
    S.APPROVED: frozenset({S.SENT, S.SUPERSEDED}),
    S.SENT: frozenset({S.ACCEPTED, S.REJECTED, S.EXPIRED, S.SUPERSEDED}),
    S.ACCEPTED: frozenset(),
    S.REJECTED: frozenset({S.SUPERSEDED}),
    S.EXPIRED: frozenset({S.SUPERSEDED}),
    S.SUPERSEDED: frozenset(),
}

#: Statuses in which the quote has been issued to the customer: read-only in the admin.
ISSUED_STATUSES: frozenset[str] = frozenset({S.SENT, S.ACCEPTED, S.REJECTED, S.EXPIRED, S.SUPERSEDED})


def can_transition(from_status: str, to_status: str) -> bool:
    return to_status in TRANSITIONS.get(from_status, frozenset())


class RenderStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    GENERATING = "generating", _("Generating")
    READY = "ready", _("Ready")
    FAILED = "failed", _("Failed")


class QuoteCounter(models.Model):
    """The number counter on databases without sequences (SQLite).

    One row per counter name, incremented with an UPDATE inside the transaction that creates the quote,
    so the write lock serializes creators; a rolled-back creation gives its value back, a committed one
    never does. PostgreSQL uses the `quotes_quote_number_seq` sequence instead (migration 0002).
    """

    name = models.CharField(_("name"), max_length=40, primary_key=True)
    value = models.BigIntegerField(_("value"), default=0)

    class Meta:
        verbose_name = _("number counter")
        verbose_name_plural = _("number counters")
        constraints = [models.CheckConstraint(condition=Q(value__gte=0), name="quotecounter_value_nonnegative")]

    def __str__(self) -> str:
        return f"{self.name}={self.value}"


class Quote(models.Model):
    number = models.CharField(
        _("number"), max_length=20, db_index=True, help_text=_("Q-<year>-<6 digits>, shared by revisions")
    )
    revision = models.PositiveIntegerField(_("revision"), default=1)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("customer"),
        on_delete=models.PROTECT,
        related_name="quotes",
        help_text=_("The customer"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("created by"), on_delete=models.PROTECT, related_name="+"
    )
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("submitted by"),
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
    )
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("approved by"),
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
    )
    status = models.CharField(_("status"), max_length=20, choices=QuoteStatus.choices, default=QuoteStatus.DRAFT)
    currency = models.CharField(_("currency"), max_length=3, default="RUB")
    vat_percent = models.DecimalField(
        _("VAT, %"), **PERCENT, help_text=_("The VAT rate in force on the quote's date (the dated VAT rates)")
    )
    discount_percent = models.DecimalField(_("discount, %"), **PERCENT, default=0)
    net_total = models.DecimalField(_("total without VAT"), **MONEY, default=0)
    vat_total = models.DecimalField(_("VAT"), **MONEY, default=0)
    gross_total = models.DecimalField(_("total incl. VAT"), **MONEY, default=0)
    valid_until = models.DateTimeField(
        _("valid until"),
        null=True,
        blank=True,
        help_text=_("End of the validity day in the seller's time zone; set when sent"),
    )
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)
    emailed_at = models.DateTimeField(
        _("e-mailed"), null=True, blank=True, help_text=_("When the customer was e-mailed the PDF")
    )
    terms = models.TextField(_("terms"), blank=True, help_text=_("The terms text as it was when the quote was made"))
    build_payload = models.JSONField(_("build"), help_text=_("The build body the quote was made from"))
    verdict = models.JSONField(
        _("verdict"), default=dict, blank=True, help_text=_("The verdict of the build at creation")
    )
    saved_build = models.ForeignKey(
        "configurator.SavedBuild",
        verbose_name=_("saved build"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="quotes",
    )
    pdf = models.FileField(_("PDF"), upload_to="quotes/", blank=True, max_length=200)
    pdf_sha256 = models.CharField(_("PDF SHA-256"), max_length=64, blank=True)
    render_status = models.CharField(
        _("PDF status"), max_length=12, choices=RenderStatus.choices, default=RenderStatus.PENDING
    )
    render_started_at = models.DateTimeField(
        _("render started"), null=True, blank=True, help_text=_("Claim time of the current render")
    )
    render_queued_at = models.DateTimeField(
        _("render queued"), null=True, blank=True, help_text=_("When the render task was last handed to the broker")
    )
    render_attempts = models.PositiveIntegerField(_("render attempts"), default=0)
    render_error = models.TextField(_("render error"), blank=True)
    idempotency_key = models.CharField(_("idempotency key"), max_length=100, blank=True, default="")
    idempotency_hash = models.CharField(
        _("idempotency hash"),
        max_length=64,
        blank=True,
        default="",
        help_text=_("SHA-256 of the create request the key was first used with"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    #: Not a field: True on the object `quote_create` returns when the idempotency key matched an
    #: existing quote instead of creating one.
    replayed: bool = False

    class Meta:
        verbose_name = _("quote")
        verbose_name_plural = _("quotes")
        ordering = ("-created_at", "-id")
        constraints = [
            models.UniqueConstraint(fields=["number", "revision"], name="quote_number_revision_unique"),
            models.UniqueConstraint(
                fields=["created_by", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="quote_idempotency_key_unique_per_creator",
            ),
            models.CheckConstraint(condition=Q(revision__gte=1), name="quote_revision_positive"),
            models.CheckConstraint(
                condition=Q(discount_percent__gte=0) & Q(discount_percent__lte=100), name="quote_discount_0_100"
            ),
            models.CheckConstraint(condition=Q(vat_percent__gte=0) & Q(vat_percent__lte=100), name="quote_vat_0_100"),
            models.CheckConstraint(
                condition=Q(net_total__gte=0) & Q(vat_total__gte=0) & Q(gross_total__gte=0),
                name="quote_totals_nonnegative",
            ),
            models.CheckConstraint(condition=Q(status__in=QuoteStatus.values), name="quote_status_known"),
            models.CheckConstraint(
                condition=Q(render_status__in=RenderStatus.values), name="quote_render_status_known"
            ),
            models.CheckConstraint(condition=Q(currency__regex=r"^[A-Z]{3}$"), name="quote_currency_iso"),
        ]
        indexes = [
            models.Index(fields=["owner", "-created_at"], name="quote_owner_created"),
            models.Index(fields=["status", "valid_until"], name="quote_status_valid_until"),
            models.Index(fields=["render_status", "render_started_at"], name="quote_render_status"),
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        return f"{self.number} R{self.revision}"

    @property
    def needs_approval(self) -> bool:
        return self.discount_percent > settings.SALES_DISCOUNT_LIMIT_PERCENT

    @property
    def is_issued(self) -> bool:
        return self.status in ISSUED_STATUSES


class QuoteLine(models.Model):
    #: What people see of a line, in order: the admin inline and the API show the same columns.
    SHOWN_FIELDS = (
        "position",
        "section",
        "kind",
        "sku",
        "name",
        "spec_summary",
        "qty",
        "list_price",
        "discount_percent",
        "unit_price",
        "line_total",
        "optional",
        "service_percent",
    )

    quote = models.ForeignKey(Quote, verbose_name=_("quote"), on_delete=models.CASCADE, related_name="lines")
    position = models.PositiveIntegerField(
        _("position"),
    )
    kind = models.CharField(
        _("kind"), max_length=20, help_text=_("chassis, cpus, gpus, psus, memory, storage, nics, bridges")
    )
    sku = models.CharField(_("SKU"), max_length=64)
    name = models.CharField(_("name"), max_length=200)
    name_ru = models.CharField(
        _("name (Russian)"),
        max_length=200,
        blank=True,
        default="",
        help_text=_("The catalog's Russian name; empty = name"),
    )
    section = models.CharField(
        _("section"),
        max_length=20,
        blank=True,
        default="",
        help_text=_("A cluster quote's section (nodes, compute fabric …); empty for a single build"),
    )
    spec_summary = models.CharField(_("specifications"), max_length=300, blank=True)
    spec_summary_ru = models.CharField(_("specifications (Russian)"), max_length=300, blank=True, default="")
    qty = models.PositiveIntegerField(
        _("quantity"),
    )
    list_price = models.DecimalField(
        _("list price"), **MONEY, help_text=_("Catalog price per unit when the line was added")
    )
    discount_percent = models.DecimalField(_("discount, %"), **PERCENT, default=0)
    unit_price = models.DecimalField(
        _("unit price"), **MONEY, help_text=_("list price less the discount, rounded to kopecks")
    )
    line_total = models.DecimalField(_("line total"), **MONEY, help_text=_("unit price × qty"))
    optional = models.BooleanField(_("optional"), default=False, help_text=_("Offered, but not part of the totals"))
    service_percent = models.DecimalField(
        _("percent of the hardware"),
        **PERCENT,
        null=True,
        blank=True,
        help_text=_(
            "A service priced as this percentage of the hardware's total after the discount; empty: a fixed price"
        ),
    )

    class Meta:
        verbose_name = _("quote line")
        verbose_name_plural = _("quote lines")
        ordering = ("quote", "position")
        constraints = [
            models.UniqueConstraint(fields=["quote", "position"], name="quoteline_position_unique"),
            models.CheckConstraint(condition=Q(qty__gte=1), name="quoteline_qty_positive"),
            models.CheckConstraint(
                condition=Q(list_price__gte=0) & Q(unit_price__gte=0) & Q(line_total__gte=0),
                name="quoteline_money_nonnegative",
            ),
            models.CheckConstraint(
                condition=Q(discount_percent__gte=0) & Q(discount_percent__lte=100),
                name="quoteline_discount_0_100",
            ),
            models.CheckConstraint(
                condition=Q(service_percent__isnull=True) | (Q(service_percent__gte=0) & Q(service_percent__lte=100)),
                name="quoteline_service_percent_0_100",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sku} × {self.qty}"


class QuoteEventType(models.TextChoices):
    CREATED = "created", _("Created")
    STATUS_CHANGED = "status_changed", _("Status changed")
    REVISED = "revised", _("Revised")
    PRICES_REFRESHED = "prices_refreshed", _("Prices refreshed")
    PDF_READY = "pdf_ready", _("PDF ready")
    PDF_FAILED = "pdf_failed", _("PDF failed")
    RENDER_REQUEUED = "render_requeued", _("Render re-queued")
    EMAILED = "emailed", _("E-mailed")
    EMAIL_FAILED = "email_failed", _("E-mail failed")
    DISCOUNT_CHANGED = "discount_changed", _("Discount changed")
    TERMS_CHANGED = "terms_changed", _("Terms changed")


class AppendOnlyError(RuntimeError):
    """Quote events are history: they are written once and never changed or removed."""


class QuoteEventQuerySet(models.QuerySet["QuoteEvent"]):
    def update(self, **kwargs: Any) -> int:
        raise AppendOnlyError("Quote events cannot be updated.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("Quote events cannot be deleted.")


class QuoteEvent(models.Model):
    quote = models.ForeignKey(Quote, verbose_name=_("quote"), on_delete=models.PROTECT, related_name="events")
    type = models.CharField(_("type"), max_length=30, choices=QuoteEventType.choices)
    data = models.JSONField(_("data"), default=dict, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    objects = QuoteEventQuerySet.as_manager()

    class Meta:
        verbose_name = _("quote event")
        verbose_name_plural = _("quote events")
        ordering = ("created_at", "id")
        indexes = [models.Index(fields=["quote", "created_at"], name="quoteevent_quote_created")]

    def __str__(self) -> str:
        return f"{self.quote_id} {self.type}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None and not self._state.adding:
            raise AppendOnlyError("Quote events cannot be changed.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("Quote events cannot be deleted.")
