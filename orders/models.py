"""Orders: an accepted quote made into work (ARCHITECTURE.md §Quotes, issue 15).

* `Order` — one per accepted quote (the database refuses a second: `quote` is one-to-one), numbered
  `O-<year>-<6 digits>` from a sequence (PostgreSQL) or the shared counter row (SQLite); its lines copy
  the quote's; `promised_ship_date` comes from the offers when the order is placed.
* `OrderEvent` — append-only history; every status change writes one.
* `PurchaseLine` — the procurement plan: per order line, what to buy from which supplier, at what price
  (in the offer's own currency; pages and exports add its roubles at the day's rate), from stock (units
  reserved on the offer) or on back order. Grouped by supplier it is a purchase list. Service lines
  (warranty, delivery, …) are sold, not bought: they have no purchase lines and no part in ship dates.
* `Order.at_risk` / `risk_reasons` — why the promised ship date may not be kept (orders/risks.py).

The status machine lives in `TRANSITIONS` below and nowhere else. Dates count working days on the Russian
production calendar (configurator/engine/workdays.py).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from procurement.models import Supplier, SupplierOffer
from quotes.models import AppendOnlyError, Quote

MONEY: dict[str, Any] = {"max_digits": settings.MONEY_MAX_DIGITS, "decimal_places": settings.MONEY_DECIMAL_PLACES}


class OrderStatus(models.TextChoices):
    PLACED = "placed", _("Placed")
    PARTS_ORDERED = "parts_ordered", _("Parts ordered")
    ASSEMBLING = "assembling", _("Assembling")
    BURN_IN = "burn_in", _("Burn-in test")
    SHIPPED = "shipped", _("Shipped")
    DELIVERED = "delivered", _("Delivered")
    CANCELLED = "cancelled", _("Cancelled")


S = OrderStatus

#: The one transition table: `from → {to, …}`. An order can be cancelled until it ships.
TRANSITIONS: dict[str, frozenset[str]] = {
    S.PLACED: frozenset({S.PARTS_ORDERED, S.CANCELLED}),
    S.PARTS_ORDERED: frozenset({S.ASSEMBLING, S.CANCELLED}),
    S.ASSEMBLING: frozenset({S.BURN_IN, S.CANCELLED}),
    S.BURN_IN: frozenset({S.SHIPPED, S.CANCELLED}),
    S.SHIPPED: frozenset({S.DELIVERED}),
    S.DELIVERED: frozenset(),
    S.CANCELLED: frozenset(),
}


def can_transition(from_status: str, to_status: str) -> bool:
    return to_status in TRANSITIONS.get(from_status, frozenset())


#: The end states of the table (delivered, cancelled): an order there holds no stock reservation.
FINAL_STATUSES: frozenset[str] = frozenset(status for status, moves in TRANSITIONS.items() if not moves)
#: Until the parts are here (assembly starts) an order relies on its offers: stale or short ones put it at risk.
PARTS_PENDING_STATUSES: frozenset[str] = frozenset({S.PLACED, S.PARTS_ORDERED})


class PlanStatus(models.TextChoices):
    PENDING = "pending", _("pending")
    PLANNING = "planning", _("planning")
    READY = "ready", _("ready")
    FAILED = "failed", _("failed")
    SKIPPED = "skipped", _("not made: the order was cancelled")


class Order(models.Model):
    number = models.CharField(_("number"), max_length=20, unique=True, help_text=_("O-<year>-<6 digits>"))
    quote = models.OneToOneField(Quote, verbose_name=_("quote"), on_delete=models.PROTECT, related_name="order")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("customer"), on_delete=models.PROTECT, related_name="orders"
    )
    placed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("placed by"), on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(_("status"), max_length=20, choices=OrderStatus.choices, default=OrderStatus.PLACED)
    currency = models.CharField(_("currency"), max_length=3, default="RUB")
    net_total = models.DecimalField(_("total without VAT"), **MONEY)
    vat_total = models.DecimalField(_("VAT"), **MONEY)
    gross_total = models.DecimalField(_("total incl. VAT"), **MONEY)
    promised_ship_date = models.DateField(
        _("promised ship date"), null=True, blank=True, help_text=_("From the offers when placed")
    )
    plan_status = models.CharField(
        _("plan status"), max_length=10, choices=PlanStatus.choices, default=PlanStatus.PENDING
    )
    plan_error = models.TextField(_("plan error"), blank=True)
    plan_queued_at = models.DateTimeField(
        _("plan queued at"), null=True, blank=True, help_text=_("When the plan job was handed to the broker")
    )
    plan_started_at = models.DateTimeField(
        _("plan started at"), null=True, blank=True, help_text=_("When a worker claimed the plan job")
    )
    at_risk = models.BooleanField(
        _("at risk"), default=False, db_index=True, help_text=_("The promised ship date may not be kept")
    )
    risk_reasons = models.JSONField(
        _("risk reasons"), default=list, blank=True, help_text=_("Why the order is at risk (orders/risks.py)")
    )
    risk_checked_at = models.DateTimeField(_("risk checked at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("order")
        verbose_name_plural = _("orders")
        ordering = ("-created_at", "-id")
        constraints = [
            models.CheckConstraint(condition=Q(status__in=list(TRANSITIONS)), name="order_status_known"),
            models.CheckConstraint(condition=Q(gross_total__gte=0), name="order_gross_nonnegative"),
        ]

    def __str__(self) -> str:
        return self.number


class OrderLine(models.Model):
    order = models.ForeignKey(Order, verbose_name=_("order"), on_delete=models.CASCADE, related_name="lines")
    position = models.PositiveIntegerField(
        _("position"),
    )
    kind = models.CharField(_("kind"), max_length=20)
    sku = models.CharField(_("SKU"), max_length=64)
    name = models.CharField(_("name"), max_length=200)
    name_ru = models.CharField(_("name (Russian)"), max_length=200, blank=True, help_text=_("As on the quote line"))
    qty = models.PositiveIntegerField(
        _("quantity"),
    )
    unit_price = models.DecimalField(_("unit price"), **MONEY)
    line_total = models.DecimalField(_("line total"), **MONEY)

    class Meta:
        verbose_name = _("order line")
        verbose_name_plural = _("order lines")
        ordering = ("order", "position")
        constraints = [
            models.UniqueConstraint(fields=("order", "position"), name="order_line_position_unique"),
            models.CheckConstraint(condition=Q(qty__gte=1), name="order_line_qty_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.order} #{self.position} {self.sku} × {self.qty}"


class OrderEventQuerySet(models.QuerySet["OrderEvent"]):
    def update(self, **kwargs: Any) -> int:
        raise AppendOnlyError("order events are append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("order events are append-only")


class OrderEvent(models.Model):
    order = models.ForeignKey(Order, verbose_name=_("order"), on_delete=models.PROTECT, related_name="events")
    type = models.CharField(_("type"), max_length=30)
    data = models.JSONField(_("data"), default=dict, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    objects = OrderEventQuerySet.as_manager()

    class Meta:
        verbose_name = _("order event")
        verbose_name_plural = _("order events")
        ordering = ("created_at", "id")

    def __str__(self) -> str:
        return f"{self.order} {self.type}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise AppendOnlyError("order events are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("order events are append-only")


class PurchaseLine(models.Model):
    order = models.ForeignKey(Order, verbose_name=_("order"), on_delete=models.CASCADE, related_name="purchases")
    order_line = models.ForeignKey(
        OrderLine, verbose_name=_("order line"), on_delete=models.CASCADE, related_name="purchases"
    )
    supplier = models.ForeignKey(
        Supplier, verbose_name=_("supplier"), on_delete=models.PROTECT, related_name="purchases"
    )
    offer = models.ForeignKey(
        SupplierOffer, verbose_name=_("offer"), null=True, on_delete=models.SET_NULL, related_name="purchases"
    )
    sku = models.CharField(_("SKU"), max_length=64)
    qty = models.PositiveIntegerField(
        _("quantity"),
    )
    unit_price = models.DecimalField(_("unit price"), **MONEY)
    currency = models.CharField(_("currency"), max_length=3)
    from_stock = models.BooleanField(
        _("from stock"), help_text=_("Units reserved from the supplier's stock (else back order)")
    )
    expected_days = models.PositiveSmallIntegerField(
        _("expected in, working days"),
    )
    released = models.BooleanField(
        _("released"),
        default=False,
        help_text=_("The reservation was given back (order cancelled or delivered)"),
    )

    class Meta:
        verbose_name = _("purchase line")
        verbose_name_plural = _("purchase lines")
        ordering = ("supplier__name", "sku", "id")
        constraints = [models.CheckConstraint(condition=Q(qty__gte=1), name="purchase_qty_positive")]

    def __str__(self) -> str:
        return f"{self.order}: {self.qty} × {self.sku} from {self.supplier}"
