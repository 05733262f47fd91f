"""GET /api/v1/suppliers/: the suppliers with their live offers' count (sales and catalog staff).
POST /api/v1/suppliers/<slug>/price-lists: preview or apply a supplier's price list (catalog staff): the
admin's upload as an API, through the same services (procurement/services.py)."""

from __future__ import annotations

from typing import Any, cast

from django.db.models import Count, Q
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from config.api import ApiErrorSerializer, error_body
from configurator.engine.errors import Conflict, ErrorCode, Forbidden, InvalidInput, NotFound
from procurement.conf import setting
from procurement.models import PriceListImport, PriceListScope, Supplier
from procurement.pricelist.files import PriceListTooLarge
from procurement.services import price_list_apply, price_list_preview


class SupplierOutputSerializer(serializers.ModelSerializer):
    live_offers = serializers.IntegerField(read_only=True)
    stale_offers = serializers.IntegerField(read_only=True)

    class Meta:
        model = Supplier
        fields = ("slug", "name", "currency", "contact", "terms", "is_sample", "live_offers", "stale_offers")


class SupplierListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="suppliers_list",
        responses={200: SupplierOutputSerializer(many=True), 403: ApiErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        user = cast(User, request.user)
        if not (user.is_sales or user.is_catalog_staff or user.is_superuser):
            raise Forbidden("Only sales and catalog staff see suppliers.")
        today = timezone.localdate()
        suppliers = Supplier.objects.annotate(
            live_offers=Count("offers", filter=Q(offers__valid_until__gte=today)),
            stale_offers=Count("offers", filter=Q(offers__valid_until__lt=today)),
        ).order_by("name")
        return Response(SupplierOutputSerializer(suppliers, many=True).data)


# --------------------------------------------------------------------------- POST suppliers/<slug>/price-lists

CONFIRMATION_REQUIRED = "confirmation_required"
ERRORS_SAID = 20  # a refused apply names this many bad cells in its `fields.file`
MULTIPART_SLACK_BYTES = 1024 * 1024  # the form's other fields and boundaries beside the file


class PriceListInputSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="The price list: .csv or .xlsx (the first visible sheet)")
    scope = serializers.ChoiceField(
        choices=PriceListScope.choices,
        required=False,
        help_text="partial: changes the offers it lists; full: also retires the supplier's offers it does not "
        "list (never those holding reservations). Default: the supplier's setting",
    )
    apply = serializers.BooleanField(default=False, help_text="Apply the list after the preview (default: preview)")
    confirm_held = serializers.BooleanField(
        default=False, help_text="Apply price moves beyond PROCUREMENT_PRICE_HOLD_PERCENT (±30 %) too"
    )
    confirm_retire = serializers.BooleanField(default=False, help_text="Retire the offers a full list leaves out")

    def validate_file(self, upload: Any) -> Any:
        if not upload.name.lower().endswith((".csv", ".xlsx")):
            raise serializers.ValidationError("only .csv and .xlsx files")
        return upload


class _FileSerializer(serializers.Serializer):
    encoding = serializers.CharField(allow_null=True, help_text="CSV: the encoding found")
    delimiter = serializers.CharField(allow_null=True, help_text="CSV: the delimiter found")
    header_line = serializers.IntegerField(allow_null=True, help_text="The file's row holding the header")
    columns = serializers.DictField(child=serializers.CharField(), help_text="Our field → the file's header")


class _SkippedSerializer(serializers.Serializer):
    blank = serializers.IntegerField()
    category = serializers.IntegerField()
    total = serializers.IntegerField()
    header = serializers.IntegerField(help_text="The header repeated")


class _UnmatchedSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    part_number = serializers.CharField()
    name = serializers.CharField()


class _RowErrorSerializer(serializers.Serializer):
    line = serializers.IntegerField(help_text="The file's row (0: the file as a whole)")
    field = serializers.CharField(help_text="Our field")
    column = serializers.CharField(help_text="The file's column header")
    value = serializers.CharField(help_text="The value found (cut to 200 characters)")
    reason = serializers.CharField()


