"""/api/v1/quotes/: create, list, detail by number, status actions and the PDF (ARCHITECTURE.md §Quotes).

Every view needs an account. Customers see only their own quotes (another customer's quote is 404);
sales engineers see all. A view validates its input, calls one service or selector and serializes;
errors come back in the envelope of config/api.py (`invalid_transition` names from/to, 409).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar, cast

from django.db import transaction
from django.http import FileResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import CUSTOMERS, User
from config.api import ApiErrorSerializer, StandardPagination, WriteScopedRateThrottle
from config.renderers import FastJSONRenderer
from configurator.engine.errors import Conflict, ErrorCode, InvalidInput
from configurator.models import SavedBuild
from quotes import services
from quotes.inputs import OptionalLineInputSerializer, QuoteRequestFieldsSerializer, request_fields
from quotes.models import Quote, QuoteEvent, QuoteLine, QuoteStatus, RenderStatus
from quotes.policy import is_latest, quote_create_permission
from quotes.selectors import quote_get, quote_list, quote_revisions
from quotes.services.create import MAX_OPTIONAL_LINES

IDEMPOTENCY_KEY_MAX = 100


# --------------------------------------------------------------------------- shared serializers


class QuoteTotalsSerializer(serializers.Serializer):
    net = serializers.DecimalField(max_digits=14, decimal_places=2, source="net_total")
    vat = serializers.DecimalField(max_digits=14, decimal_places=2, source="vat_total")
    gross = serializers.DecimalField(max_digits=14, decimal_places=2, source="gross_total")


class QuotePartySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.EmailField()
    company = serializers.CharField()


class QuoteLineOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = QuoteLine
        fields = QuoteLine.SHOWN_FIELDS


class QuoteEventOutputSerializer(serializers.ModelSerializer):
    user: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = QuoteEvent
        fields = ("type", "data", "user", "created_at")


class QuotePdfSerializer(serializers.Serializer):
    status = serializers.CharField(source="render_status", help_text="pending | generating | ready | failed")
    sha256 = serializers.CharField(source="pdf_sha256")
    url = serializers.SerializerMethodField()

    def get_url(self, quote: Quote) -> str | None:
        if quote.render_status != RenderStatus.READY:
            return None
        return f"{reverse('quote-pdf', kwargs={'number': quote.number})}?revision={quote.revision}"


class QuoteSummarySerializer(serializers.ModelSerializer):
    customer = QuotePartySerializer(source="owner", read_only=True)
    created_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(slug_field="username", read_only=True)
    is_latest = serializers.SerializerMethodField()
    needs_approval = serializers.BooleanField(read_only=True)
    totals = QuoteTotalsSerializer(source="*", read_only=True)
    pdf = QuotePdfSerializer(source="*", read_only=True)

    class Meta:
        model = Quote
        fields: tuple[str, ...] = (
            "number",
            "revision",
            "status",
            "is_latest",
            "customer",
            "created_by",
            "currency",
            "vat_percent",
            "discount_percent",
            "needs_approval",
            "totals",
            "valid_until",
            "sent_at",
            "pdf",
            "created_at",
            "updated_at",
        )

    def get_is_latest(self, quote: Quote) -> bool:
        return is_latest(quote)


class QuoteDetailSerializer(QuoteSummarySerializer):
    revisions = serializers.SerializerMethodField()
    lines = QuoteLineOutputSerializer(many=True, read_only=True)
    build = serializers.JSONField(source="build_payload", read_only=True)
    verdict = serializers.JSONField(read_only=True)
    events = QuoteEventOutputSerializer(many=True, read_only=True)

    class Meta(QuoteSummarySerializer.Meta):
        fields = (*QuoteSummarySerializer.Meta.fields, "revisions", "terms", "lines", "build", "verdict", "events")

    def get_revisions(self, quote: Quote) -> list[int]:
        return quote_revisions(quote=quote)


class QuotePageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = QuoteSummarySerializer(many=True)


def _detail(quote: Quote) -> dict[str, Any]:
    fresh = (
        Quote.objects.select_related("owner", "created_by").prefetch_related("lines", "events__user").get(pk=quote.pk)
    )
    return dict(QuoteDetailSerializer(fresh).data)


REVISION_PARAMETER = OpenApiParameter(
    "revision", int, description="A revision number (default: the latest revision)", required=False
)
NUMBER_PARAMETER = OpenApiParameter(
    "number", str, location=OpenApiParameter.PATH, description="Quote number, e.g. Q-2026-000123"
)


def _revision(request: Request) -> int | None:
    raw = request.query_params.get("revision") or ""
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise InvalidInput("The revision must be a positive integer.", fields={"revision": ["a positive integer"]})
    return value


def _user(request: Request) -> User:
    return cast(User, request.user)  # IsAuthenticated ran first


# --------------------------------------------------------------------------- list and create


class QuoteCreateInputSerializer(QuoteRequestFieldsSerializer):
    build = serializers.JSONField(
        required=False, help_text="A build body, as for POST /api/v1/builds/validate (with optional workload)"
    )
    saved_build = serializers.IntegerField(required=False, min_value=1, help_text="Id of a saved build")
    customer = serializers.IntegerField(
        required=False, min_value=1, help_text="The customer's user id (sales only; default: yourself)"
    )
    acknowledge_warnings = serializers.BooleanField(default=False)
    discount_percent = serializers.DecimalField(
        max_digits=5, decimal_places=2, min_value=Decimal(0), max_value=Decimal(100), default=Decimal(0)
    )
    optional_lines = OptionalLineInputSerializer(  # type: ignore[call-arg]  # the stubs lack ListSerializer's kwargs
        many=True,
        required=False,
        max_length=MAX_OPTIONAL_LINES,
        help_text=f"Offered, not in totals; at most {MAX_OPTIONAL_LINES} lines (more is a 400 naming the limit)",
    )

    def validate_build(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise serializers.ValidationError("Expected a build object.")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("build" in attrs) == ("saved_build" in attrs):
            raise serializers.ValidationError({"build": ["Give either build or saved_build."]})
        return attrs


class QuoteListFilterSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=QuoteStatus.choices, required=False)
    latest = serializers.BooleanField(required=False, default=False)


class QuoteListCreateApi(APIView):
    """List the quotes you may see (GET) or make a quote from a build (POST, throttled per user)."""

    permission_classes = [IsAuthenticated]
    throttle_classes = [WriteScopedRateThrottle]
    throttle_scope = "quote_create"

    InputSerializer = QuoteCreateInputSerializer
    FilterSerializer = QuoteListFilterSerializer

    @extend_schema(
        operation_id="quotes_list",
        description="The quotes you may see, newest first: your own (customers) or all (sales), paginated.",
        parameters=[
            OpenApiParameter("status", str, enum=QuoteStatus.values, required=False),
            OpenApiParameter("latest", bool, required=False, description="Only the latest revision of each number"),
            OpenApiParameter("page", int, required=False),
            OpenApiParameter("page_size", int, required=False),
        ],
        responses={200: QuotePageSerializer, 400: ApiErrorSerializer, 403: ApiErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        queryset = quote_list(
            user=_user(request),
            status=filters.validated_data.get("status"),
            latest_only=filters.validated_data["latest"],
        )
        paginator = StandardPagination()
        page = paginator.paginate_queryset(queryset, request, view=self)
        return paginator.get_paginated_response(QuoteSummarySerializer(page, many=True).data)

    @extend_schema(
        operation_id="quotes_create",
        description=(
            "Make a draft quote from a build body or a saved build. Refused (400) when the build has errors "
            "(`build_invalid`) or unacknowledged warnings (`warnings_not_acknowledged`). The PDF is rendered "
            "in the background; `pdf.status` tells when it is ready."
        ),
        request=InputSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                location=OpenApiParameter.HEADER,
                required=False,
                description=(
                    "Repeat a request with the same key to get the same quote back (200) instead of a new one; "
                    "the same key with a different body is refused (422 `idempotency_mismatch`)"
                ),
            )
        ],
        responses={
            201: QuoteDetailSerializer,
            200: OpenApiResponse(QuoteDetailSerializer, description="Replay of an earlier request with this key"),
            400: ApiErrorSerializer,
            403: ApiErrorSerializer,
            404: ApiErrorSerializer,
            422: ApiErrorSerializer,
        },
    )
    def post(self, request: Request) -> Response:
        user = _user(request)
        key = request.headers.get("Idempotency-Key", "").strip() or None
        if key is not None and len(key) > IDEMPOTENCY_KEY_MAX:
            raise InvalidInput(
                "The Idempotency-Key header is too long.",
                fields={"Idempotency-Key": [f"at most {IDEMPOTENCY_KEY_MAX} characters"]},
            )
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        customer = user
        if data.get("customer") is not None and data["customer"] != user.pk:
            # refused before the customer is looked up, so no one can probe for user ids
            if not (decision := quote_create_permission(user=user, customer_id=data["customer"])):
                raise decision.error()
            found = User.objects.filter(pk=data["customer"], is_active=True).first()
            if found is None:
                raise InvalidInput("Unknown customer.", fields={"customer": ["no active user with this id"]})
            customer = found
        if data.get("customer") is not None and not customer.in_group(CUSTOMERS):
            raise InvalidInput(
                "Quotes are made for customers only; this user is not a customer.",
                fields={"customer": ["not a member of the customers group"]},
            )
        saved_build = None
        if "saved_build" in data:
            builds = SavedBuild.objects.all() if user.is_sales else SavedBuild.objects.filter(owner=user)
            saved_build = builds.filter(pk=data["saved_build"]).first()
            if saved_build is None:
                raise InvalidInput("Unknown saved build.", fields={"saved_build": ["no saved build with this id"]})
        # The answer is read inside the creating transaction: once it commits nothing else touches the
        # database, so a create that committed answers its quote (a database outage before the commit
        # rolls it back and answers 503; the client retries with the same key).
        with transaction.atomic():
            quote = services.quote_create(
                customer=customer,
                created_by=user,
                payload=data.get("build"),
                saved_build=saved_build,
                idempotency_key=key,
                acknowledge_warnings=data["acknowledge_warnings"],
                discount_percent=data["discount_percent"],
                **request_fields(data),
            )
            body = _detail(quote)
        response = Response(body, status=status.HTTP_200_OK if quote.replayed else status.HTTP_201_CREATED)
        if quote.replayed:
            response["Idempotent-Replayed"] = "true"
        return response


class QuoteDetailApi(APIView):
    """One quote by number: the latest revision, or `?revision=`."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="quotes_retrieve",
        parameters=[NUMBER_PARAMETER, REVISION_PARAMETER],
        responses={200: QuoteDetailSerializer, 403: ApiErrorSerializer, 404: ApiErrorSerializer},
    )
    def get(self, request: Request, number: str) -> Response:
        return Response(_detail(quote_get(user=_user(request), number=number, revision=_revision(request))))


