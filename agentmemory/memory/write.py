"""The one write path of long-term memory: validate -> redact -> quality gate -> dedup -> conflicts -> audit.

Used by the API, the extractor (working memory) and the admin alike. Everything after validation
happens in one transaction holding a per-user advisory lock, so concurrent writes of one user are
serialised and nothing is half-written.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from django.contrib.postgres.search import SearchVectorField
from django.db import connection, transaction
from django.db.models import Q, Value
from django.db.models.functions import Cast
from django.utils import timezone
from pgvector.django import CosineDistance

from ..audit import current_actor, current_reason, record_event
from ..backends import get_embedder
from ..conf import app_settings
from ..exceptions import EmbeddingError, InvalidInput, NotFound
from ..models import AuditEvent, MemoryItem
from ..signals import memory_embedding_pending
from ..text import keyword_tokens
from ..types import MemoryDraft, WriteResult
from ..validation import validate_bounded_text, validate_tags, validate_user_id
from . import cache, conflicts
from .keywords import keyword_fields
from .quality import assess_quality
from .redact import redact, redact_json

TYPES = set(MemoryItem.Type.values)
SOURCES = set(MemoryItem.Source.values)
_KEY_RE = re.compile(r"^[\w.\-:]{1,100}$")
_TRAILING_PUNCT = "。！？；…!?;.,，、 \t\n"
_DISTINCT_RE = re.compile(r"[a-z0-9]", re.IGNORECASE)
#: Share of keyword tokens two statements must have in common to be merged as duplicates.
_MIN_TOKEN_OVERLAP = 0.6

logger = logging.getLogger(__name__)


# --- validation and normalisation ---------------------------------------------------------------
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


def _validate_content(content: Any, field: str = "content") -> str:
    return validate_bounded_text(content, field=field, limit_setting="MAX_MEMORY_CHARS").strip()


def _validate_tags(tags: Any) -> dict[str, str]:
    return validate_tags(tags)


def _validate_confidence(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidInput("confidence must be a number between 0 and 1.", field="confidence") from None
    if not 0.0 <= number <= 1.0 or number != number:
        raise InvalidInput("confidence must be between 0 and 1.", field="confidence")
    return number


def _validate_draft(user_id: str, draft: MemoryDraft) -> None:
    validate_user_id(user_id)
    _validate_content(draft.content)
    if draft.type not in TYPES:
        raise InvalidInput(f"type must be one of {', '.join(sorted(TYPES))}.", field="type")
    if draft.source not in SOURCES:
        raise InvalidInput(f"source must be one of {', '.join(sorted(SOURCES))}.", field="source")
    _validate_confidence(draft.confidence)
    if draft.key and not _KEY_RE.match(draft.key):
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
    _validate_tags(draft.tags)
    if draft.valid_from is not None and not isinstance(draft.valid_from, dt.datetime):
        raise InvalidInput("valid_from must be a datetime.", field="valid_from")
    if len(draft.excerpt or "") > 10 * app_settings.MAX_MEMORY_CHARS:
        raise InvalidInput("excerpt is too long.", field="excerpt")


# --- helpers ------------------------------------------------------------------------------------
def snapshot(item: MemoryItem) -> dict:
    """What the audit log keeps of an item (never the vectors)."""
    return {
        "content": item.content, "type": item.type, "key": item.key, "value": item.value,
        "source": item.source, "confidence": round(float(item.confidence), 4), "status": item.status,
        "agent_id": item.agent_id, "tags": item.tags,
        "valid_from": item.valid_from.isoformat() if item.valid_from else None,
        "valid_to": item.valid_to.isoformat() if item.valid_to else None,
        "supersedes_id": item.supersedes_id,
    }


def lock_user(user_id: str) -> None:
    """Serialise writes of one user until the end of the transaction."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [f"agentmemory:memory:{user_id}"])


