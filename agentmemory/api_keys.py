"""Service functions for API keys: create (returning the raw key once), revoke, authenticate."""
from __future__ import annotations

import hashlib
import secrets

from django.db import transaction
from django.utils import timezone

from .audit import record_event
from .exceptions import InvalidInput
from .models import ApiKey

KEY_PREFIX = "am_"


def hash_key(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode("utf-8")).hexdigest()


def create_api_key(name: str, *, agent_ids: list[str] | None = None) -> tuple[ApiKey, str]:
    """Create a key named ``name``; returns the row and the raw key, which is never stored."""
    name = (name or "").strip()
    if not name:
        raise InvalidInput("An API key needs a name.", field="name")
    if ApiKey.objects.filter(name=name).exists():
        raise InvalidInput(f"An API key named {name!r} already exists.", field="name")
    raw = KEY_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        key = ApiKey.objects.create(name=name, prefix=raw[:10], key_hash=hash_key(raw), agent_ids=agent_ids or [])
        record_event("create", object_type="api_key", object_id=key.pk, after={"name": name, "prefix": key.prefix})
    return key, raw


def revoke_api_key(key: ApiKey) -> ApiKey:
    if key.revoked_at is None:
        with transaction.atomic():
            key.revoked_at = timezone.now()
            key.save(update_fields=["revoked_at"])
            record_event("revoke", object_type="api_key", object_id=key.pk, before={"name": key.name})
    return key


def authenticate_key(raw_key: str) -> ApiKey | None:
    """The usable key matching ``raw_key``, with last use recorded; None when unknown or revoked."""
    key = ApiKey.objects.usable().filter(key_hash=hash_key(raw_key)).first()
    if key is not None:
        now = timezone.now()
        # Write at most once a minute per key: authentication must not be a write per request.
        if key.last_used_at is None or (now - key.last_used_at).total_seconds() > 60:
            ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
            key.last_used_at = now
    return key
