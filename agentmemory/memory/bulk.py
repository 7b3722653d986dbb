"""Bulk import of ``system_log`` events (a dialogue log, one event per turn): stored as given after redaction,
embedded in batches, idempotent."""
from __future__ import annotations

import datetime as dt
import logging

from django.db import transaction
from django.utils import timezone

from ..audit import current_actor, current_reason
from ..backends import get_embedder
from ..exceptions import EmbeddingError, InvalidInput
from ..models import AuditEvent, MemoryItem
from ..redact import redact, redact_json
from ..types import MemoryDraft
from ..validation import validate_tags, validate_user_id
from .embed import enqueue_pending_embeddings
from .keywords import keyword_fields
from .rows import (
    after_commit,
    idempotency_key,
    lock_user,
    provenance_entry,
    snapshot,
    tags_key_of,
    validate_draft,
)

logger = logging.getLogger(__name__)


def import_log(user_id: str, drafts: list[MemoryDraft], *, batch_size: int = 500) -> list[int]:
    """Store ``system_log`` events of ``user_id`` in bulk (e.g. a dialogue log, one event per turn).

    Logs are stored as given after redaction: no quality gate, dedup or conflicts, as for a single
    ``system_log`` write. Embeddings are computed in batches; an event already imported (same
    session, turn and content) is skipped, so re-running an import is a no-op. Returns the ids of
    the events (existing or new), in the order of ``drafts``.
    """
    validate_user_id(user_id)
    for draft in drafts:
        validate_draft(user_id, draft)
        if draft.source != MemoryItem.Source.SYSTEM_LOG:
            raise InvalidInput("import_log takes system_log events only; use write_memory.", field="source")
    embedder = get_embedder()
    ids: list[int] = []
    for start in range(0, len(drafts), batch_size):
        part = drafts[start : start + batch_size]
        contents = [redact(d.content.strip()) for d in part]
        keys = [idempotency_key(user_id, d.session_id, c, turn_id=d.turn_id) for d, c in zip(part, contents, strict=True)]
        known = dict(MemoryItem.objects.for_user(user_id).current().filter(idempotency_key__in=keys)
                     .values_list("idempotency_key", "id"))
        todo, seen = [], set()
        for i, k in enumerate(keys):
            if k not in known and k not in seen:  # the same event twice in one import is stored once
                todo.append(i)
                seen.add(k)
        try:
            vectors = embedder.embed_passages([contents[i] for i in todo]) if todo else []
        except EmbeddingError as exc:  # store the events now, embed them when the embedder is back
            logger.warning("log import stored without embeddings (will be embedded later): %s", exc)
            vectors = None
            transaction.on_commit(lambda: enqueue_pending_embeddings(user_id))
        now = timezone.now()
        rows = []
        for j, i in enumerate(todo):
            d = part[i]
            tags = validate_tags(d.tags)
            excerpt = redact(d.excerpt or "")
            words = keyword_fields(contents[i] + ("\n" + " ".join(tags.values()) if tags else ""))
            rows.append(MemoryItem(
                user_id=user_id, agent_id=d.agent_id, type=d.type, key=d.key, content=contents[i],
                value=redact_json(d.value), source=d.source, confidence=float(d.confidence),
                valid_from=(timezone.make_aware(d.valid_from, dt.UTC)
                            if d.valid_from is not None and timezone.is_naive(d.valid_from) else d.valid_from),
                created_at=now, updated_at=now, session_id=d.session_id,
                turn_id=d.turn_id, excerpt=excerpt, provenance=[provenance_entry(d, keys[i], excerpt, now)],
                tags=tags, tags_key=tags_key_of(tags),
                embedding=[float(x) for x in vectors[j]] if vectors is not None else None,
                embedding_model=embedder.model_name if vectors is not None else "", idempotency_key=keys[i],
                search_vector=words["search_vector"], term_count=words["term_count"],
            ))
        with transaction.atomic():
            lock_user(user_id)
            created = MemoryItem.objects.bulk_create(rows)
            AuditEvent.objects.bulk_create([
                AuditEvent(actor=current_actor(), action="create", reason=current_reason()[:500] or "log import",
                           object_type="memory", object_id=str(m.pk), user_id=user_id, after=snapshot(m))
                for m in created
            ])
            after_commit(user_id)
        known.update({keys[i]: m.pk for i, m in zip(todo, created, strict=True)})
        ids.extend(known[k] for k in keys)
    return ids
