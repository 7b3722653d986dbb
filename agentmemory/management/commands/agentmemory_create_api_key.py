"""Create an API key; the key is printed alone on the last line (it is never shown again)."""
from __future__ import annotations

import datetime as dt
import re

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from ...api_keys import create_api_key
from ...audit import audit_context
from ...exceptions import InvalidInput
from ...models.api_keys import SCOPES

_DURATION = re.compile(r"^(\d+)([mhd])$")


def _expiry(value: str) -> dt.datetime:
    match = _DURATION.match(value.strip())
    if not match:
        raise CommandError(f"--expires-in takes a duration like 30m, 12h or 90d; got {value!r}.")
    amount, unit = int(match.group(1)), match.group(2)
    delta = {"m": dt.timedelta(minutes=amount), "h": dt.timedelta(hours=amount), "d": dt.timedelta(days=amount)}[unit]
    return timezone.now() + delta


class Command(BaseCommand):
    help = ("Create an API key. Prints the key alone on the last line. Without options the key may do "
            "everything (a service key); limit it with --scope, --agent, --user, --user-prefix, --expires-in.")

    def add_arguments(self, parser):
        parser.add_argument("name", help="Who or what will use the key.")
        parser.add_argument("--scope", action="append", dest="scopes", choices=SCOPES, default=None,
                            help="An operation the key may perform (repeatable): read, write, admin "
                                 "(knowledge-base writes, forgetting a user). Default: all three.")
        parser.add_argument("--agent", action="append", dest="agents", default=[],
                            help="Limit the key to this agent id (repeatable). Default: every agent.")
        parser.add_argument("--user", action="append", dest="users", default=[],
                            help="Limit the key to this end-user id (repeatable), e.g. a key for one user's "
                                 "device. Default: every user.")
        parser.add_argument("--user-prefix", default="",
                            help="Also allow every end-user id starting with this prefix (e.g. tenant-42:).")
        parser.add_argument("--expires-in", default=None, help="Expire after a duration: 30m, 12h, 90d.")

    def handle(self, *args, name: str, scopes, agents, users, user_prefix: str, expires_in, **options):
        expires_at = _expiry(expires_in) if expires_in else None
        try:
            with audit_context("command:agentmemory_create_api_key"):
                key, raw = create_api_key(name, scopes=scopes, agent_ids=agents, user_ids=users,
                                          user_id_prefix=user_prefix, expires_at=expires_at)
        except InvalidInput as exc:
            raise CommandError(exc.detail) from exc
        limits = [f"scopes {', '.join(key.scopes)}"]
        if key.agent_ids:
            limits.append(f"agents {', '.join(key.agent_ids)}")
        if key.limits_users:
            users_text = ", ".join(key.user_ids)
            if key.user_id_prefix:
                users_text += (", " if users_text else "") + f"ids starting with {key.user_id_prefix!r}"
            limits.append(f"users {users_text}")
        if key.expires_at:
            limits.append(f"expires {key.expires_at:%Y-%m-%d %H:%M} UTC")
        self.stdout.write(f"Created API key {key.name!r} (prefix {key.prefix}; {'; '.join(limits)}). "
                          "Send it as 'Authorization: Bearer <key>'.")
        self.stdout.write(raw)