def embed_passage(text: str) -> tuple[list[float] | None, str]:
    """The passage vector and model of ``text``; (None, "") when the embedder fails.

    A failing embedder must not lose a memory: the item is stored without a vector (keyword recall
    still finds it) and ``embed_pending_memories`` fills the vector in once the embedder is back.
    """
    embedder = get_embedder()
    try:
        vector = embedder.embed_passages([text])[0]
    except EmbeddingError as exc:
        logger.warning("memory stored without embedding (will be embedded later): %s", exc)
        return None, ""
    return [float(x) for x in vector], embedder.model_name


def _enqueue_pending_embeddings(user_id: str) -> None:
    # Services do not know Celery: receivers.py turns this signal into the embedding task.
    memory_embedding_pending.send(sender=MemoryItem, user_id=user_id)


def embed_pending_memories(*, user_id: str | None = None, batch_size: int = 64, other_models: bool = False,
                           progress=None) -> dict:
    """Embed current memories stored without a vector (after an embedder outage); idempotent.

    With ``other_models`` also those whose vector comes from another model than the configured one
    (after switching embedders): batch by batch, each committed, so an interrupted run resumes; recall
    keeps working meanwhile (items not yet re-embedded are found by their keywords).
    ``user_id`` limits the sweep to one user's scope; None sweeps every user (the beat job).
    Returns counts; an embedder still failing leaves the items pending, to be tried again later.
    """
    embedder = get_embedder()
    model = embedder.model_name
    if user_id is not None:
        users = [validate_user_id(user_id)]
    elif other_models:
        users = MemoryItem.objects.users_with_stale_vectors(model)
    else:
        users = MemoryItem.objects.users_with_pending_embeddings()
    embedded = failed = 0
    for uid in users:
        while True:
            stale = Q(embedding__isnull=True) | (~Q(embedding_model=model) if other_models else Q(pk__in=[]))
            batch = list(MemoryItem.objects.for_user(uid).current().filter(stale)
                         .order_by("id").only("id", "content")[:batch_size])
            if not batch:
                break
            try:
                vectors = embedder.embed_passages([m.content for m in batch])
            except EmbeddingError as exc:
                logger.warning("pending memory embeddings of %s still failing: %s", uid, exc)
                failed += len(batch)
                break
            with transaction.atomic():
                for item, vector in zip(batch, vectors, strict=True):
                    # Only fill a vector that is still stale: the content may have changed meanwhile.
                    MemoryItem.objects.for_user(uid).filter(stale, pk=item.pk, content=item.content).update(
                        embedding=[float(x) for x in vector], embedding_model=model)
            embedded += len(batch)
            cache.invalidate_user(uid)
            if progress:
                progress(embedded)
    return {"embedded": embedded, "still_pending": failed}


def _search_fields(content: str, tags: Mapping[str, str]) -> dict:
    # Tag values are searchable too ("java-billing"), with the content.
    text = content + ("\n" + " ".join(tags.values()) if tags else "")
    fields = keyword_fields(text)
    return {"search_vector": Cast(Value(fields["search_vector"]), SearchVectorField()),
            "term_count": fields["term_count"]}


def _distinct_terms(tokens: set[str]) -> set[str]:
    """Names and numbers (MySQL, 5000): two statements differing in these are not duplicates."""
    return {t for t in tokens if _DISTINCT_RE.search(t)}


# A negation on one side only turns a near-copy into its contradiction ("喜欢咖啡" / "不再喜欢咖啡").
_NEGATION_RE = re.compile(r"不再|不|没有|别|\bno longer\b|\bnot\b|n't\b|\bnever\b|\bno\b", re.IGNORECASE)