# --------------------------------------------------------------------------- actions


class _QuoteActionApi(APIView):
    """POST …/<number>/<action>/ on the latest revision (or `?revision=`), answering the quote after it."""

    permission_classes = [IsAuthenticated]
    InputSerializer: ClassVar[type[serializers.Serializer] | None] = None
    success_status: int = status.HTTP_200_OK

    def act(self, quote: Quote, user: User, data: dict[str, Any]) -> Quote:  # pragma: no cover - abstract
        raise NotImplementedError

    def post(self, request: Request, number: str) -> Response:
        user = _user(request)
        quote = quote_get(user=user, number=number, revision=_revision(request))
        data: dict[str, Any] = {}
        if self.InputSerializer is not None:
            serializer = self.InputSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = dict(serializer.validated_data)
        return Response(_detail(self.act(quote, user, data)), status=self.success_status)


def _action_schema(operation_id: str, description: str, request: Any = None, success: int = 200) -> Any:
    return extend_schema_view(
        post=extend_schema(
            operation_id=operation_id,
            description=description,
            parameters=[NUMBER_PARAMETER, REVISION_PARAMETER],
            request=request,
            responses={
                success: QuoteDetailSerializer,
                400: ApiErrorSerializer,
                403: ApiErrorSerializer,
                404: ApiErrorSerializer,
                409: ApiErrorSerializer,
            },
        )
    )


