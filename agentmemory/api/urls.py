"""URLs of the agentmemory API; include them anywhere (the host project uses /api/agentmemory/)."""
from django.urls import include, path

from . import views

app_name = "agentmemory"

urlpatterns = [
    path("whoami/", views.WhoAmIView.as_view(), name="whoami"),
    path("health/", views.HealthView.as_view(), name="health"),
    # Each area keeps its own url module (knowledge, memory, sessions, context).
    path("", include("agentmemory.api.retrieval_urls")),
    path("", include("agentmemory.api.knowledge_urls")),
    path("", include("agentmemory.api.memory_urls")),
    path("", include("agentmemory.api.sessions_urls")),
    path("", include("agentmemory.api.context_urls")),
]
