"""The host's urls: its own API, the admin, and agentmemory's urls added as README.md says."""
from django.contrib import admin
from django.urls import include, path
from rest_framework.routers import DefaultRouter

from .notes.views import NoteViewSet

router = DefaultRouter()
router.register("notes", NoteViewSet, basename="note")

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),  # the host's own login
    path("api/", include(router.urls)),
    # --- merged for agentmemory ---
    path("api/agentmemory/", include("agentmemory.api.urls")),
    path("memory/", include("agentmemory.pages.urls")),  # the end user's page (HTML)
]