@_action_schema("quotes_submit", "draft → pending_approval (sales): ask another sales engineer to approve.")
class QuoteSubmitApi(_QuoteActionApi):
    def act(self, quote: Quote, user: User, data: dict[str, Any]) -> Quote:
        return services.quote_submit(quote=quote, user=user)


@_action_schema("quotes_approve", "pending_approval → approved, by a sales engineer other than the submitter.")
class QuoteApproveApi(_QuoteActionApi):
    def act(self, quote: Quote, user: User, data: dict[str, Any]) -> Quote:
        return services.quote_approve(quote=quote, user=user)


@_action_schema("quotes_send", "draft (within the discount limit) or approved → sent; e-mails the customer.")
class QuoteSendApi(_QuoteActionApi):
    def act(self, quote: Quote, user: User, data: dict[str, Any]) -> Quote:
        return services.quote_send(quote=quote, user=user)


@_action_schema("quotes_accept", "sent → accepted, by the customer, while the quote is valid.")
class QuoteAcceptApi(_QuoteActionApi):
    def act(self, quote: Quote, user: User, data: dict[str, Any]) -> Quote:
        return services.quote_accept(quote=quote, user=user)


class QuoteRejectInputSerializer(serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=1000, default="")


@_action_schema("quotes_reject", "sent → rejected, by the customer.", request=QuoteRejectInputSerializer)
class QuoteRejectApi(_QuoteActionApi):
    InputSerializer = QuoteRejectInputSerializer

    def act(self, quote: Quote, user: User, data: dict[str, Any]) -> Quote:
        return services.quote_reject(quote=quote, user=user, reason=data.get("reason", ""))