def _near_identical(a: str, b: str) -> bool:
    """Same names and numbers, the same polarity, and most keyword tokens shared (embeddings alone call
    paraphrases with another value, "行业是母婴用品" / "行业改为跨境电商", or a negation, near-identical)."""
    if bool(_NEGATION_RE.search(a)) != bool(_NEGATION_RE.search(b)):
        return False
    ta, tb = set(keyword_tokens(a)), set(keyword_tokens(b))
    if _distinct_terms(ta) != _distinct_terms(tb):
        return False
    if not ta or not tb:
        return normalise_content(a) == normalise_content(b)
    if ta - tb and tb - ta and len(ta | tb) <= 8:
        # In a short statement a word swapped for another is a new value ("回答简洁" / "回答详细"),
        # not a restatement; only a paraphrase close enough (MEMORY_PARAPHRASE_THRESHOLD) merges then.
        return False
    return len(ta & tb) / len(ta | tb) >= _MIN_TOKEN_OVERLAP


def _noisy_or(a: float, b: float) -> float:
    return round(min(1.0, 1.0 - (1.0 - a) * (1.0 - b)), 4)


def _provenance_entry(draft: MemoryDraft, key: str, excerpt: str, now: dt.datetime) -> dict:
    return {"session_id": draft.session_id, "turn_id": draft.turn_id, "excerpt": excerpt[:500],
            "source": draft.source, "confidence": draft.confidence, "idempotency_key": key,
            "at": now.isoformat()}


def _after_commit(user_id: str) -> None:
    """Drop the user's cache now and again after commit (a reader may re-cache the old state meanwhile)."""
    cache.invalidate_user(user_id)
    transaction.on_commit(lambda: cache.invalidate_user(user_id))


#: Slots that contradict each other value by value: liking sushi ends disliking it.
_OPPOSITE_SLOTS = {"likes": "dislikes", "dislikes": "likes"}
_AVERSIONS = ("dislikes", "do_not_recommend")


def _retracted_ids(user_id: str, draft: MemoryDraft, value: Any, tags_key: str) -> tuple[int, ...]:
    """Active items a stated retraction or an opposite statement ends.

    A retraction is a value ``{"item": X, <slot>: false}`` under a ``<slot>:...`` key ("不再喜欢咖啡",
    "you can recommend crypto again"): it ends the slot's items whose value names X, under any key of
    the slot ("对海鲜过敏" by "不是海鲜过敏"). A like ends the dislike of the same thing and vice versa.
    Only the user's own statements retract.
    """
    if draft.source != MemoryItem.Source.USER_STATED or not draft.key or value is None:
        return ()
    slot = draft.key.split(":")[0]
    if isinstance(value, dict):
        if value.get(slot) is not False or not isinstance(value.get("item"), str):
            return ()
        # "X is fine now" lifts an aversion, whichever way it was stored.
        families, item = _AVERSIONS if slot in _AVERSIONS else (slot,), value["item"]
    elif slot in _OPPOSITE_SLOTS and isinstance(value, str):
        families, item = (_OPPOSITE_SLOTS[slot],), value
    else:
        return ()
    wanted = _norm_value(item)
    if not wanted:
        return ()
    rows = (MemoryItem.objects.for_user(user_id).active()
            .filter(Q(key__in=families) | Q(key__regex=rf"^({'|'.join(families)}):"))
            .filter(tags_key=tags_key, agent_id=draft.agent_id).only("id", "value", "content"))
    return tuple(r.pk for r in rows
                 if not isinstance(r.value, dict) and wanted in _norm_value(r.value if r.value is not None else r.content))


def _named_existing(user_id: str, draft: MemoryDraft) -> MemoryItem | None:
    """The current item an extractor named as the one this draft restates; None when it is not the user's."""
    if draft.existing_id is None or draft.source == MemoryItem.Source.SYSTEM_LOG:
        return None
    return (MemoryItem.objects.for_user(user_id)
            .filter(pk=draft.existing_id, status__in=[MemoryItem.Status.ACTIVE, MemoryItem.Status.COLD])
            .select_for_update().first())


def _find_retry(user_id: str, key: str) -> MemoryItem | None:
    return (MemoryItem.objects.for_user(user_id).current()
            .filter(Q(idempotency_key=key) | Q(provenance__contains=[{"idempotency_key": key}]))
            .order_by("-id").first())


