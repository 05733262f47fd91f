"""/api/v1/purchase-orders/, /api/v1/receipts/, an order's build steps and its delivery note (issue 36 item 7).

Purchase orders and receipts are sales' and catalog staff's (orders.selectors.may_see_purchases): a customer
gets 403 and never sees a purchase price or a supplier. The delivery note (no prices, no suppliers) is the
order's owner's too. `?serial=` finds the receipts (and, on /api/v1/orders/, the orders) of a serial number.
"""

from __future__ import annotations

from typing import Any, cast

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from config.api import ApiErrorSerializer, StandardPagination
from configurator.engine.errors import Forbidden
from configurator.engine.purchasing import serial_normal
from orders import purchasing
from orders.exports import XLSX_CONTENT_TYPE
from orders.models import (
    BuildStep,
    BuildStepKind,
    BuildStepResult,
    PurchaseOrder,
    PurchaseOrderLine,
    PurchaseOrderStatus,
    Receipt,
    ReceiptLine,
)
from orders.po_documents import delivery_note_pdf, po_pdf, po_xlsx
from orders.selectors import may_see_purchases, order_get

ERRORS = {400: ApiErrorSerializer, 403: ApiErrorSerializer, 404: ApiErrorSerializer, 409: ApiErrorSerializer}
MAX_SERIALS = 1000


def _user(request: Request) -> User:
    return cast(User, request.user)


def _staff(request: Request) -> User:
    user = _user(request)
    if not may_see_purchases(user):
        raise Forbidden("Only sales and catalog staff see purchase orders and receipts.")
    return user


def _po(number: str) -> PurchaseOrder:
    return get_object_or_404(PurchaseOrder.objects.select_related("supplier", "order"), number=number)


class PurchaseOrderLineSerializer(serializers.ModelSerializer):
    class Meta:
        model = PurchaseOrderLine
        fields = (
            "id", "sku", "supplier_sku", "kind", "qty", "received_qty", "unit_price", "line_total", "unit_price_rub",
            "line_total_rub", "expected_date",
        )  # fmt: skip


class PurchaseOrderSerializer(serializers.ModelSerializer):
    order = serializers.CharField(source="order.number", read_only=True)
    supplier = serializers.CharField(source="supplier.slug", read_only=True)
    supplier_name = serializers.CharField(source="supplier.name", read_only=True)
    lines = PurchaseOrderLineSerializer(many=True, read_only=True)

    class Meta:
        model = PurchaseOrder
        fields = (
            "number", "order", "supplier", "supplier_name", "status", "currency", "rate", "rate_date", "total",
            "total_rub", "expected_date", "created_at", "sent_at", "emailed_at", "email_to", "lines",
        )  # fmt: skip


class PurchaseOrderPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = PurchaseOrderSerializer(many=True)


class PurchaseOrderFilterSerializer(serializers.Serializer):
    order = serializers.RegexField(r"^O-[0-9]{4}-[0-9]{6,}$", required=False, help_text="An order's number")
    status = serializers.ChoiceField(choices=PurchaseOrderStatus.choices, required=False)


class PurchaseOrderCreateSerializer(serializers.Serializer):
    order = serializers.RegexField(r"^O-[0-9]{4}-[0-9]{6,}$", help_text="The order whose plan to buy")


def _po_data(pos: list[PurchaseOrder]) -> Any:
    fresh = PurchaseOrder.objects.filter(pk__in=[po.pk for po in pos]).select_related("order", "supplier")
    return PurchaseOrderSerializer(fresh.prefetch_related("lines").order_by("supplier__slug"), many=True).data