class _MoveSerializer(serializers.Serializer):
    sku = serializers.CharField()
    old = serializers.DecimalField(max_digits=16, decimal_places=2, coerce_to_string=True)
    old_currency = serializers.CharField()
    new = serializers.DecimalField(max_digits=16, decimal_places=2, coerce_to_string=True)
    currency = serializers.CharField()
    percent = serializers.CharField(help_text="Signed, in roubles when the currencies differ; empty: no rate")


class _CurrencySerializer(serializers.Serializer):
    currency = serializers.CharField()
    rows = serializers.IntegerField()
    rate = serializers.CharField(allow_null=True, help_text="Roubles per unit (null for RUB)")
    rate_date = serializers.DateField(allow_null=True, help_text="The day the rate was set for")
    # the metaclass pops declared fields, so this does not shadow Field.source at runtime
    source = serializers.CharField(allow_null=True, help_text="cbr or manual")  # type: ignore[assignment]


class _ConvertedSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    sku = serializers.CharField()
    price = serializers.CharField()
    currency = serializers.CharField()
    rub = serializers.CharField(help_text="At the rate of `currencies`")


class _VatSerializer(serializers.Serializer):
    included = serializers.BooleanField()
    percent = serializers.CharField(help_text="The VAT rate the prices were stored net of")
    day = serializers.DateField()
    said_by = serializers.CharField(help_text="The supplier's setting, or the price header that said it")


class _NeedsSerializer(serializers.Serializer):
    held = serializers.IntegerField()
    gone = serializers.IntegerField()


class PriceListOutputSerializer(serializers.Serializer):
    import_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=PriceListImport.Status.choices)
    applied = serializers.BooleanField()
    filename = serializers.CharField()
    scope = serializers.ChoiceField(choices=PriceListScope.choices)
    file = _FileSerializer()
    rows = serializers.IntegerField(help_text="Offers read")
    skipped = _SkippedSerializer()
    unmatched = _UnmatchedSerializer(many=True, help_text="Part numbers we do not know: not imported")
    unmatched_total = serializers.IntegerField()
    errors = _RowErrorSerializer(many=True)  # type: ignore[assignment]  # popped by the metaclass
    errors_total = serializers.IntegerField()
    new = serializers.ListField(child=serializers.CharField())
    moved = _MoveSerializer(many=True, help_text="Beyond PROCUREMENT_PRICE_MOVE_THRESHOLD_PERCENT")
    held = _MoveSerializer(many=True, help_text="Beyond PROCUREMENT_PRICE_HOLD_PERCENT: applied when confirmed")
    changed = serializers.ListField(child=serializers.CharField())
    gone = serializers.ListField(child=serializers.CharField(), help_text="Offers a full list retires")
    gone_reserved = serializers.ListField(child=serializers.CharField(), help_text="Left out but reserved: kept")
    without_price = serializers.ListField(child=serializers.CharField(), help_text="Price on request")
    unchanged = serializers.IntegerField()
    currencies = _CurrencySerializer(many=True)
    converted = _ConvertedSerializer(many=True)
    vat = _VatSerializer(allow_null=True)
    notes = serializers.ListField(child=serializers.CharField())
    needs_confirmation = _NeedsSerializer()


# what a report without a comparison (a file with errors), or of a file refused whole, leaves out
_EMPTY_REPORT: dict[str, Any] = {
    "file": {"encoding": None, "delimiter": None, "header_line": None, "columns": {}},
    "rows": 0,
    "skipped": {"blank": 0, "category": 0, "total": 0, "header": 0},
    "unmatched": [],
    "unmatched_total": 0,
    "errors": [],
    "errors_total": 0,
    "notes": [],
    "new": [],
    "moved": [],
    "held": [],
    "changed": [],
    "gone": [],
    "gone_reserved": [],
    "without_price": [],
    "unchanged": 0,
    "currencies": [],
    "converted": [],
    "vat": None,
    "needs_confirmation": {"held": 0, "gone": 0},
}  # fmt: skip


def _answer(price_import: PriceListImport) -> dict[str, Any]:
    report = {**_EMPTY_REPORT, **price_import.report}
    return {
        **report,
        "import_id": price_import.pk,
        "status": price_import.status,
        "applied": price_import.status == PriceListImport.Status.APPLIED,
        "filename": price_import.filename,
        "scope": price_import.scope,
    }


def _too_large(message: str) -> Response:
    return Response(error_body(ErrorCode.REQUEST_TOO_LARGE, message), status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)


