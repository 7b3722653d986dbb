"""URLs of the search and evaluation API."""
from django.urls import path

from . import retrieval_views

urlpatterns = [
    path("knowledge-bases/<slug:slug>/search/", retrieval_views.KnowledgeBaseSearchView.as_view(),
         name="knowledge-base-search"),
    path("search/", retrieval_views.SearchView.as_view(), name="search"),
    path("knowledge-bases/<slug:slug>/evaluation-cases/", retrieval_views.EvaluationCaseListView.as_view(),
         name="evaluation-case-list"),
    path("knowledge-bases/<slug:slug>/evaluations/", retrieval_views.EvaluationRunListView.as_view(),
         name="evaluation-run-list"),
]
