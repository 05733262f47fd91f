"""django-import-export resources: CSV/XLSX import and export of the catalog, upserted by SKU."""

from __future__ import annotations

from typing import Any

from import_export import fields, resources, widgets

from catalog.models import CATALOG_MODELS, CatalogItem, Gpu, NvlinkBridge


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
    model: resource_for(model) for model in CATALOG_MODELS.values()
}
