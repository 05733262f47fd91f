"""Which Django permissions each group holds (ARCHITECTURE.md §Users and permissions).

Used by the data migration that creates the groups and by `seed_demo`; changing this table and
running `manage.py sync_roles` brings an existing database up to date.
"""

from __future__ import annotations

from typing import Any

CATALOG_MODELS = (
    "gpu",
    "cpu",
    "chassis",
    "psu",
    "memorymodule",
    "storagedevice",
    "nic",
    "nvlinkbridge",
    # cluster parts (issue 39)
    "networkswitch",
    "networkadapter",
    "cable",
    "storagenode",
    "rack",
    "pdu",
)

# suppliers, offers and price lists are catalog staff's; sales see offers (for ship dates and costs)
PROCUREMENT_CATALOG = [
    ("procurement", f"{action}_{model}")
    for model in ("supplier", "supplieroffer", "pricelistimport", "pricefreeze")
    for action in ("view", "add", "change", "delete")
] + [("procurement", "view_listpricechange")]
PROCUREMENT_SALES = [("procurement", "view_supplier"), ("procurement", "view_supplieroffer")]
# exchange rates: catalog staff enter one by hand when the CBR job cannot reach the bank; the VAT table is the
# superuser's (a change of law), read by everyone who prices
FINANCE_CATALOG = [("finance", f"{action}_exchangerate") for action in ("view", "add", "change", "delete")] + [
    ("finance", "view_vatrate")
]
FINANCE_SALES = [("finance", "view_exchangerate"), ("finance", "view_vatrate")]
SERVICES_CATALOG = [("servicelines", f"{action}_serviceitem") for action in ("view", "add", "change", "delete")]
# orders: sales and catalog staff see them in the admin (the API's services change them)
ORDERS_VIEW = [
    ("orders", f"view_{model}")
    for model in (
        "order", "orderline", "purchaseline", "purchaseorder", "purchaseorderline", "receipt", "receiptline",
        "receivedserial", "buildstep",
    )
]  # fmt: skip
# billing: invoices, payments and УПД are read in the admin by sales and catalog staff (made by billing.services)
BILLING_VIEW = [
    ("billing", f"view_{model}") for model in ("invoice", "invoiceline", "payment", "transferdocument", "transferline")
]

ROLE_PERMISSIONS: dict[str, list[tuple[str, str]]] = {
    # catalog staff edit every catalog table (and its history); nothing else
    "catalog": [
        *(
            ("catalog", f"{action}_{model}")
            for model in CATALOG_MODELS
            for action in ("view", "add", "change", "delete")
        ),
        *PROCUREMENT_CATALOG,
        *FINANCE_CATALOG,
        *ORDERS_VIEW,
        *BILLING_VIEW,
        *SERVICES_CATALOG,
    ],
    # sales engineers see the catalog (read-only in the admin), work on every quote and saved build (the API
    # lets them change and delete any build, the admin the same), and look customers up to quote for them
    "sales": [
        *(("catalog", f"view_{model}") for model in CATALOG_MODELS),
        ("quotes", "view_quote"),
        ("quotes", "change_quote"),
        ("quotes", "view_quoteline"),
        ("quotes", "view_quoteevent"),
        *(("configurator", f"{action}_savedbuild") for action in ("view", "add", "change", "delete")),
        ("accounts", "view_user"),
        *PROCUREMENT_SALES,
        *FINANCE_SALES,
        *ORDERS_VIEW,
        *BILLING_VIEW,
        ("orders", "view_orderevent"),
        ("servicelines", "view_serviceitem"),
    ],
    # customers work through the site and the API only; object ownership is checked in code
    "customers": [],
}


def sync_roles(apps: Any = None) -> None:
    """Create the groups and give them exactly the permissions of ROLE_PERMISSIONS."""
    from django.apps import apps as global_apps
    from django.contrib.auth.management import create_permissions

    registry = apps or global_apps
    for app_config in registry.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, verbosity=0, apps=registry)
        app_config.models_module = None
    group_model = registry.get_model("auth", "Group")
    permission_model = registry.get_model("auth", "Permission")
    for group_name, perms in ROLE_PERMISSIONS.items():
        group, _ = group_model.objects.get_or_create(name=group_name)
        wanted = [
            permission_model.objects.get(content_type__app_label=app_label, codename=codename)
            for app_label, codename in perms
            if _migrated(registry, app_label, codename)
        ]
        group.permissions.set(wanted)


def _migrated(registry: Any, app_label: str, codename: str) -> bool:
    """An early migration runs this before a later app's tables (or a later model of an app) exist; the
    migration that adds them syncs again once they do. With the project's app registry every model counts."""
    try:
        registry.get_model(app_label, codename.split("_", 1)[1])
    except LookupError:
        return False
    return True


def _sync_roles_in_migration(apps: Any, schema_editor: Any) -> None:
    sync_roles(apps)


def sync_roles_operation() -> Any:
    """The migration step every app that adds models with role permissions ends with: the groups get exactly
    ROLE_PERMISSIONS again (nothing to undo on the way back)."""
    from django.db import migrations

    return migrations.RunPython(_sync_roles_in_migration, migrations.RunPython.noop)
