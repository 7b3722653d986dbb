"""URLs of the search API."""
from django.urls import path

from . import retrieval_views

urlpatterns = [
    path("knowledge-bases/<slug:slug>/search/", retrieval_views.KnowledgeBaseSearchView.as_view(),
         name="knowledge-base-search"),
    path("search/", retrieval_views.SearchView.as_view(), name="search"),
]
