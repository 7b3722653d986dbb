"""URLs of the agentmemory API; include them anywhere (the bundled project uses /api/agentmemory/).

Besides the endpoints, the app serves its own OpenAPI schema (``schema/``) and Swagger UI (``docs/``).
"""
from django.urls import include, path, re_path

from . import schema, views

app_name = "agentmemory"

urlpatterns = [
    path("whoami/", views.WhoAmIView.as_view(), name="whoami"),
    path("health/", views.HealthView.as_view(), name="health"),
    path("schema/", schema.SchemaView.as_view(), name="schema"),
    path("docs/", schema.swagger_ui, name="swagger-ui"),
    path("docs/assets/<str:name>", schema.swagger_asset, name="swagger-asset"),
    # Each area keeps its own url module (knowledge, memory, sessions, context).
    path("", include("agentmemory.api.search_urls")),
    path("", include("agentmemory.api.knowledge_urls")),
    path("", include("agentmemory.api.memory_urls")),
    path("", include("agentmemory.api.working_urls")),
    path("", include("agentmemory.api.context_urls")),
    path("", include("agentmemory.api.tools_urls")),
    path("", include("agentmemory.api.mem0_urls")),
    # Last: anything else under the app's prefix is a JSON 404, never the host's HTML page.
    re_path(r"^", views.unknown_endpoint, name="unknown-endpoint"),
]
