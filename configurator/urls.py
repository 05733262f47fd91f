"""Routes of the configurator API under /api/v1/ (estimate, builds, recommendations, llm-models)."""

from django.urls import path

from configurator.apis.estimate import EstimateApi, LlmModelListApi

urlpatterns: list = [
    path("estimate", EstimateApi.as_view(), name="estimate"),
    path("llm-models/", LlmModelListApi.as_view(), name="llm-models"),
]
