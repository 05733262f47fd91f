"""Routes of the configurator API under /api/v1/ (estimate, builds, recommendations, clusters, llm-models)."""

from django.urls import path

from configurator.api.builds import BuildApplyFixApi, BuildValidateApi, SavedBuildDetailApi, SavedBuildListApi
from configurator.api.clusters import ClusterRecommendationApi
from configurator.api.estimate import EstimateApi, LlmModelListApi
from configurator.api.recommendations import RecommendationApi

urlpatterns: list = [
    path("estimate", EstimateApi.as_view(), name="estimate"),
    path("llm-models/", LlmModelListApi.as_view(), name="llm-models"),
    path("builds/validate", BuildValidateApi.as_view(), name="builds-validate"),
    path("builds/apply-fix", BuildApplyFixApi.as_view(), name="builds-apply-fix"),
    path("builds/", SavedBuildListApi.as_view(), name="builds-list"),
    path("builds/<int:pk>/", SavedBuildDetailApi.as_view(), name="builds-detail"),
    path("recommendations", RecommendationApi.as_view(), name="recommendations"),
    path("clusters/recommendations", ClusterRecommendationApi.as_view(), name="clusters-recommendations"),
]