# --- the write path -----------------------------------------------------------------------------
def write_memory(user_id: str, draft: MemoryDraft) -> WriteResult:
    """Store one candidate memory of ``user_id``, or merge it, supersede with it, or reject it.

    Steps: validation (InvalidInput, nothing written) -> PII redaction -> quality gate
    (``user_stated``/``model_inferred`` only) -> idempotency (a retried write returns the existing
    item with action ``unchanged``) -> dedup (merge into a near-identical active item of the same
    type) -> conflicts (``conflicts.decide``) -> audit events, all in one transaction.
    """
    _validate_draft(user_id, draft)
    if draft.valid_from is not None and timezone.is_naive(draft.valid_from):
        draft = replace(draft, valid_from=timezone.make_aware(draft.valid_from, dt.UTC))
    content = redact(draft.content.strip().replace("\x00", ""))
    excerpt = redact((draft.excerpt or "").replace("\x00", ""))
    value = redact_json(draft.value)
    tags = _validate_tags(draft.tags)
    if draft.source != MemoryItem.Source.SYSTEM_LOG:
        verdict = assess_quality(content, given=draft.quality)
        if not verdict.passed:
            return WriteResult(action="rejected", reason=verdict.reason)
    turn_part = draft.turn_id if draft.source == MemoryItem.Source.SYSTEM_LOG else None
    key = idempotency_key(user_id, draft.session_id, content, turn_id=turn_part)
    existing = _find_retry(user_id, key)
    if existing is not None:
        return WriteResult(action="unchanged", memory_id=existing.pk, reason="retried write (same session and content)")

    vector, model_name = embed_passage(content)  # outside the transaction: it is the slow part
    if vector is None:
        transaction.on_commit(lambda: _enqueue_pending_embeddings(user_id))
    now = timezone.now()
    with transaction.atomic():
        lock_user(user_id)
        existing = _find_retry(user_id, key)
        if existing is not None:
            return WriteResult(action="unchanged", memory_id=existing.pk,
                               reason="retried write (same session and content)")
        tags_key = tags_key_of(tags)
        named = _named_existing(user_id, draft)
        if named is not None and (normalise_content(named.content) == normalise_content(content)
                                  or _near_identical(named.content, content)
                                  or (draft.key and named.key == draft.key and value is not None
                                      and _norm_value(named.value) == _norm_value(value))):
            return _merge(named, draft, key, excerpt, now)
        if draft.source != MemoryItem.Source.SYSTEM_LOG and named is None:
            duplicate = _find_duplicate(user_id, draft, content, value, tags_key, vector, model_name)
            if duplicate is not None:
                return _merge(duplicate, draft, key, excerpt, now)
        decision = _decide_conflicts(user_id, draft, tags_key, now)
        retracted = _retracted_ids(user_id, draft, value, tags_key)
        if retracted and not decision.new_is_history:
            decision = replace(
                decision, supersede_ids=tuple(dict.fromkeys((*decision.supersede_ids, *retracted))),
                reason=decision.reason or "retracts an earlier value of the slot")
        if (named is not None and not decision.new_is_history and named.pk not in decision.supersede_ids
                and not (draft.source == MemoryItem.Source.MODEL_INFERRED
                         and named.source == MemoryItem.Source.USER_STATED)):
            # The extractor says this updates that item: it becomes the new version of it.
            decision = replace(
                decision, supersede_ids=(*decision.supersede_ids, named.pk),
                reason=decision.reason or f"updates memory #{named.pk} (the extractor matched it)")
        item = MemoryItem(
            user_id=user_id, agent_id=draft.agent_id, type=draft.type, key=draft.key, content=content,
            value=value, source=draft.source, confidence=float(draft.confidence),
            status=MemoryItem.Status.ACTIVE, valid_from=draft.valid_from, created_at=now, updated_at=now,
            session_id=draft.session_id, turn_id=draft.turn_id, excerpt=excerpt,
            provenance=[_provenance_entry(draft, key, excerpt, now)], tags=tags, tags_key=tags_key,
            embedding=vector, embedding_model=model_name, idempotency_key=key,
            **_search_fields(content, tags),
        )
        if decision.new_is_history:
            kept = MemoryItem.objects.for_user(user_id).get(pk=decision.kept_id)
            item.status = MemoryItem.Status.SUPERSEDED
            item.superseded_at = now
            item.valid_to = kept.valid_from or kept.created_at
        item.save()
        superseded = _supersede(user_id, decision.supersede_ids, item, now)
        if decision.new_is_history:
            record_event("create", object_type="memory", object_id=item.pk, user_id=user_id,
                         after=snapshot(item), reason=decision.reason)
            _after_commit(user_id)
            return WriteResult(action="created", memory_id=item.pk, reason=decision.reason)
        record_event("create", object_type="memory", object_id=item.pk, user_id=user_id,
                     after=snapshot(item), reason=decision.reason if decision.kept_beside else "")
        _after_commit(user_id)
    if superseded:
        return WriteResult(action="superseded_previous", memory_id=item.pk, reason=decision.reason,
                           superseded_ids=tuple(superseded))
    return WriteResult(action="created", memory_id=item.pk, reason=decision.reason if decision.kept_beside else "")


