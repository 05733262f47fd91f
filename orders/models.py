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
from django.db.models import F, Q
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


class PurchaseOrderStatus(models.TextChoices):
    """The states of configurator.engine.purchasing.PO_TRANSITIONS (the one transition table)."""

    DRAFT = "draft", _("draft")
    SENT = "sent", _("sent")
    CONFIRMED = "confirmed", _("confirmed")
    PARTLY_RECEIVED = "partly_received", _("partly received")
    RECEIVED = "received", _("received")
    CANCELLED = "cancelled", _("cancelled")


class PurchaseOrder(models.Model):
    """One supplier's part of an order's plan, as the document sent to the supplier (issue 36 item 1)."""

    number = models.CharField(_("number"), max_length=20, unique=True, help_text=_("PO-<year>-<6 digits>"))
    order = models.ForeignKey(Order, verbose_name=_("order"), on_delete=models.PROTECT, related_name="purchase_orders")
    supplier = models.ForeignKey(
        Supplier, verbose_name=_("supplier"), on_delete=models.PROTECT, related_name="purchase_orders"
    )
    status = models.CharField(
        _("status"), max_length=20, choices=PurchaseOrderStatus.choices, default=PurchaseOrderStatus.DRAFT
    )
    currency = models.CharField(_("currency"), max_length=3)
    rate = models.DecimalField(
        _("rate, RUB per unit"), max_digits=18, decimal_places=8, null=True, blank=True,
        help_text=_("The rate of the day the purchase order was made (empty for roubles)"),
    )  # fmt: skip
    rate_date = models.DateField(_("rate date"), null=True, blank=True)
    total = models.DecimalField(_("total"), **MONEY)
    total_rub = models.DecimalField(_("total, RUB"), **MONEY)
    expected_date = models.DateField(_("expected"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("created by"), on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)
    emailed_at = models.DateTimeField(_("e-mailed"), null=True, blank=True)
    email_to = models.CharField(_("e-mailed to"), max_length=254, blank=True)

    class Meta:
        verbose_name = _("purchase order")
        verbose_name_plural = _("purchase orders")
        ordering = ("-created_at", "-id")
        constraints = [
            models.UniqueConstraint(fields=("order", "supplier"), name="po_one_per_order_supplier"),
            models.CheckConstraint(condition=Q(status__in=list(PurchaseOrderStatus.values)), name="po_status_known"),
        ]

    def __str__(self) -> str:
        return self.number


class PurchaseOrderLine(models.Model):
    purchase_order = models.ForeignKey(
        PurchaseOrder, verbose_name=_("purchase order"), on_delete=models.CASCADE, related_name="lines"
    )
    purchase = models.OneToOneField(
        PurchaseLine, verbose_name=_("purchase line"), on_delete=models.PROTECT, related_name="po_line"
    )
    sku = models.CharField(_("SKU"), max_length=64)
    supplier_sku = models.CharField(_("supplier's SKU"), max_length=100, blank=True)
    kind = models.CharField(_("kind"), max_length=20)
    qty = models.PositiveIntegerField(_("quantity"))
    received_qty = models.PositiveIntegerField(_("received"), default=0)
    unit_price = models.DecimalField(_("unit price"), **MONEY)
    line_total = models.DecimalField(_("line total"), **MONEY)
    unit_price_rub = models.DecimalField(_("unit price, RUB"), **MONEY)
    line_total_rub = models.DecimalField(_("line total, RUB"), **MONEY)
    expected_date = models.DateField(_("expected"))

    class Meta:
        verbose_name = _("purchase order line")
        verbose_name_plural = _("purchase order lines")
        ordering = ("purchase_order", "id")
        constraints = [
            models.CheckConstraint(condition=Q(received_qty__lte=F("qty")), name="po_line_not_over_received"),
            models.CheckConstraint(condition=Q(qty__gte=1), name="po_line_qty_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.purchase_order} {self.sku} × {self.qty}"


class Receipt(models.Model):
    """What arrived from a supplier against a purchase order, recorded by a person (issue 36 item 2)."""

    purchase_order = models.ForeignKey(
        PurchaseOrder, verbose_name=_("purchase order"), on_delete=models.PROTECT, related_name="receipts"
    )
    received_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("received by"), on_delete=models.PROTECT, related_name="+"
    )
    received_at = models.DateTimeField(_("received"), auto_now_add=True)
    note = models.CharField(_("note"), max_length=500, blank=True)

    class Meta:
        verbose_name = _("receipt")
        verbose_name_plural = _("receipts")
        ordering = ("-received_at", "-id")

    def __str__(self) -> str:
        return f"{self.purchase_order} #{self.pk}"


class ReceiptLine(models.Model):
    receipt = models.ForeignKey(Receipt, verbose_name=_("receipt"), on_delete=models.CASCADE, related_name="lines")
    po_line = models.ForeignKey(
        PurchaseOrderLine, verbose_name=_("purchase order line"), on_delete=models.PROTECT, related_name="receipts"
    )
    qty = models.PositiveIntegerField(_("quantity"))
    #: Imported goods: the country of origin (ОКСМ code and short name) and the customs declaration's
    #: registration number, as the supplier's documents give them (УПД columns 10, 10а, 11); empty: none.
    country_code = models.CharField(_("country of origin code"), max_length=3, blank=True, default="")
    country_name = models.CharField(_("country of origin"), max_length=60, blank=True, default="")
    declaration = models.CharField(_("customs declaration number"), max_length=40, blank=True, default="")

    class Meta:
        verbose_name = _("receipt line")
        verbose_name_plural = _("receipt lines")
        ordering = ("receipt", "id")
        constraints = [models.CheckConstraint(condition=Q(qty__gte=1), name="receipt_line_qty_positive")]

    def __str__(self) -> str:
        return f"{self.receipt}: {self.po_line.sku} × {self.qty}"


class ReceivedSerial(models.Model):
    """A serial number of a part received for an order: unique per SKU (the database refuses it twice)."""

    receipt_line = models.ForeignKey(
        ReceiptLine, verbose_name=_("receipt line"), on_delete=models.CASCADE, related_name="serials"
    )
    order = models.ForeignKey(Order, verbose_name=_("order"), on_delete=models.PROTECT, related_name="serials")
    sku = models.CharField(_("SKU"), max_length=64)
    serial = models.CharField(_("serial number"), max_length=100, db_index=True)

    class Meta:
        verbose_name = _("serial number")
        verbose_name_plural = _("serial numbers")
        ordering = ("order", "sku", "serial")
        constraints = [models.UniqueConstraint(fields=("sku", "serial"), name="serial_once_per_sku")]

    def __str__(self) -> str:
        return f"{self.sku} {self.serial}"


class BuildStepKind(models.TextChoices):
    ASSEMBLY = "assembly", _("assembly")
    BURN_IN = "burn_in", _("burn-in test")


class BuildStepResult(models.TextChoices):
    PASSED = "passed", _("passed")
    FAILED = "failed", _("failed")


class BuildStep(models.Model):
    """Assembly or burn-in of the order's server: who, when, with what result (issue 36 item 3)."""

    order = models.ForeignKey(Order, verbose_name=_("order"), on_delete=models.PROTECT, related_name="build_steps")
    kind = models.CharField(_("step"), max_length=10, choices=BuildStepKind.choices)
    result = models.CharField(_("result"), max_length=10, choices=BuildStepResult.choices)
    note = models.CharField(_("note"), max_length=500, blank=True)
    done_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("done by"), on_delete=models.PROTECT, related_name="+"
    )
    done_at = models.DateTimeField(_("done"), auto_now_add=True)

    class Meta:
        verbose_name = _("build step")
        verbose_name_plural = _("build steps")
        ordering = ("order", "done_at", "id")

    def __str__(self) -> str:
        return f"{self.order} {self.kind}: {self.result}"
