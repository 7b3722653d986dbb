"""Serve the MCP tools over stdio, for an agent runtime that launches it as a subprocess."""
from __future__ import annotations

import os

import anyio
from django.core.management.base import BaseCommand, CommandError

from ...api.access import Principal
from ...api_keys import KeyRejected, authenticate_key


class Command(BaseCommand):
    help = ("Run the agentmemory MCP server over stdio (tools remember, recall, forget_memory, search_knowledge, "
            "get_context, append_turn, end_session; the profile resource). It acts with the rights of an API "
            "key: --key or $AGENTMEMORY_API_KEY.")

    def add_arguments(self, parser):
        parser.add_argument("--key", default=None, help="An API key (default: $AGENTMEMORY_API_KEY).")

    def handle(self, *args, key: str | None, **options):
        try:
            from ...tools.mcp import serve_stdio
        except ImportError as exc:
            raise CommandError("MCP support is not installed: pip install 'agentmemory[mcp]'.") from exc

        raw = key or os.environ.get("AGENTMEMORY_API_KEY", "")
        if not raw:
            raise CommandError("Give an API key with --key or $AGENTMEMORY_API_KEY (agentmemory_create_api_key); "
                               "the MCP server acts with its scopes.")
        try:
            api_key = authenticate_key(raw)
        except KeyRejected as exc:
            raise CommandError(str(exc)) from exc
        if api_key is None:
            raise CommandError("Invalid API key.")
        principal = Principal(kind="api_key", actor=f"api_key:{api_key.name}", key=api_key)
        # stdout is the protocol's channel: nothing else may be printed there.
        anyio.run(serve_stdio, principal)
