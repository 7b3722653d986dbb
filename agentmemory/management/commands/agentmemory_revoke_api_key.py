"""Revoke an API key by name."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from ...api_keys import revoke_api_key
from ...audit import audit_context
from ...models import ApiKey


class Command(BaseCommand):
    help = "Revoke the API key with the given name; requests with it then get 401."

    def add_arguments(self, parser):
        parser.add_argument("name")

    def handle(self, *args, name: str, **options):
        key = ApiKey.objects.filter(name=name).first()
        if key is None:
            raise CommandError(f"No API key named {name!r}.")
        with audit_context("command:agentmemory_revoke_api_key"):
            revoke_api_key(key)
        self.stdout.write(f"Revoked API key {name!r}.")
