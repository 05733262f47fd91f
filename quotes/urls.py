"""Routes of the quotes API; config/urls.py mounts them at /api/v1/quotes/."""

from __future__ import annotations

from django.urls import URLPattern, path, register_converter

from quotes import api, apis


class QuoteNumberConverter:
    regex = r"Q-[0-9]{4}-[0-9]{6,}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(QuoteNumberConverter, "quote_number")

urlpatterns: list[URLPattern] = [
    path("", apis.QuoteListCreateApi.as_view(), name="quote-list"),
    path("cluster/", api.QuoteClusterCreateApi.as_view(), name="quote-cluster-create"),
    path("<quote_number:number>/", apis.QuoteDetailApi.as_view(), name="quote-detail"),
    path("<quote_number:number>/submit/", apis.QuoteSubmitApi.as_view(), name="quote-submit"),
    path("<quote_number:number>/approve/", apis.QuoteApproveApi.as_view(), name="quote-approve"),
    path("<quote_number:number>/send/", apis.QuoteSendApi.as_view(), name="quote-send"),
    path("<quote_number:number>/accept/", apis.QuoteAcceptApi.as_view(), name="quote-accept"),
    path("<quote_number:number>/reject/", apis.QuoteRejectApi.as_view(), name="quote-reject"),
    path("<quote_number:number>/revise/", apis.QuoteReviseApi.as_view(), name="quote-revise"),
    path("<quote_number:number>/refresh-prices/", apis.QuoteRefreshPricesApi.as_view(), name="quote-refresh-prices"),
    path("<quote_number:number>/pdf/", apis.QuotePdfApi.as_view(), name="quote-pdf"),
]