def _norm_value(value: Any) -> str:
    """A slot value compared loosely: "PostgreSQL" = "postgresql", "8万元" = "8万", " 80,000 yuan" = "80000"."""
    text = normalise_content(json.dumps(value, ensure_ascii=False, sort_keys=True) if not isinstance(value, str)
                             else value)
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    return re.sub(r"\s+|元|块|人民币|rmb|yuan|dollars?|usd|[\"'“”。.!！]", "", text)


_NAME_OR_NUMBER_RE = re.compile(r"(?<![\w.])(?:[A-Z][\w.+#-]*|\d[\d,.]*)")
_LATIN_WORD_RE = re.compile(r"[A-Za-z][\w.+#-]*|\d[\d,.]*")
_CJK_RE = re.compile(r"[\u3400-\u9fff]")


def _names_and_numbers(text: str) -> set[str]:
    """Proper names and numbers: capitalised words after the first and digits in English, every Latin word
    and number in Chinese text ("MySQL", "5000", "Stripe")."""
    if _CJK_RE.search(text):
        return {w.lower().rstrip(".,") for w in _LATIN_WORD_RE.findall(text)}
    words = _NAME_OR_NUMBER_RE.findall(text.strip()[1:])  # the sentence's first word is capitalised anyway
    return {w.lower().rstrip(".,") for w in words}


def _same_facts(a: str, b: str) -> bool:
    """Same polarity and the same names and numbers: the precondition of a paraphrase merge."""
    if bool(_NEGATION_RE.search(a)) != bool(_NEGATION_RE.search(b)):
        return False
    return _names_and_numbers(a) == _names_and_numbers(b)


def _another_value(draft: MemoryDraft, value: Any, candidate: MemoryItem) -> bool:
    """Same slot with another value is a conflict, not a duplicate ("MySQL" vs "PostgreSQL"); two keys of a
    multi-valued slot are two values ("dislikes:芹菜" / "dislikes:香菜")."""
    if not draft.key:
        return False
    if candidate.key == draft.key:
        return value is not None and candidate.value not in (None, value)
    return bool(candidate.key)