class SupplierPriceListApi(APIView):
    """Preview a supplier's price list, or apply it (catalog staff)."""

    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser]

    @staticmethod
    def max_body_bytes() -> int:
        """The request body this view takes (config.api.ApiRequestLimitsMiddleware): a price list at its size
        limit and the form around it, so a larger file gets this view's 413 saying its size."""
        return int(setting("PRICE_LIST_MAX_BYTES")) + MULTIPART_SLACK_BYTES

    @extend_schema(
        operation_id="suppliers_price_lists_create",
        request={"multipart/form-data": PriceListInputSerializer},
        responses={
            200: PriceListOutputSerializer,
            400: OpenApiResponse(
                ApiErrorSerializer,
                description="Bad input (`fields` names it): more than one file (`fields.file`: one file per "
                "request); with apply=true, a file with bad cells (`fields.file`)",
            ),
            403: ApiErrorSerializer,
            404: ApiErrorSerializer,
            409: OpenApiResponse(
                ApiErrorSerializer,
                description="`confirmation_required`: held price moves (`fields.confirm_held`) or offers to retire "
                "(`fields.confirm_retire`) were not confirmed; nothing changed",
            ),
            413: OpenApiResponse(
                ApiErrorSerializer,
                description="The file is over the size limits (PROCUREMENT_PRICE_LIST_MAX_BYTES, _ROWS, _COLUMNS)",
            ),
            415: OpenApiResponse(ApiErrorSerializer, description="The body is not multipart/form-data"),
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        """Read the file with the supplier's format (the report: rows read, skipped, unmatched part numbers,
        bad cells, price moves, held moves, offers to retire, currencies and VAT); with `apply`, apply it:
        held moves and retirements need `confirm_held` / `confirm_retire` (else 409, nothing changed)."""
        user = cast(User, request.user)
        if not user.is_catalog_staff:
            raise Forbidden("Only catalog staff upload price lists.")
        supplier = Supplier.objects.filter(slug=slug).first()
        if supplier is None:
            raise NotFound(f"No supplier {slug!r}.")
        sent = sum(len(request.FILES.getlist(name)) for name in request.FILES)
        if sent > 1:  # the form's last `file` would be read, the others dropped without a word
            raise InvalidInput(
                f"Send one price list per request: {sent} files were sent; nothing was read.",
                fields={"file": [f"one file per request ({sent} files were sent)"]},
            )
        body = PriceListInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        upload = data["file"]
        limit = setting("PRICE_LIST_MAX_BYTES")
        if upload.size > limit:
            return _too_large(f"The file is {upload.size} bytes; the limit is {limit} bytes.")
        try:
            price_import = price_list_preview(
                supplier=supplier, filename=upload.name, content=upload.read(), user=user, scope=data.get("scope")
            )
        except PriceListTooLarge as exc:
            return _too_large(f"The price list is too large: {exc}.")
        if data["apply"]:
            price_import = _apply(
                price_import, confirm_held=data["confirm_held"], confirm_retire=data["confirm_retire"]
            )
        return Response(PriceListOutputSerializer(_answer(price_import)).data)


def _apply(price_import: PriceListImport, *, confirm_held: bool, confirm_retire: bool) -> PriceListImport:
    if price_import.status == PriceListImport.Status.FAILED:
        said = [error.get("text") or error.get("message", "") for error in price_import.report.get("errors", [])]
        raise InvalidInput(
            f"The price list has {price_import.report.get('errors_total', len(said))} bad cells; nothing was applied "
            f"(import {price_import.pk}).",
            fields={"file": said[:ERRORS_SAID]},
        )
    applied = price_list_apply(price_import=price_import, confirm_held=confirm_held, confirm_retire=confirm_retire)
    if applied.status == PriceListImport.Status.HELD:
        waiting = applied.report.get("unconfirmed", {})
        fields = {
            name: [f"{len(skus)} to confirm: {', '.join(skus[:ERRORS_SAID])}"]
            for name, skus in (("confirm_held", waiting.get("held", [])), ("confirm_retire", waiting.get("gone", [])))
            if skus
        }
        raise Conflict(
            f"Nothing changed: held price moves or offers to retire need confirmation (import {applied.pk}).",
            code=CONFIRMATION_REQUIRED,
            fields=fields,
        )
    return applied
