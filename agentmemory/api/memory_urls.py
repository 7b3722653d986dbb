"""URLs of the memory API: the user scope is in every path."""
from django.urls import path

from . import memory_views as views

urlpatterns = [
    path("users/<str:user_id>/memories/", views.MemoryListView.as_view(), name="memory-list"),
    path("users/<str:user_id>/memories/search/", views.MemorySearchView.as_view(), name="memory-search"),
    path("users/<str:user_id>/memories/<int:memory_id>/", views.MemoryDetailView.as_view(), name="memory-detail"),
    path("users/<str:user_id>/memories/<int:memory_id>/history/", views.MemoryHistoryView.as_view(),
         name="memory-history"),
    path("users/<str:user_id>/profile/", views.ProfileView.as_view(), name="memory-profile"),
    path("users/<str:user_id>/profile/summary/", views.ProfileSummaryView.as_view(), name="memory-profile-summary"),
    path("users/<str:user_id>/", views.UserForgetView.as_view(), name="user-forget"),
]
