"""Service functions for API keys: create (returning the raw key once), revoke, authenticate."""
from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from .audit import record_event
from .exceptions import InvalidInput
from .models import ApiKey
from .models.api_keys import SCOPES
from .timestamps import iso

KEY_PREFIX = "am_"


def hash_key(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode("utf-8")).hexdigest()


def _clean_ids(values, field: str) -> list[str]:
    if values is None:
        return []
    if not isinstance(values, list | tuple) or not all(isinstance(v, str) for v in values):
        raise InvalidInput(f"{field} must be a list of strings.", field=field)
    cleaned = sorted({v.strip() for v in values if v.strip()})
    if any(len(v) > 255 for v in cleaned):
        raise InvalidInput(f"Each of {field} has at most 255 characters.", field=field)
    return cleaned


def create_api_key(
    name: str,
    *,
    scopes: list[str] | tuple[str, ...] | None = None,
    agent_ids: list[str] | None = None,
    user_ids: list[str] | None = None,
    user_id_prefix: str = "",
    expires_at: datetime | None = None,
) -> tuple[ApiKey, str]:
    """Create a key named ``name``; returns the row and the raw key, which is never stored.

    ``scopes`` defaults to every scope (read, write, admin): a service key. A key for one end user's
    device is ``scopes=["read", "write"], user_ids=[that_user]``.
    """
    name = (name or "").strip()
    if not name:
        raise InvalidInput("An API key needs a name.", field="name")
    if len(name) > 100:
        raise InvalidInput("An API key's name has at most 100 characters.", field="name")
    requested = list(SCOPES) if scopes is None else list(scopes)
    if not requested or any(s not in SCOPES for s in requested):
        raise InvalidInput(f"scopes must be a non-empty subset of {', '.join(SCOPES)}; got {requested!r}.",
                           field="scopes")
    scopes = [s for s in SCOPES if s in requested]
    if expires_at is not None and expires_at <= timezone.now():
        raise InvalidInput("expires_at must be in the future.", field="expires_at")
    user_id_prefix = (user_id_prefix or "").strip()
    if ApiKey.objects.filter(name=name).exists():
        raise InvalidInput(f"An API key named {name!r} already exists.", field="name")
    raw = KEY_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        key = ApiKey.objects.create(
            name=name, prefix=raw[:10], key_hash=hash_key(raw), scopes=scopes,
            agent_ids=_clean_ids(agent_ids, "agent_ids"), user_ids=_clean_ids(user_ids, "user_ids"),
            user_id_prefix=user_id_prefix, expires_at=expires_at,
        )
        record_event("create", object_type="api_key", object_id=key.pk, after=describe_key(key))
    return key, raw


def describe_key(key: ApiKey) -> dict:
    """What a key may do, as JSON (whoami, audit events)."""
    return {
        "name": key.name, "prefix": key.prefix, "scopes": list(key.scopes or []),
        "agent_ids": list(key.agent_ids or []), "user_ids": list(key.user_ids or []),
        "user_id_prefix": key.user_id_prefix,
        "expires_at": iso(key.expires_at),
    }


def revoke_api_key(key: ApiKey) -> ApiKey:
    """Revoke at once: the next request with the key gets 401."""
    if key.revoked_at is None:
        with transaction.atomic():
            key.revoked_at = timezone.now()
            key.save(update_fields=["revoked_at"])
            record_event("revoke", object_type="api_key", object_id=key.pk, before={"name": key.name})
    return key


class KeyRejected(Exception):
    """The key exists but may not be used (revoked or expired); the message says which."""


def authenticate_key(raw_key: str) -> ApiKey | None:
    """The usable key matching ``raw_key``, with last use recorded; None when unknown.

    Raises KeyRejected for a revoked or expired key, so the caller can say why.
    """
    key = ApiKey.objects.filter(key_hash=hash_key(raw_key)).first()
    if key is None:
        return None
    now = timezone.now()
    if key.revoked_at is not None:
        raise KeyRejected("Invalid or revoked API key.")
    if key.expires_at is not None and key.expires_at <= now:
        raise KeyRejected("This API key has expired.")
    # Write at most once a minute per key: authentication must not be a write per request.
    if key.last_used_at is None or (now - key.last_used_at).total_seconds() > 60:
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        key.last_used_at = now
    return key
