"""Customer documents and money of an order (issue 36 items 4–5).

* `Invoice` — the invoice for payment (счёт на оплату) of an order, numbered `INV-<year>-<6 digits>` from a
  database sequence (PostgreSQL) or the shared counter row (SQLite); its lines copy the order's; VAT at the
  rate in force on its date (billing/documents.py). One per order. `paid_total` and `status` follow its
  payments (unpaid → partly_paid → paid). Cancelling the order cancels an unpaid invoice; one with money
  received (partly paid or paid) is kept, with a note that the money is to be refunded or set off.
* `Payment` — money received against an invoice (partial payments allowed; one before the order ships is a
  prepayment). Never more than is still due.
* `TransferDocument` — the УПД (universal transfer document, status 1: invoice-factura and shipping
  document in one), numbered `UPD-<year>-<6 digits>`, made when the order has shipped; VAT at the rate in
  force on the shipment day.
* `ServiceCost` — what delivering the order cost besides parts (courier, installation …), in roubles: the
  margin's service costs.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from orders.models import Order

MONEY: dict[str, Any] = {"max_digits": settings.MONEY_MAX_DIGITS, "decimal_places": settings.MONEY_DECIMAL_PLACES}
PERCENT: dict[str, Any] = {"max_digits": 5, "decimal_places": 2}


class InvoiceStatus(models.TextChoices):
    UNPAID = "unpaid", _("unpaid")
    PARTLY_PAID = "partly_paid", _("partly paid")
    PAID = "paid", _("paid")
    CANCELLED = "cancelled", _("cancelled")


class CustomerDocument(models.Model):
    """What an invoice and an УПД share: number, order, date, VAT rate and totals."""

    number = models.CharField(_("number"), max_length=20, unique=True)
    order = models.ForeignKey(Order, verbose_name=_("order"), on_delete=models.PROTECT, related_name="+")
    issued_on = models.DateField(_("date"))
    vat_percent = models.DecimalField(_("VAT, %"), **PERCENT, help_text=_("In force on the document's date"))
    net_total = models.DecimalField(_("total without VAT"), **MONEY)
    vat_total = models.DecimalField(_("VAT"), **MONEY)
    gross_total = models.DecimalField(_("total incl. VAT"), **MONEY)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("created by"), on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    # the buyer as on the day of issue: a document once issued does not change when the customer's profile does
    buyer_name = models.CharField(_("buyer"), max_length=300, blank=True)
    buyer_inn = models.CharField(_("buyer's INN"), max_length=12, blank=True)
    buyer_kpp = models.CharField(_("buyer's KPP"), max_length=9, blank=True)
    buyer_address = models.CharField(_("buyer's address"), max_length=300, blank=True)

    class Meta:
        abstract = True
        ordering = ("-issued_on", "-id")

    def __str__(self) -> str:
        return self.number


class Invoice(CustomerDocument):
    order = models.ForeignKey(Order, verbose_name=_("order"), on_delete=models.PROTECT, related_name="invoices")
    paid_total = models.DecimalField(_("paid"), **MONEY, default=0)
    status = models.CharField(_("status"), max_length=12, choices=InvoiceStatus.choices, default=InvoiceStatus.UNPAID)
    note = models.CharField(
        _("note"), max_length=300, blank=True, help_text=_("Why the invoice was cancelled or kept after the order was")
    )

    class Meta(CustomerDocument.Meta):
        verbose_name = _("invoice")
        verbose_name_plural = _("invoices")
        constraints = [
            models.UniqueConstraint(fields=("order",), name="invoice_one_per_order"),
            models.CheckConstraint(
                condition=Q(paid_total__gte=0) & Q(paid_total__lte=models.F("gross_total")),
                name="invoice_paid_within_gross",
            ),
            models.CheckConstraint(condition=Q(status__in=InvoiceStatus.values), name="invoice_status_known"),
        ]


class TransferDocument(CustomerDocument):
    order = models.ForeignKey(
        Order, verbose_name=_("order"), on_delete=models.PROTECT, related_name="transfer_documents"
    )

    class Meta(CustomerDocument.Meta):
        verbose_name = _("universal transfer document")
        verbose_name_plural = _("universal transfer documents")
        constraints = [models.UniqueConstraint(fields=("order",), name="upd_one_per_order")]


class DocumentLine(models.Model):
    position = models.PositiveIntegerField(_("position"))
    sku = models.CharField(_("SKU"), max_length=64)
    name = models.CharField(_("name"), max_length=200)
    qty = models.PositiveIntegerField(_("quantity"))
    unit_price = models.DecimalField(_("unit price"), **MONEY)
    line_total = models.DecimalField(_("amount without VAT"), **MONEY)
    vat = models.DecimalField(_("VAT"), **MONEY)
    gross = models.DecimalField(_("amount incl. VAT"), **MONEY)

    class Meta:
        abstract = True
        ordering = ("position",)


class InvoiceLine(DocumentLine):
    invoice = models.ForeignKey(Invoice, verbose_name=_("invoice"), on_delete=models.CASCADE, related_name="lines")

    class Meta(DocumentLine.Meta):
        verbose_name = _("invoice line")
        verbose_name_plural = _("invoice lines")
        constraints = [models.UniqueConstraint(fields=("invoice", "position"), name="invoice_line_position_unique")]

    def __str__(self) -> str:
        return f"{self.invoice} #{self.position} {self.sku} × {self.qty}"


class TransferLine(DocumentLine):
    document = models.ForeignKey(
        TransferDocument, verbose_name=_("document"), on_delete=models.CASCADE, related_name="lines"
    )

    class Meta(DocumentLine.Meta):
        verbose_name = _("transfer document line")
        verbose_name_plural = _("transfer document lines")
        constraints = [models.UniqueConstraint(fields=("document", "position"), name="upd_line_position_unique")]

    def __str__(self) -> str:
        return f"{self.document} #{self.position} {self.sku} × {self.qty}"


class Payment(models.Model):
    invoice = models.ForeignKey(Invoice, verbose_name=_("invoice"), on_delete=models.PROTECT, related_name="payments")
    amount = models.DecimalField(_("amount"), **MONEY)
    paid_on = models.DateField(_("paid on"))
    reference = models.CharField(
        _("reference"), max_length=100, blank=True, help_text=_("The payment order's number, as the bank shows it")
    )
    prepayment = models.BooleanField(_("prepayment"), help_text=_("Received before the order shipped"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("recorded by"), on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("payment")
        verbose_name_plural = _("payments")
        ordering = ("paid_on", "id")
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="payment_amount_positive")]

    def __str__(self) -> str:
        return f"{self.invoice}: {self.amount}"


class ServiceCost(models.Model):
    order = models.ForeignKey(Order, verbose_name=_("order"), on_delete=models.PROTECT, related_name="service_costs")
    description = models.CharField(_("description"), max_length=200)
    amount_rub = models.DecimalField(_("amount, RUB"), **MONEY)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("recorded by"), on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("service cost")
        verbose_name_plural = _("service costs")
        ordering = ("created_at", "id")
        constraints = [models.CheckConstraint(condition=Q(amount_rub__gt=0), name="service_cost_positive")]

    def __str__(self) -> str:
        return f"{self.order}: {self.description} {self.amount_rub}"
