"""What every write of a memory row shares: validation, normal forms, the audit snapshot, the per-user lock,
the keyword columns, provenance, conflicts and supersession, and the cache drop after commit.

write.py (one memory written or edited) and bulk.py (dialogue logs imported) build on these.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from django.contrib.postgres.search import SearchVectorField
from django.db import connection, transaction
from django.db.models import Value
from django.db.models.functions import Cast

from ..audit import record_event
from ..conf import app_settings
from ..exceptions import InvalidInput
from ..models import MemoryItem
from ..timestamps import iso
from ..types import MemoryDraft
from ..validation import validate_bounded_text, validate_tags, validate_user_id
from . import cache, conflicts
from .keywords import keyword_fields

TYPES = set(MemoryItem.Type.values)
SOURCES = set(MemoryItem.Source.values)
KEY_RE = re.compile(r"^[\w.\-:]{1,100}$")
_TRAILING_PUNCT = "。！？；…!?;.,，、 \t\n"


def normalise_content(text: str) -> str:
    """Normal form for idempotency: NFKC, lower case, single spaces, no trailing punctuation."""
    text = unicodedata.normalize("NFKC", text).lower()
    return " ".join(text.split()).strip(_TRAILING_PUNCT)


def tags_key_of(tags: Mapping[str, str] | None) -> str:
    return json.dumps(dict(sorted((tags or {}).items())), ensure_ascii=False, separators=(",", ":")) if tags else ""


def idempotency_key(user_id: str, session_id: str, content: str, *, turn_id: int | None = None) -> str:
    parts = [user_id, session_id or "", normalise_content(content)]
    if turn_id is not None:
        parts.append(str(turn_id))
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def validate_content(content: Any, field: str = "content") -> str:
    return validate_bounded_text(content, field=field, limit_setting="MAX_MEMORY_CHARS").strip()


def validate_confidence(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidInput("confidence must be a number between 0 and 1.", field="confidence") from None
    if not 0.0 <= number <= 1.0 or number != number:
        raise InvalidInput("confidence must be between 0 and 1.", field="confidence")
    return number


def validate_draft(user_id: str, draft: MemoryDraft) -> None:
    validate_user_id(user_id)
    validate_content(draft.content)
    if draft.type not in TYPES:
        raise InvalidInput(f"type must be one of {', '.join(sorted(TYPES))}.", field="type")
    if draft.source not in SOURCES:
        raise InvalidInput(f"source must be one of {', '.join(sorted(SOURCES))}.", field="source")
    validate_confidence(draft.confidence)
    if draft.key and not KEY_RE.match(draft.key):
        raise InvalidInput("key must be a short slot name (letters, digits, _ . - :), e.g. tech_stack.",
                           field="key")
    for name in ("agent_id", "session_id"):
        value = getattr(draft, name)
        if not isinstance(value, str) or len(value) > 255:
            raise InvalidInput(f"{name} must be a string of at most 255 characters.", field=name)
    if draft.turn_id is not None and not isinstance(draft.turn_id, int):
        raise InvalidInput("turn_id must be an integer.", field="turn_id")
    if draft.existing_id is not None and (isinstance(draft.existing_id, bool) or not isinstance(draft.existing_id, int)):
        raise InvalidInput("existing_id must be an integer.", field="existing_id")
    validate_tags(draft.tags)
    if draft.valid_from is not None and not isinstance(draft.valid_from, dt.datetime):
        raise InvalidInput("valid_from must be a datetime.", field="valid_from")
    if len(draft.excerpt or "") > 10 * app_settings.MAX_MEMORY_CHARS:
        raise InvalidInput("excerpt is too long.", field="excerpt")


def snapshot(item: MemoryItem) -> dict:
    """What the audit log keeps of an item (never the vectors)."""
    return {
        "content": item.content, "type": item.type, "key": item.key, "value": item.value,
        "source": item.source, "confidence": round(float(item.confidence), 4), "status": item.status,
        "agent_id": item.agent_id, "tags": item.tags,
        "valid_from": iso(item.valid_from),
        "valid_to": iso(item.valid_to),
        "supersedes_id": item.supersedes_id,
    }


def lock_user(user_id: str) -> None:
    """Serialise writes of one user until the end of the transaction."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [f"agentmemory:memory:{user_id}"])


def search_fields(content: str, tags: Mapping[str, str]) -> dict:
    # Tag values are searchable too ("java-billing"), with the content.
    text = content + ("\n" + " ".join(tags.values()) if tags else "")
    fields = keyword_fields(text)
    return {"search_vector": Cast(Value(fields["search_vector"]), SearchVectorField()),
            "term_count": fields["term_count"]}


def provenance_entry(draft: MemoryDraft, key: str, excerpt: str, now: dt.datetime) -> dict:
    return {"session_id": draft.session_id, "turn_id": draft.turn_id, "excerpt": excerpt[:500],
            "source": draft.source, "confidence": draft.confidence, "idempotency_key": key,
            "at": iso(now)}


def after_commit(user_id: str) -> None:
    """Drop the user's cache now and again after commit (a reader may re-cache the old state meanwhile)."""
    cache.invalidate_user(user_id)
    transaction.on_commit(lambda: cache.invalidate_user(user_id))


def decide_conflicts(user_id: str, draft: MemoryDraft, tags_key: str, now: dt.datetime) -> conflicts.ConflictDecision:
    if not draft.key:
        return conflicts.ConflictDecision()
    slot = MemoryItem.objects.for_user(user_id).current().with_key(draft.key, tags_key)
    if draft.agent_id:
        # An agent's own note competes with that agent's notes only.
        slot = slot.filter(agent_id=draft.agent_id)
    # A shared statement is the user's one truth: it supersedes the slot's values of every agent.
    slot = slot.only("id", "source", "valid_from", "created_at")
    return conflicts.decide(
        source=draft.source, valid_from=draft.valid_from, now=now,
        slot=[conflicts.SlotItem(s.id, s.source, s.valid_from, s.created_at) for s in slot],
    )


def supersede(user_id: str, ids: tuple[int, ...], new_item: MemoryItem, now: dt.datetime, *,
               link_to: int | None = None) -> list[int]:
    """Mark ``ids`` superseded by ``new_item`` (audited); link it to ``link_to`` or the newest of its slot."""
    if not ids:
        return []
    done = []
    olds = list(MemoryItem.objects.for_user(user_id).filter(pk__in=ids).select_for_update().order_by("created_at", "id"))
    for old in olds:
        before = snapshot(old)
        old.status = MemoryItem.Status.SUPERSEDED
        old.valid_to = new_item.valid_from or now
        old.superseded_at = now
        old.updated_at = now
        old.save(update_fields=["status", "valid_to", "superseded_at", "updated_at"])
        record_event("supersede", object_type="memory", object_id=old.pk, user_id=user_id, before=before,
                     after={**snapshot(old), "superseded_by_id": new_item.pk})
        done.append(old.pk)
    if olds:
        # The version it follows: the one named, else the newest of its own slot and kind (a slot fact follows
        # the slot's old value, not an episode it also replaced), else the newest.
        same_slot = [o for o in olds if o.key == new_item.key and o.type == new_item.type]
        new_item.supersedes = next((o for o in olds if o.pk == link_to), (same_slot or olds)[-1])
        new_item.save(update_fields=["supersedes"])
    return done
