"""An input serializer's validated data without DRF's per-field machinery, for a body that is already canonical.

DRF validates each field through `get_value`, `validate_empty_values`, `run_validation`, `to_internal_value`
and `run_validators`, ~3 µs a field: 66 µs for the estimate's 23 fields (22 µs here), more than the estimate.
For the field types the engine endpoints take, a value that is already what the field would make of it (an
`int` for an IntegerField, a `bool` for a BooleanField, a string that is a choice, a string with nothing to
trim) is that value; only the field's own validators (bounds, length, null characters) still run. Any other
value goes through the field's `run_validation`, as DRF would; missing fields take their defaults as DRF does.

Whatever fails (a validator, a missing required field, an unknown key a StrictKeysMixin refuses, `validate`)
gives up, and the caller runs DRF's own `run_validation` on the whole body: errors, and everything this
module does not know, are DRF's, word for word. A serializer with anything else (another `to_internal_value`,
Meta validators, a `source`, read-only or hidden fields, a partial update) has no plan and always goes to
DRF. tests/api/test_fast_input.py checks random bodies against DRF's validated data, types included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework import fields, serializers
from rest_framework.fields import empty

from configurator.serializers import StrictKeysMixin

GIVE_UP = object()  # returned when DRF must validate the body itself
_NOT_CANONICAL = object()

# `get_value` implementations that, for a plain dict and a full (not partial) validation, are
# `data.get(field_name, empty)`
_DICT_GET_VALUE = frozenset(
    {
        fields.Field.get_value,
        fields.ListField.get_value,
        fields.DictField.get_value,
        fields.JSONField.get_value,
        serializers.Serializer.get_value,
    }
)
_PLAIN_TO_INTERNAL = {
    serializers.Serializer.to_internal_value: False,  # unknown keys ignored
    StrictKeysMixin.to_internal_value: True,  # unknown keys refused (by DRF's path, with the reasons)
}


def _char(field: Any, value: Any) -> Any:
    """CharField: a non-blank string with nothing to trim is itself (CharField.to_internal_value)."""
    if type(value) is str and value and (not field.trim_whitespace or value.strip() == value):
        return value
    return _NOT_CANONICAL


def _choice(field: Any, value: Any) -> Any:
    """ChoiceField: a string that is a choice's key is that choice (`choice_strings_to_values[str(value)]`)."""
    return field.choice_strings_to_values.get(value, _NOT_CANONICAL) if type(value) is str else _NOT_CANONICAL


def _integer(field: Any, value: Any) -> Any:
    """IntegerField: an int (not a bool) is itself (`int(str(value))`)."""
    return value if type(value) is int else _NOT_CANONICAL


def _boolean(field: Any, value: Any) -> Any:
    """BooleanField: True and False are themselves."""
    return value if type(value) is bool else _NOT_CANONICAL


# exact classes only: a subclass may convert differently
_CANONICAL: dict[type[Any], Callable[[Any, Any], Any]] = {
    fields.CharField: _char,
    fields.ChoiceField: _choice,
    fields.IntegerField: _integer,
    fields.BooleanField: _boolean,
}


class _Field:
    __slots__ = ("allow_null", "canonical", "default", "field", "name", "nested", "required", "validate", "validators")

    def __init__(self, serializer: Any, name: str, field: Any, nested: _Plan | None) -> None:
        self.name, self.field, self.nested = name, field, nested
        self.required, self.allow_null, self.default = field.required, field.allow_null, field.default
        self.canonical = _CANONICAL.get(type(field))
        self.validators = tuple(field.validators)
        self.validate = getattr(serializer, "validate_" + name, None)


class _Plan:
    __slots__ = ("fields", "names", "serializer", "strict")

    def __init__(self, serializer: Any, strict: bool, planned: tuple[_Field, ...]) -> None:
        self.serializer, self.strict, self.fields = serializer, strict, planned
        self.names = frozenset(field.name for field in planned)


def plan_for(serializer: Any) -> _Plan | None:
    """The serializer's plan (made once per serializer instance), None when it has something this module
    does not know."""
    known = serializer.__dict__.get("_fast_input_plan", _NOT_CANONICAL)
    if known is _NOT_CANONICAL:
        known = serializer.__dict__["_fast_input_plan"] = _make_plan(serializer)
    return known


def _make_plan(serializer: Any) -> _Plan | None:
    cls = type(serializer)
    if not isinstance(serializer, serializers.Serializer) or getattr(serializer, "partial", False):
        return None
    strict = _PLAIN_TO_INTERNAL.get(cls.to_internal_value)
    if (
        strict is None
        or cls.run_validation is not serializers.Serializer.run_validation
        or cls.validate_empty_values is not fields.Field.validate_empty_values
        or serializer.validators
    ):
        return None
    planned = []
    for name, field in serializer.fields.items():
        if field.read_only or field.source != name or type(field).get_value not in _DICT_GET_VALUE:
            return None
        nested = None
        if isinstance(field, serializers.Serializer):
            nested = plan_for(field)
            if nested is None:
                return None
        elif isinstance(field, serializers.BaseSerializer):  # a list of serializers
            return None
        planned.append(_Field(serializer, name, field, nested))
    return _Plan(serializer, strict, tuple(planned))


def fast_validated(serializer: Any, data: Any) -> Any:
    """`serializer.run_validation(data)` for a body this module can vouch for; GIVE_UP otherwise (run DRF's)."""
    plan = plan_for(serializer)
    if plan is None or type(data) is not dict:
        return GIVE_UP
    try:
        return _validated(plan, data)
    except Exception:  # any failure: DRF's path says what it is (or raises it again)
        return GIVE_UP


def _validated(plan: _Plan, data: dict[str, Any]) -> Any:
    if plan.strict and not plan.names.issuperset(data):
        return GIVE_UP
    validated: dict[str, Any] = {}
    for entry in plan.fields:
        value = data.get(entry.name, empty)
        if value is empty:
            if entry.required:
                return GIVE_UP
            if entry.default is empty:
                continue  # DRF's SkipField
            value = entry.field.get_default()
        elif value is None:
            if not entry.allow_null:
                return GIVE_UP
        elif entry.nested is not None:
            if type(value) is not dict:
                return GIVE_UP
            value = _validated(entry.nested, value)
            if value is GIVE_UP:
                return GIVE_UP
        else:
            made = entry.canonical(entry.field, value) if entry.canonical is not None else _NOT_CANONICAL
            if made is _NOT_CANONICAL:
                value = entry.field.run_validation(value)
            else:
                value = made
                for validator in entry.validators:
                    if getattr(validator, "requires_context", False):
                        validator(value, entry.field)
                    else:
                        validator(value)
        if entry.validate is not None:
            value = entry.validate(value)
        validated[entry.name] = value
    validated = plan.serializer.validate(validated)
    return GIVE_UP if validated is None else validated
