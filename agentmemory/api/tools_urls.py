"""URLs of function calling (tools) and of the MCP server's streamable HTTP transport."""
from django.urls import path

from . import tools_views as views

urlpatterns = [
    path("tools/", views.ToolListView.as_view(), name="tool-list"),
    path("tools/call/", views.ToolCallView.as_view(), name="tool-call"),
    path("mcp/", views.McpView.as_view(), name="mcp"),
]
