"""Input pieces of the quotes API: an optional line, and lists bounded before any item is read."""

from __future__ import annotations

from typing import Any

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
