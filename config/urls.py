from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularSwaggerSplitView

from config import views
from config.api import PingApi
from config.schema import SchemaApi
from config.security import DOCS_POLICY, with_policy

api_v1: list[URLPattern | URLResolver] = [
    path("catalog/", include("catalog.urls")),
    path("", include("configurator.urls")),
    path("quotes/", include("quotes.urls")),
    path("", include("orders.urls")),
    path("", include("billing.urls")),
    path("", include("servicelines.urls")),
    path("", include("procurement.urls")),
    path("auth/", include("accounts.api_urls")),
    path("ping", PingApi.as_view(), name="ping"),
    path("schema/", SchemaApi.as_view(), name="schema"),
    path(
        "docs/",
        with_policy(DOCS_POLICY)(SpectacularSwaggerSplitView.as_view(url_name="schema")),
        name="swagger-ui",
    ),
]

urlpatterns = [
    path("", include("configurator.web.urls")),
    path("quotes/", include("quotes.urls_web")),
    path("orders/", include("orders.urls_web")),
    path("billing/", include("billing.urls_web")),
    path("accounts/", include("accounts.urls")),
    path("healthz", views.healthz, name="healthz"),
    # browsers ask for /favicon.ico whatever the page's <link rel="icon"> says
    path("favicon.ico", views.favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    path("i18n/", include("django.conf.urls.i18n")),
]

# JSON error envelopes for /api/ paths, Django's pages elsewhere (config/api.py)
handler400 = "config.api.handler400"
handler403 = "config.api.handler403"
handler404 = "config.api.handler404"
handler500 = "config.api.handler500"
