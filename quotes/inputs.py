"""Input pieces of the quotes API and pages: an optional line, lists bounded before any item is read, and a
customer's own quote request (name, company, contact, comment)."""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from django.utils.translation import gettext
from rest_framework import serializers


class BoundedListSerializer(serializers.ListSerializer):
    """DRF's ListSerializer whose too-long list is an error of the field itself (`optional_lines`), not of
    `optional_lines.non_field_errors`; the length is checked before any item is read."""

    def to_internal_value(self, data: Any) -> Any:
        most: int | None = getattr(self, "max_length", None)
        if most is not None and isinstance(data, list) and len(data) > most:
            message = self.error_messages["max_length"].format(max_length=most)
            raise serializers.ValidationError([message], code="max_length")
        return super().to_internal_value(data)


class OptionalLineInputSerializer(serializers.Serializer):
    sku = serializers.CharField(max_length=64)
    qty = serializers.IntegerField(min_value=1, max_value=64, default=1)

    class Meta:
        list_serializer_class = BoundedListSerializer


#: Lengths of a customer's own quote request (name, company, contact, comment): what a person writes, bounded so
#: a request cannot grow the quote's history without end.
REQUEST_NAME_MAX = 150
REQUEST_COMPANY_MAX = 200
REQUEST_CONTACT_MAX = 200
REQUEST_COMMENT_MAX = 2000
#: A phone number has at most 15 digits (ITU-T E.164 §6.2.1) and, with its country code, at least 7 here.
PHONE_DIGITS = (7, 15)
_PHONE_CHARS = re.compile(r"^\+?[0-9 ()\-.]+$")


def contact_error(text: str) -> str | None:
    """Why `text` is neither an e-mail address nor a phone number (E.164: up to 15 digits), or None when it is one."""
    value = text.strip()
    if "@" in value:
        try:
            validate_email(value)
        except DjangoValidationError:
            return gettext("Enter a valid e-mail address or phone number.")
        return None
    digits = sum(ch.isdigit() for ch in value)
    if _PHONE_CHARS.match(value) and PHONE_DIGITS[0] <= digits <= PHONE_DIGITS[1]:
        return None
    return gettext("Enter a valid e-mail address or phone number.")


class RequestNoteInputSerializer(serializers.Serializer):
    """A customer's own quote request: who asks and how to reach them (kept with the quote for sales)."""

    name = serializers.CharField(max_length=REQUEST_NAME_MAX)
    company = serializers.CharField(max_length=REQUEST_COMPANY_MAX, required=False, allow_blank=True, default="")
    contact = serializers.CharField(max_length=REQUEST_CONTACT_MAX, help_text="An e-mail address or phone number")
    comment = serializers.CharField(max_length=REQUEST_COMMENT_MAX, required=False, allow_blank=True, default="")

    def validate_contact(self, value: str) -> str:
        if (problem := contact_error(value)) is not None:
            raise serializers.ValidationError(problem)
        return value.strip()


class QuoteRequestFieldsSerializer(serializers.Serializer):
    """The fields of a quote create that a customer's own request adds: the services and who asks."""

    services = serializers.ListField(
        child=serializers.SlugField(max_length=64),
        required=False,
        allow_null=True,
        max_length=32,
        default=None,
        help_text="Service SKUs (GET /api/v1/services/) to quote with the build; left out: none",
    )
    request = RequestNoteInputSerializer(
        required=False, help_text="A customer's own request: name, company, contact (e-mail or phone), comment"
    )


def request_fields(data: dict[str, Any]) -> dict[str, Any]:
    """`quote_create`'s keyword arguments from the validated lines beside the build: optional lines, services and
    the customer's own request."""
    return {
        "optional_lines": data.get("optional_lines", ()),
        "services": data.get("services"),
        "request_note": data.get("request"),
    }
