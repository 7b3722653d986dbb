"""URLs of the search and evaluation API."""
from django.urls import path

from . import search_views

urlpatterns = [
    path("knowledge-bases/<slug:slug>/search/", search_views.KnowledgeBaseSearchView.as_view(),
         name="knowledge-base-search"),
    path("search/", search_views.SearchView.as_view(), name="search"),
    path("knowledge-bases/<slug:slug>/evaluation-cases/", search_views.EvaluationCaseListView.as_view(),
         name="evaluation-case-list"),
    path("knowledge-bases/<slug:slug>/evaluation-cases/propose/", search_views.EvaluationCaseProposeView.as_view(),
         name="evaluation-case-propose"),
    path("knowledge-bases/<slug:slug>/evaluation-cases/<int:pk>/", search_views.EvaluationCaseDetailView.as_view(),
         name="evaluation-case-detail"),
    path("knowledge-bases/<slug:slug>/evaluation-cases/<int:pk>/accept/",
         search_views.EvaluationCaseAcceptView.as_view(), name="evaluation-case-accept"),
    path("knowledge-bases/<slug:slug>/evaluations/", search_views.EvaluationRunListView.as_view(),
         name="evaluation-run-list"),
]
