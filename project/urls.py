"""URLs of the host project: admin and the agentmemory API (with its OpenAPI schema and Swagger UI)."""
from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView

from agentmemory.api import schema

urlpatterns = [
    path("", TemplateView.as_view(template_name="index.html"), name="home"),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),  # login for end users (the page at /memory/)
    path("api/agentmemory/", include("agentmemory.api.urls")),
    path("memory/", include("agentmemory.pages.urls")),  # the end user's page (HTML)
    # The same schema and Swagger UI as /api/agentmemory/schema/ and /api/agentmemory/docs/, at the
    # addresses earlier versions of this project served them.
    path("api/schema/", schema.SchemaView.as_view(), name="schema"),
    path("api/docs/", schema.swagger_ui, name="swagger-ui"),
]
