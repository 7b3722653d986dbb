"""Print the agent tools' schemas: OpenAI function calling (default) or MCP tool definitions."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand

from ...tools.registry import TOOLS
from ...tools.schemas import openai_tools, parameters_schema


class Command(BaseCommand):
    help = "Print the tools agents call (remember, recall, ...) as OpenAI-style JSON schemas, or as MCP tools."

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=["openai", "mcp"], default="openai")

    def handle(self, *args, format: str, **options):
        if format == "openai":
            data = openai_tools()
        else:
            data = [{"name": t.name, "description": t.description, "inputSchema": parameters_schema(t)}
                    for t in TOOLS.values()]
        self.stdout.write(json.dumps(data, ensure_ascii=False, indent=2))
