"""URLs of the mem0-familiar verbs (``v1/memories/...``, as mem0's REST API names them)."""
from django.urls import path

from . import mem0_views as views

urlpatterns = [
    path("v1/memories/", views.Mem0MemoriesView.as_view(), name="mem0-memories"),
    path("v1/memories/search/", views.Mem0SearchView.as_view(), name="mem0-search"),
    path("v1/memories/<int:memory_id>/", views.Mem0MemoryView.as_view(), name="mem0-memory"),
    path("v1/memories/<int:memory_id>/history/", views.Mem0HistoryView.as_view(), name="mem0-history"),
]
