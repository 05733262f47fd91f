from django.urls import path

from catalog.apis import CATALOG_APIS

urlpatterns = []
for kind, (list_view, detail_view) in CATALOG_APIS.items():
    urlpatterns += [
        path(f"{kind}/", list_view.as_view(), name=f"catalog-{kind}-list"),
        path(f"{kind}/<slug:sku>/", detail_view.as_view(), name=f"catalog-{kind}-detail"),
    ]