def _find_duplicate(user_id: str, draft: MemoryDraft, content: str, value: Any, tags_key: str,
                    vector: list[float] | None, model_name: str) -> MemoryItem | None:
    """The active (or cold: a restatement brings it back) item that ``draft`` restates, if any.

    A restatement is: the same slot with the same value (compared loosely); or a near-identical text
    (cosine >= MEMORY_DEDUP_THRESHOLD with most keyword tokens shared); or a paraphrase (cosine >=
    MEMORY_PARAPHRASE_THRESHOLD, other words allowed). All of them need the same names, numbers and
    polarity, and a slot holding another value is a conflict, never a duplicate.
    """
    scope = (MemoryItem.objects.for_user(user_id)
             .filter(status__in=[MemoryItem.Status.ACTIVE, MemoryItem.Status.COLD])
             .filter(type=draft.type, tags_key=tags_key, agent_id=draft.agent_id))
    if draft.key and value is not None:  # the same value, however written, in the same slot
        wanted = _norm_value(value)
        for candidate in scope.filter(key=draft.key).exclude(value=None).order_by("-id")[:20]:
            if _norm_value(candidate.value) == wanted:
                return candidate
    if vector is None:  # embedder down: compare text with the recent items of the same type
        for candidate in scope.order_by("-id")[:50]:
            if _another_value(draft, value, candidate):
                continue
            if _near_identical(candidate.content, content):
                return candidate
        return None
    threshold = app_settings.MEMORY_DEDUP_THRESHOLD
    paraphrase = app_settings.MEMORY_PARAPHRASE_THRESHOLD
    candidates = (scope.filter(embedding_model=model_name)
                  .annotate(distance=CosineDistance("embedding", vector))
                  .filter(distance__lte=1.0 - min(threshold, paraphrase)).order_by("distance")[:5])
    for candidate in candidates:
        if _another_value(draft, value, candidate):
            continue
        similarity = 1.0 - float(candidate.distance)
        if similarity >= threshold and _near_identical(candidate.content, content):
            return candidate
        if similarity >= paraphrase and _same_facts(candidate.content, content):
            return candidate
    return None


def _merge(item: MemoryItem, draft: MemoryDraft, key: str, excerpt: str, now: dt.datetime) -> WriteResult:
    before = snapshot(item)
    item.confidence = _noisy_or(float(item.confidence), float(draft.confidence))
    if draft.source == MemoryItem.Source.USER_STATED and item.source == MemoryItem.Source.MODEL_INFERRED:
        item.source = MemoryItem.Source.USER_STATED  # the user confirmed the guess
    if draft.key and not item.key:
        item.key = draft.key
    item.provenance = [*(item.provenance or []), _provenance_entry(draft, key, excerpt, now)][-50:]
    item.updated_at = now
    fields = ["confidence", "source", "key", "provenance", "updated_at"]
    reason = "near-identical memory restated"
    if item.status == MemoryItem.Status.COLD:
        # The user said it again: it is in use, so it comes back (and counts as accessed now).
        item.status, item.last_accessed_at = MemoryItem.Status.ACTIVE, now
        fields += ["status", "last_accessed_at"]
        reason += "; reactivated"
    item.save(update_fields=fields)
    record_event("merge", object_type="memory", object_id=item.pk, user_id=item.user_id,
                 before=before, after=snapshot(item), reason=reason)
    _after_commit(item.user_id)
    return WriteResult(action="merged", memory_id=item.pk, reason=f"merged into near-identical memory #{item.pk}")


def _decide_conflicts(user_id: str, draft: MemoryDraft, tags_key: str, now: dt.datetime) -> conflicts.ConflictDecision:
    if not draft.key:
        return conflicts.ConflictDecision()
    slot = (MemoryItem.objects.for_user(user_id).current().with_key(draft.key, tags_key)
            .filter(agent_id=draft.agent_id).only("id", "source", "valid_from", "created_at"))
    return conflicts.decide(
        source=draft.source, valid_from=draft.valid_from, now=now,
        slot=[conflicts.SlotItem(s.id, s.source, s.valid_from, s.created_at) for s in slot],
    )


def _supersede(user_id: str, ids: tuple[int, ...], new_item: MemoryItem, now: dt.datetime, *,
               link_to: int | None = None) -> list[int]:
    """Mark ``ids`` superseded by ``new_item`` (audited); link it to ``link_to`` or the newest of them."""
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
        new_item.supersedes = next((o for o in olds if o.pk == link_to), olds[-1])
        new_item.save(update_fields=["supersedes"])
    return done


