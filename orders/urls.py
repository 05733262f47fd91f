"""Routes of the orders API; config/urls.py mounts them under /api/v1/ (orders/ and quotes/<number>/order)."""

from __future__ import annotations

from django.urls import URLPattern, path, register_converter

from orders import apis, purchasing_apis


class OrderNumberConverter:
    regex = r"O-[0-9]{4}-[0-9]{6,}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class QuoteNumberConverter(OrderNumberConverter):
    regex = r"Q-[0-9]{4}-[0-9]{6,}"


class PurchaseOrderNumberConverter(OrderNumberConverter):
    regex = r"PO-[0-9]{4}-[0-9]{6,}"


register_converter(OrderNumberConverter, "order_number")
register_converter(PurchaseOrderNumberConverter, "po_number")
register_converter(QuoteNumberConverter, "quote_number_for_order")

urlpatterns: list[URLPattern] = [
    path("quotes/<quote_number_for_order:number>/order", apis.QuoteOrderApi.as_view(), name="quote-order"),
    path("orders/", apis.OrderListApi.as_view(), name="order-list"),
    path("orders/<order_number:number>/", apis.OrderDetailApi.as_view(), name="order-detail"),
    path("orders/<order_number:number>/advance/", apis.OrderAdvanceApi.as_view(), name="order-advance"),
    path(
        "orders/<order_number:number>/purchase-lists/",
        apis.OrderPurchaseListsApi.as_view(),
        name="order-purchase-lists",
    ),
    path(
        "orders/<order_number:number>/purchase-lists/<slug:supplier>.csv",
        apis.OrderPurchaseListCsvApi.as_view(),
        name="order-purchase-list-csv",
    ),
    path(
        "orders/<order_number:number>/purchase-lists/<slug:supplier>.xlsx",
        apis.OrderPurchaseListXlsxApi.as_view(),
        name="order-purchase-list-xlsx",
    ),
    path(
        "orders/<order_number:number>/build-steps/",
        purchasing_apis.OrderBuildStepsApi.as_view(),
        name="order-build-steps",
    ),
    path(
        "orders/<order_number:number>/delivery-note/",
        purchasing_apis.OrderDeliveryNoteApi.as_view(),
        name="order-delivery-note",
    ),
    path("purchase-orders/", purchasing_apis.PurchaseOrderListApi.as_view(), name="purchase-order-list"),
    path(
        "purchase-orders/<po_number:number>/",
        purchasing_apis.PurchaseOrderDetailApi.as_view(),
        name="purchase-order-detail",
    ),
    path(
        "purchase-orders/<po_number:number>/transition/",
        purchasing_apis.PurchaseOrderTransitionApi.as_view(),
        name="purchase-order-transition",
    ),
    path("purchase-orders/<po_number:number>/pdf/", purchasing_apis.PurchaseOrderPdfApi.as_view(), name="po-pdf"),
    path("purchase-orders/<po_number:number>/xlsx/", purchasing_apis.PurchaseOrderXlsxApi.as_view(), name="po-xlsx"),
    path("receipts/", purchasing_apis.ReceiptListApi.as_view(), name="receipt-list"),
    path("receipts/<int:pk>/", purchasing_apis.ReceiptDetailApi.as_view(), name="receipt-detail"),
]
