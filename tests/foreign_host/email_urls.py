"""The e-mail-login host's urls: its login, the admin, and agentmemory under its own prefix."""
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("ai/memory/", include("agentmemory.api.urls")),
    path("ai/me/", include("agentmemory.pages.urls")),
]