# --- edits --------------------------------------------------------------------------------------
_VERSIONED = ("content", "value", "key", "type", "tags")
_IN_PLACE = ("confidence", "status", "agent_id", "valid_from", "valid_to", "source")


def update_memory(user_id: str, memory_id: int, *, changes: Mapping[str, Any], reason: str = "") -> WriteResult:
    """Edit one memory of ``user_id``; a change of what it says is a correction, stored as a new version.

    Changing ``content``, ``value``, ``key``, ``type`` or ``tags`` creates a new item that supersedes
    the old one (history kept); ``confidence``, ``status`` (active/cold), ``agent_id``, ``source`` and
    the event times are edited in place. Either way an audit event records before and after.
    """
    validate_user_id(user_id)
    unknown = set(changes) - set(_VERSIONED) - set(_IN_PLACE)
    if unknown:
        raise InvalidInput(f"cannot change {', '.join(sorted(unknown))}.", field=sorted(unknown)[0])
    current = MemoryItem.objects.for_user(user_id).filter(pk=memory_id).first()
    if current is None or current.status == MemoryItem.Status.DELETED:
        raise NotFound(f"memory {memory_id} not found for this user")
    if current.status == MemoryItem.Status.SUPERSEDED and changes:
        raise InvalidInput("this version is superseded; edit the current version instead.", field="id")
    data = dict(changes)
    if "content" in data:
        data["content"] = redact(_validate_content(data["content"]))
    if "value" in data:
        data["value"] = redact_json(data["value"])
    if "type" in data and data["type"] not in TYPES:
        raise InvalidInput(f"type must be one of {', '.join(sorted(TYPES))}.", field="type")
    if "source" in data and data["source"] not in SOURCES:
        raise InvalidInput(f"source must be one of {', '.join(sorted(SOURCES))}.", field="source")
    if "key" in data and data["key"] and not _KEY_RE.match(data["key"]):
        raise InvalidInput("key must be a short slot name (letters, digits, _ . - :).", field="key")
    if "tags" in data:
        data["tags"] = _validate_tags(data["tags"])
    if "confidence" in data:
        data["confidence"] = _validate_confidence(data["confidence"])
    if "status" in data and data["status"] not in (MemoryItem.Status.ACTIVE, MemoryItem.Status.COLD):
        raise InvalidInput("status can be set to active or cold; delete an item with DELETE.", field="status")
    if "agent_id" in data and (not isinstance(data["agent_id"], str) or len(data["agent_id"]) > 255):
        raise InvalidInput("agent_id must be a string of at most 255 characters.", field="agent_id")
    if "content" in data and "value" not in data and data["content"] != current.content and current.value is not None:
        # The old structured value described the old sentence: a new content without a new value
        # clears it rather than keeping a value that now contradicts the text.
        data["value"] = None
    versioned = {k: v for k, v in data.items() if k in _VERSIONED and getattr(current, k) != v}
    in_place = {k: v for k, v in data.items() if k in _IN_PLACE and getattr(current, k) != v}
    if not versioned and not in_place:
        return WriteResult(action="unchanged", memory_id=current.pk, reason="nothing to change")
    vector = model_name = None
    content_changed = "content" in versioned or "tags" in versioned
    if content_changed:
        vector, model_name = embed_passage(versioned.get("content", current.content))
        if vector is None:
            transaction.on_commit(lambda: _enqueue_pending_embeddings(user_id))
    now = timezone.now()
    with transaction.atomic():
        lock_user(user_id)
        current = MemoryItem.objects.for_user(user_id).select_for_update().get(pk=memory_id)
        before = snapshot(current)
        if not versioned:
            for name, value in in_place.items():
                setattr(current, name, value)
            current.updated_at = now
            current.save(update_fields=[*in_place, "updated_at"])
            record_event("edit", object_type="memory", object_id=current.pk, user_id=user_id, before=before,
                         after=snapshot(current), reason=reason)
            _after_commit(user_id)
            return WriteResult(action="updated", memory_id=current.pk, reason=reason)
        merged = {**{f: getattr(current, f) for f in (*_VERSIONED, *_IN_PLACE)}, **versioned, **in_place}
        tags = merged["tags"] or {}
        item = MemoryItem(
            user_id=user_id, agent_id=merged["agent_id"], type=merged["type"], key=merged["key"],
            content=merged["content"], value=merged["value"], source=merged["source"],
            confidence=float(merged["confidence"]), status=MemoryItem.Status.ACTIVE,
            valid_from=in_place.get("valid_from") or now, created_at=now, updated_at=now,
            session_id=current.session_id, turn_id=current.turn_id, excerpt=current.excerpt,
            provenance=[*(current.provenance or []), {"correction_of": current.pk, "at": now.isoformat()}][-50:],
            tags=tags, tags_key=tags_key_of(tags),
            # A changed text never keeps the old text's vector; without one it waits for the sweep.
            embedding=vector if content_changed else current.embedding,
            embedding_model=(model_name or "") if content_changed else current.embedding_model,
            idempotency_key=idempotency_key(user_id, current.session_id, merged["content"]),
            **_search_fields(merged["content"], tags),
        )
        item.save()
        # The corrected statement may land in another slot (new key or tags): its rules apply there too.
        decision = _decide_conflicts(user_id, MemoryDraft(
            content=item.content, type=item.type, source=item.source, key=item.key, agent_id=item.agent_id,
            valid_from=None), item.tags_key, now)
        others = tuple(i for i in decision.supersede_ids if i not in (current.pk, item.pk))
        superseded = _supersede(user_id, (current.pk, *others), item, now, link_to=current.pk)
        record_event("edit", object_type="memory", object_id=item.pk, user_id=user_id, before=before,
                     after={**snapshot(item), "correction_of": current.pk}, reason=reason or "correction")
        _after_commit(user_id)
    return WriteResult(action="superseded_previous", memory_id=item.pk, reason=reason or "correction",
                       superseded_ids=tuple(superseded))


