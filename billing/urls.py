"""Routes of the billing API; config/urls.py mounts them under /api/v1/."""

from __future__ import annotations

from django.urls import URLPattern, path, register_converter

from billing import apis


class InvoiceNumberConverter:
    regex = r"INV-[0-9]{4}-[0-9]{6,}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class UpdNumberConverter(InvoiceNumberConverter):
    regex = r"UPD-[0-9]{4}-[0-9]{6,}"


register_converter(InvoiceNumberConverter, "invoice_number")
register_converter(UpdNumberConverter, "upd_number")

urlpatterns: list[URLPattern] = [
    path("invoices/", apis.InvoiceListApi.as_view(), name="invoice-list"),
    path("invoices/<invoice_number:number>/", apis.InvoiceDetailApi.as_view(), name="invoice-detail"),
    path("invoices/<invoice_number:number>/pdf", apis.InvoicePdfApi.as_view(), name="invoice-pdf"),
    path("payments/", apis.PaymentListApi.as_view(), name="payment-list"),
    path("transfer-documents/", apis.TransferDocumentListApi.as_view(), name="transfer-document-list"),
    path(
        "transfer-documents/<upd_number:number>/pdf",
        apis.TransferDocumentPdfApi.as_view(),
        name="transfer-document-pdf",
    ),
    path("orders/<order_number:number>/margin/", apis.OrderMarginApi.as_view(), name="order-margin"),
    path("orders/<order_number:number>/service-costs/", apis.OrderServiceCostApi.as_view(), name="order-service-costs"),
    path("exchange/1c/documents.xml", apis.OneCDocumentsApi.as_view(), name="exchange-1c-documents"),
    path("exchange/1c/catalog.xml", apis.OneCCatalogApi.as_view(), name="exchange-1c-catalog"),
]
