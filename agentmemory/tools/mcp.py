"""The MCP server (official ``mcp`` SDK, low-level server): the registry's tools and the user's profile.

Two transports share one server definition: stdio (``manage.py agentmemory_mcp``) and streamable
HTTP (``<mount>/mcp/``, stateless, JSON responses, the same API-key authentication and scopes as REST).
Each tool runs in a worker thread, off the event loop, with its own database connection closed after
it; a failing tool is an MCP error result, never a crash of the server.
"""
from __future__ import annotations

import json
import re
from typing import Any

import anyio
from django.db import connections
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from ..api.access import Principal, agent_view, denial, read
from ..exceptions import AgentMemoryError
from .registry import TOOLS, call_tool
from .schemas import parameters_schema

PROFILE_URI = "agentmemory://users/{user_id}/profile"
_PROFILE = re.compile(r"^agentmemory://users/(?P<user_id>[^/]+)/profile$")
INSTRUCTIONS = (
    "agentmemory remembers the users you talk to and holds a knowledge base you can cite. Call get_context "
    "once per user message for everything at once, or recall / search_knowledge for one kind; remember what "
    "the user states about themselves; append_turn and end_session to let the conversation be learned from."
)


def _in_thread(func, *args):
    """Run ``func`` in a worker thread with its own database connection, closed afterwards."""
    def run():
        try:
            return func(*args)
        finally:
            connections.close_all()
    return anyio.to_thread.run_sync(run)


def _read_profile(principal: Principal, user_id: str) -> str:
    from urllib.parse import unquote

    from ..memory.profile import get_profile

    user_id = unquote(user_id)
    reason = denial(principal, read("agentmemory.view_memoryitem"))
    if reason or not principal.may_act_for(user_id):
        raise PermissionError(reason or f"You may not act for user {user_id!r}.")
    try:
        agent_id = agent_view(principal, None)  # an agent-limited key reads its agent's view, as in REST
    except AgentMemoryError as exc:
        raise PermissionError(str(exc)) from exc
    return json.dumps(get_profile(user_id, agent_id=agent_id), ensure_ascii=False, default=str)


def build_server(principal: Principal):
    """An MCP server whose every call runs with ``principal``'s rights."""
    from .. import __version__

    server = Server("agentmemory", version=__version__, instructions=INSTRUCTIONS)

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [types.Tool(name=t.name, description=t.description, inputSchema=parameters_schema(t))
                for t in TOOLS.values()]

    @server.call_tool(validate_input=False)  # the tool's serializer validates, with field-level messages
    async def call(name: str, arguments: dict[str, Any]):
        try:
            result = await _in_thread(call_tool, principal, name, arguments)
        except AgentMemoryError as exc:
            return types.CallToolResult(isError=True, content=[types.TextContent(
                type="text", text=f"{type(exc).__name__}: {exc}")])
        # The text a model reads is readable UTF-8 JSON ("用户在腾讯工作", not "\\u7528..."), as REST tools/call
        # returns it; the same object goes along as structured content.
        return [types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False, indent=2, default=str))], result

    @server.list_resource_templates()
    async def templates() -> list[types.ResourceTemplate]:
        return [types.ResourceTemplate(uriTemplate=PROFILE_URI, name="profile", mimeType="application/json",
                                       description="The user's profile: summary and key facts, always loaded.")]

    @server.list_resources()
    async def resources() -> list[types.Resource]:
        if principal.kind == "user" and principal.own_user_id:
            return [types.Resource(uri=PROFILE_URI.format(user_id=principal.own_user_id), name="my profile",
                                   mimeType="application/json")]
        return []

    @server.read_resource()
    async def read_resource(uri):
        match = _PROFILE.match(str(uri))
        if match is None:
            raise ValueError(f"Unknown resource {uri}; profiles are {PROFILE_URI}.")
        text = await _in_thread(_read_profile, principal, match["user_id"])
        return [ReadResourceContents(content=text, mime_type="application/json")]

    return server


async def serve_stdio(principal: Principal) -> None:
    server = build_server(principal)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def handle_http(principal: Principal, scope: dict, body: bytes) -> tuple[int, list, bytes]:
    """One streamable-HTTP request (stateless, JSON responses): (status, headers, body)."""
    manager = StreamableHTTPSessionManager(
        app=build_server(principal), json_response=True, stateless=True,
        # Django has already checked the Host header against ALLOWED_HOSTS.
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    sent: list[dict] = []
    delivered = anyio.Event()
    body_sent = False

    async def receive() -> dict:
        nonlocal body_sent
        if not body_sent:
            body_sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await delivered.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            delivered.set()

    async with manager.run():
        await manager.handle_request(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    payload = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], start.get("headers", []), payload
