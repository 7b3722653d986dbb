"""Create an API key; the key is printed alone on the last line (it is never shown again)."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from ...api_keys import create_api_key
from ...audit import audit_context
from ...exceptions import InvalidInput


class Command(BaseCommand):
    help = "Create an API key for a service client. Prints the key alone on the last line."

    def add_arguments(self, parser):
        parser.add_argument("name", help="Who or what will use the key.")
        parser.add_argument("--agent", action="append", dest="agents", default=[],
                            help="Limit the key to this agent id (repeatable). Default: every agent.")

    def handle(self, *args, name: str, agents: list[str], **options):
        try:
            with audit_context("command:agentmemory_create_api_key"):
                key, raw = create_api_key(name, agent_ids=agents)
        except InvalidInput as exc:
            raise CommandError(exc.detail) from exc
        self.stdout.write(f"Created API key {key.name!r} (prefix {key.prefix}). Send it as 'Authorization: Bearer <key>'.")
        self.stdout.write(raw)
