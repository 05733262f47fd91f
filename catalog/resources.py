"""django-import-export resources: CSV/XLSX import and export of the catalog, upserted by SKU.

A bad cell is reported the way the person who made the file can find it: "Row 3, column list_price, value
'abc': not a number" — the row as the file numbers it (the header is row 1, so the first data row is row 2;
django-import-export counts data rows from 1), the column's header, the value and the reason.
"""

from __future__ import annotations

from decimal import InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from import_export import fields, resources, widgets

from catalog.model_base import CatalogItem
from catalog.models import CATALOG_MODELS, CLUSTER_MODELS, Gpu, NvlinkBridge
from catalog.services import cell_error


class CatalogResource(resources.ModelResource):
    """Rows are matched on `sku`; unchanged rows are skipped; every row runs model validation.

    With `use_transactions`, a dry run (the preview) changes nothing, and any row error stops the
    confirm step, so a file with one bad row changes nothing at all.
    """

    class Meta:
        import_id_fields = ("sku",)
        exclude = ("id", "created_at", "updated_at")
        skip_unchanged = True
        report_skipped = True
        clean_model_instances = True
        use_transactions = True
        use_bulk = False  # save row by row so the history records every change with its user

    _file_row: int | None = None
    _row: dict[str, Any] | None = None

    def import_row(self, row: Any, instance_loader: Any, **kwargs: Any) -> Any:
        number = kwargs.get("row_number")
        self._file_row = number + 1 if isinstance(number, int) else None  # + the header row
        self._row = dict(row)
        return super().import_row(row, instance_loader, **kwargs)

    def import_field(self, field: Any, instance: Any, row: Any, is_m2m: bool = False, **kwargs: Any) -> None:
        try:
            super().import_field(field, instance, row, is_m2m, **kwargs)
        except (InvalidOperation, ArithmeticError, TypeError):
            raise ValueError(self._cell_error(field.column_name, _("not a number"))) from None
        except ValueError as exc:
            raise ValueError(self._cell_error(field.column_name, str(exc))) from None

    def validate_instance(
        self, instance: Any, import_validation_errors: Any = None, validate_unique: bool = True
    ) -> None:
        """The model's own checks (a negative price, a missing name), each said as the row, column and value."""
        try:
            super().validate_instance(instance, import_validation_errors, validate_unique)
        except ValidationError as exc:
            if not hasattr(exc, "error_dict"):
                raise
            said: dict[str, list[str]] = {}
            for name, errors in exc.message_dict.items():
                already = (import_validation_errors or {}).get(name)
                if already is not None:
                    said[name] = ValidationError(already).messages  # said by import_field already
                    continue
                said[name] = [self._cell_error(name, message) for message in errors]
            raise ValidationError(said) from None

    def _cell_error(self, column: str, reason: str) -> str:
        value = "" if self._row is None else self._row.get(column, "")
        return cell_error(self._file_row, column, "" if value is None else str(value), reason)


class BridgeResource(CatalogResource):
    gpus = fields.Field(
        attribute="gpus",
        column_name="gpus",
        widget=widgets.ManyToManyWidget(Gpu, field="sku", separator=","),
    )

    class Meta(CatalogResource.Meta):
        model = NvlinkBridge


def resource_for(model: type[CatalogItem]) -> type[resources.ModelResource]:
    if model is NvlinkBridge:
        return BridgeResource
    meta = type("Meta", (CatalogResource.Meta,), {"model": model})
    attrs: dict[str, Any] = {"Meta": meta, "__module__": __name__}
    return type(f"{model.__name__}Resource", (CatalogResource,), attrs)


RESOURCES: dict[type[CatalogItem], type[resources.ModelResource]] = {
    model: resource_for(model) for model in (*CATALOG_MODELS.values(), *CLUSTER_MODELS.values())
}