class PurchaseOrderListApi(APIView):
    """Purchase orders, newest first (`?order=`, `?status=`); POST `{order}` makes the order's purchase
    orders from its plan, one per supplier: 201 the first time, 200 with the same ones after."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="purchase_orders_list",
        parameters=[PurchaseOrderFilterSerializer],
        responses={200: PurchaseOrderPageSerializer, 400: ApiErrorSerializer, 403: ApiErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        _staff(request)
        filters = PurchaseOrderFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        pos = PurchaseOrder.objects.select_related("order", "supplier").prefetch_related("lines")
        if "order" in filters.validated_data:
            pos = pos.filter(order__number=filters.validated_data["order"])
        if "status" in filters.validated_data:
            pos = pos.filter(status=filters.validated_data["status"])
        paginator = StandardPagination()
        page = paginator.paginate_queryset(pos, request, view=self)
        return paginator.get_paginated_response(PurchaseOrderSerializer(page, many=True).data)

    @extend_schema(
        operation_id="purchase_orders_create",
        request=PurchaseOrderCreateSerializer,
        responses={201: PurchaseOrderSerializer(many=True), 200: PurchaseOrderSerializer(many=True), **ERRORS},
    )
    def post(self, request: Request) -> Response:
        user = _staff(request)
        body = PurchaseOrderCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        order = order_get(user=user, number=body.validated_data["order"])
        made, created = purchasing.purchase_orders_create(order=order, user=user)
        return Response(_po_data(made), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class PurchaseOrderDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="purchase_orders_retrieve", responses={200: PurchaseOrderSerializer, **ERRORS})
    def get(self, request: Request, number: str) -> Response:
        _staff(request)
        return Response(_po_data([_po(number)])[0])


class PurchaseOrderTransitionSerializer(serializers.Serializer):
    to = serializers.ChoiceField(
        choices=[("sent", "sent"), ("confirmed", "confirmed"), ("cancelled", "cancelled")],
        help_text="sent: e-mailed to the supplier (Celery); the received states follow from receipts",
    )


class PurchaseOrderTransitionApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="purchase_orders_transition",
        request=PurchaseOrderTransitionSerializer,
        responses={200: PurchaseOrderSerializer, **ERRORS},
    )
    def post(self, request: Request, number: str) -> Response:
        user = _staff(request)
        body = PurchaseOrderTransitionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        po = purchasing.po_transition(po=_po(number), to=body.validated_data["to"], user=user)
        return Response(_po_data([po])[0])


def _attachment(content: bytes, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class PurchaseOrderPdfApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="purchase_orders_pdf",
        responses={(200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY), **ERRORS},
    )
    def get(self, request: Request, number: str) -> HttpResponse:
        _staff(request)
        po = _po(number)
        return _attachment(po_pdf(po), "application/pdf", f"{po.number}.pdf")


class PurchaseOrderXlsxApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="purchase_orders_xlsx",
        responses={(200, XLSX_CONTENT_TYPE): OpenApiResponse(OpenApiTypes.BINARY), **ERRORS},
    )
    def get(self, request: Request, number: str) -> HttpResponse:
        _staff(request)
        po = _po(number)
        return _attachment(po_xlsx(po), XLSX_CONTENT_TYPE, f"{po.number}.xlsx")


class ReceiptLineSerializer(serializers.ModelSerializer):
    line = serializers.IntegerField(source="po_line_id", read_only=True)
    sku = serializers.CharField(source="po_line.sku", read_only=True)
    serials: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="serial", many=True, read_only=True
    )

    class Meta:
        model = ReceiptLine
        fields = ("line", "sku", "qty", "serials", "country_code", "country_name", "declaration")


class ReceiptSerializer(serializers.ModelSerializer):
    purchase_order = serializers.CharField(source="purchase_order.number", read_only=True)
    order = serializers.CharField(source="purchase_order.order.number", read_only=True)
    received_by = serializers.CharField(source="received_by.username", read_only=True)
    lines = ReceiptLineSerializer(many=True, read_only=True)

    class Meta:
        model = Receipt
        fields = ("id", "purchase_order", "order", "received_by", "received_at", "note", "lines")


class ReceiptPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = ReceiptSerializer(many=True)


class ReceiptFilterSerializer(serializers.Serializer):
    purchase_order = serializers.RegexField(r"^PO-[0-9]{4}-[0-9]{6,}$", required=False)
    serial = serializers.CharField(required=False, max_length=100, help_text="A serial number received (exact)")


#: The largest id a BigAutoField (settings.DEFAULT_AUTO_FIELD) holds: a larger number in a body or a path is
#: no row, and handed to the database it is an overflow error (a 500), not a 400 or a 404.
BIGINT_MAX = 2**63 - 1


class ReceiptLineInputSerializer(serializers.Serializer):
    line = serializers.IntegerField(min_value=1, max_value=BIGINT_MAX, help_text="The purchase-order line's id")
    qty = serializers.IntegerField(min_value=1, max_value=100000)
    serials = serializers.ListField(
        child=serializers.CharField(max_length=100, allow_blank=True),
        required=False,
        default=list,
        max_length=MAX_SERIALS,
        help_text="One per unit for GPUs, CPUs, drives and power supplies; none for the other kinds",
    )
    country_code = serializers.CharField(
        required=False, default="", allow_blank=True, max_length=3, help_text="Country of origin, ОКСМ (156, 158)"
    )
    country_name = serializers.CharField(
        required=False, default="", allow_blank=True, max_length=60, help_text="Its ОКСМ short name (from the code)"
    )
    declaration = serializers.CharField(
        required=False, default="", allow_blank=True, max_length=40, help_text="ДТ number: 10702070/011226/3012345"
    )


class ReceiptInputSerializer(serializers.Serializer):
    purchase_order = serializers.RegexField(r"^PO-[0-9]{4}-[0-9]{6,}$")
    note = serializers.CharField(required=False, default="", allow_blank=True, max_length=500)
    lines = serializers.ListField(child=ReceiptLineInputSerializer(), allow_empty=False, max_length=500)


def _receipts() -> Any:
    return Receipt.objects.select_related("purchase_order__order", "received_by").prefetch_related(
        "lines__po_line", "lines__serials"
    )


class ReceiptListApi(APIView):
    """Receipts, newest first (`?purchase_order=`, `?serial=`); POST records one."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="receipts_list",
        parameters=[ReceiptFilterSerializer],
        responses={200: ReceiptPageSerializer, 400: ApiErrorSerializer, 403: ApiErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        _staff(request)
        filters = ReceiptFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        receipts = _receipts()
        if "purchase_order" in filters.validated_data:
            receipts = receipts.filter(purchase_order__number=filters.validated_data["purchase_order"])
        if "serial" in filters.validated_data:
            receipts = receipts.filter(
                lines__serials__serial=serial_normal(filters.validated_data["serial"])
            ).distinct()
        paginator = StandardPagination()
        page = paginator.paginate_queryset(receipts, request, view=self)
        return paginator.get_paginated_response(ReceiptSerializer(page, many=True).data)

    @extend_schema(
        operation_id="receipts_create", request=ReceiptInputSerializer, responses={201: ReceiptSerializer, **ERRORS}
    )
    def post(self, request: Request) -> Response:
        user = _staff(request)
        body = ReceiptInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        lines = [
            purchasing.ReceiptLineInput(item["line"], item["qty"], item["serials"], item["country_code"],
                                        item["country_name"], item["declaration"])
            for item in data["lines"]
        ]  # fmt: skip
        receipt = purchasing.receipt_record(po=_po(data["purchase_order"]), lines=lines, user=user, note=data["note"])
        return Response(ReceiptSerializer(_receipts().get(pk=receipt.pk)).data, status=status.HTTP_201_CREATED)


class ReceiptDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="receipts_retrieve", responses={200: ReceiptSerializer, **ERRORS})
    def get(self, request: Request, pk: int) -> Response:
        _staff(request)
        receipt = _receipts().filter(pk=pk).first() if pk <= BIGINT_MAX else None  # a larger one overflows the query
        if receipt is None:
            raise Http404(f"No receipt {pk}.")
        return Response(ReceiptSerializer(receipt).data)


class BuildStepInputSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=BuildStepKind.choices)
    result = serializers.ChoiceField(choices=BuildStepResult.choices)
    note = serializers.CharField(required=False, default="", allow_blank=True, max_length=500)


class BuildStepSerializer(serializers.ModelSerializer):
    done_by = serializers.CharField(source="done_by.username", read_only=True)

    class Meta:
        model = BuildStep
        fields = ("kind", "result", "note", "done_by", "done_at")


class OrderBuildStepsApi(APIView):
    """Record assembly or burn-in of the order's server (staff): who, when, result."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="orders_build_step",
        request=BuildStepInputSerializer,
        responses={201: BuildStepSerializer, **ERRORS},
    )
    def post(self, request: Request, number: str) -> Response:
        user = _user(request)
        order = order_get(user=user, number=number)
        body = BuildStepInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        step = purchasing.build_step_record(order=order, user=user, **body.validated_data)
        return Response(BuildStepSerializer(step).data, status=status.HTTP_201_CREATED)


class OrderDeliveryNoteApi(APIView):
    """The delivery note of the order's server (PDF, Russian) with its parts' serial numbers."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="orders_delivery_note",
        responses={(200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY), **ERRORS},
    )
    def get(self, request: Request, number: str) -> HttpResponse:
        order = order_get(user=_user(request), number=number)
        return _attachment(delivery_note_pdf(order), "application/pdf", f"{order.number}-delivery-note.pdf")
