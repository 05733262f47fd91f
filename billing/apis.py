"""/api/v1/invoices/, /api/v1/payments/, /api/v1/transfer-documents/ (УПД), an order's margin and service
costs, and the 1C export (issue 36 items 4–7).

Customers see their own orders' invoices, payments and УПД (another customer's is 404) and never purchase
prices, suppliers or margins; sales engineers issue documents and record payments; catalog staff read
documents; the margin is for sales and superusers; the 1C export for sales and superusers.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, cast

from django.http import HttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from billing import services
from billing.exchange import export_catalog, export_documents, receipts_for_export
from billing.models import Invoice, InvoiceLine, Payment, TransferDocument
from billing.pdf import invoice_pdf, upd_pdf
from billing.selectors import invoice_get, invoice_visible, margin_of, payment_visible, upd_get, upd_visible
from config.api import ApiErrorSerializer, StandardPagination
from configurator.engine.errors import Forbidden, InvalidInput
from orders.models import Order
from orders.selectors import order_get, order_visible

ERRORS = {400: ApiErrorSerializer, 403: ApiErrorSerializer, 404: ApiErrorSerializer, 409: ApiErrorSerializer}
MONEY: dict[str, Any] = {"max_digits": 16, "decimal_places": 2}
ORDER_NUMBER = r"^O-[0-9]{4}-[0-9]{6,}$"
INVOICE_NUMBER = r"^INV-[0-9]{4}-[0-9]{6,}$"


def _user(request: Request) -> User:
    return cast(User, request.user)


class DocumentLineSerializer(serializers.ModelSerializer):
    class Meta:
        model = InvoiceLine
        fields = ("position", "sku", "name", "qty", "unit_price", "line_total", "vat", "gross")


class TotalsSerializer(serializers.Serializer):
    net = serializers.DecimalField(**MONEY, source="net_total")
    vat = serializers.DecimalField(**MONEY, source="vat_total")
    gross = serializers.DecimalField(**MONEY, source="gross_total")


class InvoiceSerializer(serializers.ModelSerializer):
    order = serializers.CharField(source="order.number", read_only=True)
    customer = serializers.CharField(source="order.owner.username", read_only=True)
    totals = TotalsSerializer(source="*", read_only=True)
    paid = serializers.DecimalField(**MONEY, source="paid_total", read_only=True)
    due = serializers.SerializerMethodField()
    lines = DocumentLineSerializer(many=True, read_only=True)
    pdf = serializers.SerializerMethodField()

    class Meta:
        model = Invoice
        fields = ("number", "order", "customer", "issued_on", "vat_percent", "totals", "paid", "due", "status",
                  "note", "lines", "pdf")  # fmt: skip

    @extend_schema_field(serializers.DecimalField(**MONEY))
    def get_due(self, invoice: Invoice) -> str:
        return f"{invoice.gross_total - invoice.paid_total:.2f}"

    @extend_schema_field(OpenApiTypes.STR)
    def get_pdf(self, invoice: Invoice) -> str:
        return reverse("invoice-pdf", kwargs={"number": invoice.number})


class TransferDocumentSerializer(serializers.ModelSerializer):
    order = serializers.CharField(source="order.number", read_only=True)
    customer = serializers.CharField(source="order.owner.username", read_only=True)
    totals = TotalsSerializer(source="*", read_only=True)
    lines = DocumentLineSerializer(many=True, read_only=True)
    pdf = serializers.SerializerMethodField()

    class Meta:
        model = TransferDocument
        fields = ("number", "order", "customer", "issued_on", "vat_percent", "totals", "lines", "pdf")

    @extend_schema_field(OpenApiTypes.STR)
    def get_pdf(self, document: TransferDocument) -> str:
        return reverse("transfer-document-pdf", kwargs={"number": document.number})


class PaymentSerializer(serializers.ModelSerializer):
    invoice = serializers.CharField(source="invoice.number", read_only=True)

    class Meta:
        model = Payment
        fields = ("id", "invoice", "amount", "paid_on", "reference", "prepayment", "created_at")


def _page_serializer(name: str, item: type[serializers.Serializer]) -> type[serializers.Serializer]:
    return type(name, (serializers.Serializer,), {
        "count": serializers.IntegerField(), "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True), "results": item(many=True),
    })  # fmt: skip


InvoicePageSerializer = _page_serializer("InvoicePageSerializer", InvoiceSerializer)
PaymentPageSerializer = _page_serializer("PaymentPageSerializer", PaymentSerializer)
TransferDocumentPageSerializer = _page_serializer("TransferDocumentPageSerializer", TransferDocumentSerializer)


def _paged(view: APIView, request: Request, queryset: Any, serializer: type[serializers.Serializer]) -> Response:
    paginator = StandardPagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response(serializer(page, many=True).data)


def _biller(user: User) -> None:
    if not services.may_bill(user):
        raise Forbidden("Only sales engineers may issue documents and record payments.")


def _order_from_body(user: User, number: str) -> Order:
    order = order_visible(user=user).filter(number=number).first()
    if order is None:
        raise InvalidInput(f"No order {number}.", fields={"order": ["no order with this number"]})
    return order


class OrderRefSerializer(serializers.Serializer):
    order = serializers.RegexField(ORDER_NUMBER, help_text="The order's number, O-<year>-<6 digits>")


class InvoiceListFilterSerializer(serializers.Serializer):
    order = serializers.RegexField(ORDER_NUMBER, required=False, help_text="Only this order's invoices")


class InvoiceListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="invoices_list", parameters=[InvoiceListFilterSerializer],
                   responses={200: InvoicePageSerializer, 400: ApiErrorSerializer})  # fmt: skip
    def get(self, request: Request) -> Response:
        filters = InvoiceListFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        queryset = invoice_visible(user=_user(request), order=filters.validated_data.get("order", ""))
        return _paged(self, request, queryset.prefetch_related("lines"), InvoiceSerializer)

    @extend_schema(operation_id="invoices_create", request=OrderRefSerializer,
                   responses={201: InvoiceSerializer, 200: InvoiceSerializer, **ERRORS})  # fmt: skip
    def post(self, request: Request) -> Response:
        """Issue the order's invoice for payment (201), or return the one issued before (200)."""
        user = _user(request)
        _biller(user)
        body = OrderRefSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        invoice, created = services.invoice_create(
            order=_order_from_body(user, body.validated_data["order"]), user=user
        )
        return Response(
            InvoiceSerializer(invoice).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )


class InvoiceDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="invoices_retrieve", responses={200: InvoiceSerializer, **ERRORS})
    def get(self, request: Request, number: str) -> Response:
        return Response(InvoiceSerializer(invoice_get(user=_user(request), number=number)).data)


def _pdf_response(content: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


PDF_RESPONSES: dict[Any, Any] = {
    (200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description="The PDF file, in Russian"),
    **ERRORS,
}


class InvoicePdfApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="invoices_pdf", responses=PDF_RESPONSES)
    def get(self, request: Request, number: str) -> HttpResponse:
        invoice = invoice_get(user=_user(request), number=number)
        return _pdf_response(invoice_pdf(invoice), f"{invoice.number}.pdf")


class PaymentListFilterSerializer(serializers.Serializer):
    invoice = serializers.RegexField(INVOICE_NUMBER, required=False, help_text="Only this invoice's payments")


class PaymentInputSerializer(serializers.Serializer):
    invoice = serializers.RegexField(INVOICE_NUMBER, help_text="The invoice's number, INV-<year>-<6 digits>")
    amount = serializers.DecimalField(max_digits=14, decimal_places=2, min_value=Decimal("0.01"),
                                      help_text="Roubles; at most what is still due")  # fmt: skip
    paid_on = serializers.DateField(required=False, help_text="The day the money arrived (default today)")
    reference = serializers.CharField(required=False, default="", allow_blank=True, max_length=100)


class PaymentListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="payments_list", parameters=[PaymentListFilterSerializer],
                   responses={200: PaymentPageSerializer, 400: ApiErrorSerializer})  # fmt: skip
    def get(self, request: Request) -> Response:
        filters = PaymentListFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        queryset = payment_visible(user=_user(request), invoice=filters.validated_data.get("invoice", ""))
        return _paged(self, request, queryset, PaymentSerializer)

    @extend_schema(operation_id="payments_create", request=PaymentInputSerializer,
                   responses={201: PaymentSerializer, **ERRORS})  # fmt: skip
    def post(self, request: Request) -> Response:
        """Record money received against an invoice (a prepayment before the order ships)."""
        user = _user(request)
        _biller(user)
        body = PaymentInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        invoice = invoice_visible(user=user).filter(number=data["invoice"]).first()
        if invoice is None:
            raise InvalidInput(f"No invoice {data['invoice']}.", fields={"invoice": ["no invoice with this number"]})
        payment = services.payment_record(invoice=invoice, amount=data["amount"], user=user,
                                          paid_on=data.get("paid_on"), reference=data["reference"])  # fmt: skip
        return Response(PaymentSerializer(payment).data, status=status.HTTP_201_CREATED)


class TransferDocumentListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="transfer_documents_list", responses={200: TransferDocumentPageSerializer})
    def get(self, request: Request) -> Response:
        queryset = upd_visible(user=_user(request)).prefetch_related("lines")
        return _paged(self, request, queryset, TransferDocumentSerializer)

    @extend_schema(operation_id="transfer_documents_create", request=OrderRefSerializer,
                   responses={201: TransferDocumentSerializer, 200: TransferDocumentSerializer, **ERRORS})  # fmt: skip
    def post(self, request: Request) -> Response:
        """Make the shipped order's УПД (201), or return the one made before (200); 409 before shipment."""
        user = _user(request)
        _biller(user)
        body = OrderRefSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        document, created = services.upd_create(order=_order_from_body(user, body.validated_data["order"]), user=user)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(TransferDocumentSerializer(document).data, status=code)


class TransferDocumentPdfApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="transfer_documents_pdf", responses=PDF_RESPONSES)
    def get(self, request: Request, number: str) -> HttpResponse:
        document = upd_get(user=_user(request), number=number)
        return _pdf_response(upd_pdf(document), f"{document.number}.pdf")


class MarginSerializer(serializers.Serializer):
    revenue_net = serializers.DecimalField(**MONEY, help_text="The order's total without VAT")
    purchase_cost = serializers.DecimalField(**MONEY, help_text="The purchase lines in roubles at today's rates")
    service_cost = serializers.DecimalField(**MONEY)
    margin = serializers.DecimalField(**MONEY)
    percent = serializers.DecimalField(max_digits=8, decimal_places=2, allow_null=True)
    uncounted = serializers.ListField(child=serializers.CharField(), help_text="Purchase lines with no rate")
    complete = serializers.BooleanField()


class OrderMarginApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="orders_margin", responses={200: MarginSerializer, **ERRORS})
    def get(self, request: Request, number: str) -> Response:
        user = _user(request)
        return Response(MarginSerializer(margin_of(user=user, order=order_get(user=user, number=number))).data)


class ServiceCostInputSerializer(serializers.Serializer):
    description = serializers.CharField(max_length=200)
    amount_rub = serializers.DecimalField(max_digits=14, decimal_places=2, min_value=Decimal("0.01"))


class OrderServiceCostApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="orders_service_costs_create", request=ServiceCostInputSerializer,
                   responses={201: MarginSerializer, **ERRORS})  # fmt: skip
    def post(self, request: Request, number: str) -> Response:
        """Record what delivering the order cost besides its parts; answers the margin with it."""
        user = _user(request)
        order = order_get(user=user, number=number)
        _biller(user)
        body = ServiceCostInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.service_cost_add(order=order, user=user, **body.validated_data)
        return Response(MarginSerializer(margin_of(user=user, order=order)).data, status=status.HTTP_201_CREATED)


XML_RESPONSES: dict[Any, Any] = {
    (200, "application/xml"): OpenApiResponse(OpenApiTypes.STR, description="CommerceML 2.10 XML"),
    403: ApiErrorSerializer,
}


def _xml_response(content: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type="application/xml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class OneCDocumentsApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="exchange_1c_documents", responses=XML_RESPONSES)
    def get(self, request: Request) -> HttpResponse:
        """Every invoice with its customer and every goods receipt with its supplier, as CommerceML 2.10
        documents for 1C."""
        user = _user(request)
        _biller(user)
        invoices = invoice_visible(user=user).prefetch_related("lines").order_by("issued_on", "id")
        return _xml_response(export_documents(invoices, receipts_for_export()), "documents.xml")


class OneCCatalogApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="exchange_1c_catalog", responses=XML_RESPONSES)
    def get(self, request: Request) -> HttpResponse:
        """The items sold on the invoices, as a CommerceML 2.10 classifier and catalog for 1C."""
        user = _user(request)
        _biller(user)
        return _xml_response(export_catalog(invoice_visible(user=user).prefetch_related("lines")), "import.xml")