# --- bulk import of logs ------------------------------------------------------------------------
def import_log(user_id: str, drafts: list[MemoryDraft], *, batch_size: int = 500) -> list[int]:
    """Store ``system_log`` events of ``user_id`` in bulk (e.g. a dialogue log, one event per turn).

    Logs are stored as given after redaction: no quality gate, dedup or conflicts, as for a single
    ``system_log`` write. Embeddings are computed in batches; an event already imported (same
    session, turn and content) is skipped, so re-running an import is a no-op. Returns the ids of
    the events (existing or new), in the order of ``drafts``.
    """
    validate_user_id(user_id)
    for draft in drafts:
        _validate_draft(user_id, draft)
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
            transaction.on_commit(lambda: _enqueue_pending_embeddings(user_id))
        now = timezone.now()
        rows = []
        for j, i in enumerate(todo):
            d = part[i]
            tags = _validate_tags(d.tags)
            excerpt = redact(d.excerpt or "")
            words = keyword_fields(contents[i] + ("\n" + " ".join(tags.values()) if tags else ""))
            rows.append(MemoryItem(
                user_id=user_id, agent_id=d.agent_id, type=d.type, key=d.key, content=contents[i],
                value=redact_json(d.value), source=d.source, confidence=float(d.confidence),
                valid_from=(timezone.make_aware(d.valid_from, dt.UTC)
                            if d.valid_from is not None and timezone.is_naive(d.valid_from) else d.valid_from),
                created_at=now, updated_at=now, session_id=d.session_id,
                turn_id=d.turn_id, excerpt=excerpt, provenance=[_provenance_entry(d, keys[i], excerpt, now)],
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
            _after_commit(user_id)
        known.update({keys[i]: m.pk for i, m in zip(todo, created, strict=True)})
        ids.extend(known[k] for k in keys)
    return ids
