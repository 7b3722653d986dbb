"""Function calling over REST: the tools' OpenAI-style schemas, and a dispatcher for a model's tool call."""
from __future__ import annotations

import json

from django.http import HttpResponse
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from ..exceptions import InvalidInput
from ..tools.registry import call_tool
from ..tools.schemas import openai_tools
from .base import AgentMemoryAPIView
from .errors import error_response
from .schema import extend_schema


class ToolListView(AgentMemoryAPIView):
    """The tools in OpenAI's function-calling format: pass them as ``tools=[...]`` to a chat completion."""

    open_to_any_principal = True

    @extend_schema(responses={200: inline_serializer("ToolList", {"tools": serializers.ListField(
        child=serializers.DictField())})})
    def get(self, request):
        return Response({"tools": openai_tools()})


class ToolCallView(AgentMemoryAPIView):
    """Run a model's tool call with the caller's rights; the answer is ready to go back as a ``tool`` message.

    Body: ``{"name": ..., "arguments": "<JSON string or object>"}``, or an OpenAI ``tool_calls`` item
    ``{"id": ..., "type": "function", "function": {"name": ..., "arguments": ...}}``.
    """

    open_to_any_principal = True

    @extend_schema(
        request=inline_serializer("ToolCall", {
            "name": serializers.CharField(required=False), "arguments": serializers.JSONField(required=False),
            "id": serializers.CharField(required=False), "function": serializers.DictField(required=False)}),
        responses={200: inline_serializer("ToolResult", {
            "tool_call_id": serializers.CharField(allow_null=True), "name": serializers.CharField(),
            "result": serializers.DictField(), "content": serializers.CharField(
                help_text="The result as a JSON string, for the tool message's content.")})},
    )
    def post(self, request):
        body = request.data if isinstance(request.data, dict) else {}
        call = body.get("function") if isinstance(body.get("function"), dict) else body
        name = call.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidInput("name (the tool's name) is required.", field="name")
        result = call_tool(self.principal, name, call.get("arguments"))
        return Response({"tool_call_id": body.get("id"), "name": name, "result": result,
                         "content": json.dumps(result, ensure_ascii=False, default=str)})


@method_decorator(csrf_exempt, name="dispatch")
class McpView(AgentMemoryAPIView):
    """MCP over streamable HTTP (stateless, JSON responses), with the caller's API key and scopes."""

    open_to_any_principal = True
    schema = None  # JSON-RPC, described by MCP itself, not by OpenAPI

    def post(self, request):
        return self._serve(request)

    def get(self, request):
        return self._serve(request)

    def delete(self, request):
        return self._serve(request)

    def _serve(self, request):
        import anyio

        try:
            from ..tools.mcp import handle_http
        except ImportError:
            return error_response("not_installed", "MCP support is not installed: pip install 'agentmemory[mcp]'.",
                                  501)

        body = request._request.body if request.method == "POST" else b""
        headers = [(name.lower().encode("latin-1"), value.encode("latin-1"))
                   for name, value in request._request.headers.items()]
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": request.method,
                 "scheme": request.scheme, "path": request.path, "raw_path": request.path.encode(),
                 "root_path": "", "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
                 "headers": headers, "client": (request.META.get("REMOTE_ADDR", ""), 0),
                 "server": (request.get_host(), 0)}
        status_code, response_headers, payload = anyio.run(handle_http, self.principal, scope, body)
        response = HttpResponse(payload, status=status_code)
        for name, value in response_headers:
            key = name.decode("latin-1")
            if key.lower() not in ("content-length",):
                response[key] = value.decode("latin-1")
        return response