class QuoteReviseInputSerializer(serializers.Serializer):
    discount_percent = serializers.DecimalField(
        max_digits=5, decimal_places=2, min_value=Decimal(0), max_value=Decimal(100), required=False
    )


@_action_schema(
    "quotes_revise",
    "A new draft revision with the same number (optionally another discount); the old one is superseded.",
    request=QuoteReviseInputSerializer,
    success=201,
)
class QuoteReviseApi(_QuoteActionApi):
    InputSerializer = QuoteReviseInputSerializer
    success_status = status.HTTP_201_CREATED

    def act(self, quote: Quote, user: User, data: dict[str, Any]) -> Quote:
        return services.quote_revise(quote=quote, user=user, discount_percent=data.get("discount_percent"))


@_action_schema("quotes_refresh_prices", "Re-price a draft from the current catalog (the change is logged).")
class QuoteRefreshPricesApi(_QuoteActionApi):
    def act(self, quote: Quote, user: User, data: dict[str, Any]) -> Quote:
        return services.quote_refresh_prices(quote=quote, user=user)


# --------------------------------------------------------------------------- PDF


class PdfRenderer(BaseRenderer):
    media_type = "application/pdf"
    format = "pdf"
    charset = None
    render_style = "binary"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return data if isinstance(data, bytes) else b""


class QuotePdfApi(APIView):
    """The quote's PDF as a download; 409 `pdf_not_ready` while it is still being rendered."""

    permission_classes = [IsAuthenticated]
    renderer_classes = [FastJSONRenderer, PdfRenderer]

    @extend_schema(
        operation_id="quotes_pdf",
        parameters=[NUMBER_PARAMETER, REVISION_PARAMETER],
        responses={
            (200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description="The PDF file"),
            (403, "application/json"): ApiErrorSerializer,
            (404, "application/json"): ApiErrorSerializer,
            (409, "application/json"): ApiErrorSerializer,
        },
    )
    def get(self, request: Request, number: str) -> FileResponse:
        quote = quote_get(user=_user(request), number=number, revision=_revision(request))
        stored = services.quote_pdf_open(quote) if quote.render_status == RenderStatus.READY and quote.pdf else None
        if stored is None:
            state = {
                RenderStatus.PENDING: "is queued for rendering",
                RenderStatus.GENERATING: "is still being rendered",
                RenderStatus.FAILED: "could not be rendered yet and will be retried",
            }.get(RenderStatus(quote.render_status), "is not available")
            raise Conflict(
                f"The PDF of quote {quote.label} {state}; try again in a few seconds.",
                code=ErrorCode.PDF_NOT_READY,
                fields={"render_status": [quote.render_status]},
            )
        response = FileResponse(
            stored,
            as_attachment=True,
            filename=f"{quote.number}-R{quote.revision}.pdf",
            content_type="application/pdf",
        )
        response["ETag"] = f'"{quote.pdf_sha256}"'
        return response

    def handle_exception(self, exc: Exception) -> Response:
        # Errors are JSON envelopes whatever the client asked for.
        request = getattr(self, "request", None)
        if request is not None:
            request.accepted_renderer = FastJSONRenderer()
            request.accepted_media_type = FastJSONRenderer.media_type
        response = super().handle_exception(exc)
        if isinstance(exc, Conflict) and exc.code == ErrorCode.PDF_NOT_READY:
            response["Retry-After"] = "5"
        return response
