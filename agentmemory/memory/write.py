"""The one write path of long-term memory: validate -> redact -> quality gate -> dedup -> conflicts -> audit.

Used by the API, the extractor (working memory) and the admin alike. Everything after validation
happens in one transaction holding a per-user advisory lock, so concurrent writes of one user are
serialised and nothing is half-written.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ..audit import record_event
from ..conf import app_settings
from ..exceptions import InvalidInput, NotFound
from ..models import MemoryItem
from ..redact import redact, redact_json
from ..timestamps import iso
from ..types import MemoryDraft, WriteResult
from ..validation import validate_tags, validate_user_id
from . import conflicts
from .dedup import find_duplicate, near_identical, noisy_or, norm_value
from .embed import (
    embed_passage,
    embedded_ahead,
    enqueue_pending_embeddings,
)
from .guard import instruction_signals
from .quality import assess_quality
from .rows import (
    KEY_RE,
    SOURCES,
    TYPES,
    after_commit,
    decide_conflicts,
    idempotency_key,
    lock_user,
    normalise_content,
    provenance_entry,
    search_fields,
    snapshot,
    supersede,
    tags_key_of,
    validate_confidence,
    validate_content,
    validate_draft,
)

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
    wanted = norm_value(item)
    if not wanted:
        return ()
    rows = (MemoryItem.objects.for_user(user_id).active()
            .filter(Q(key__in=families) | Q(key__regex=rf"^({'|'.join(families)}):"))
            .filter(tags_key=tags_key).only("id", "value", "content"))
    if draft.agent_id:  # an agent's own note retracts that agent's notes; a shared statement, anyone's
        rows = rows.filter(agent_id=draft.agent_id)
    return tuple(r.pk for r in rows
                 if not isinstance(r.value, dict) and wanted in norm_value(r.value if r.value is not None else r.content))


def _named_existing(user_id: str, draft: MemoryDraft) -> MemoryItem | None:
    """The current item an extractor named as the one this draft restates; None when it is not the user's."""
    if draft.existing_id is None or draft.source == MemoryItem.Source.SYSTEM_LOG:
        return None
    return (MemoryItem.objects.for_user(user_id)
            .filter(pk=draft.existing_id, status__in=[MemoryItem.Status.ACTIVE, MemoryItem.Status.COLD])
            .select_for_update().first())


def _decide(user_id: str, draft: MemoryDraft, value: Any, tags_key: str, named: MemoryItem | None,
            now: dt.datetime) -> conflicts.ConflictDecision:
    """What the new item does to its slot: the conflict rules, the values it retracts, and the item an
    extractor said it updates (which it supersedes, unless that is the user's word against a guess)."""
    decision = decide_conflicts(user_id, draft, tags_key, now)
    retracted = _retracted_ids(user_id, draft, value, tags_key)
    if retracted and not decision.new_is_history:
        decision = replace(
            decision, supersede_ids=tuple(dict.fromkeys((*decision.supersede_ids, *retracted))),
            reason=decision.reason or "retracts an earlier value of the slot")
    corrected = (*_corrected_ids(user_id, draft), *_episodes_of(user_id, draft, decision.supersede_ids))
    if corrected and not decision.new_is_history:
        decision = replace(
            decision, supersede_ids=tuple(dict.fromkeys((*decision.supersede_ids, *corrected))),
            reason=decision.reason or "corrects what the user said before")
    if (named is not None and not decision.new_is_history and named.pk not in decision.supersede_ids
            and not (draft.source == MemoryItem.Source.MODEL_INFERRED
                     and named.source == MemoryItem.Source.USER_STATED)):
        # The extractor says this updates that item: it becomes the new version of it.
        decision = replace(
            decision, supersede_ids=(*decision.supersede_ids, named.pk),
            reason=decision.reason or f"updates memory #{named.pk} (the extractor matched it)")
    return decision


#: The rules' scores an episode the classifier kept must still pass: small talk (0.05), statements about the
#: conversation (0.1) and passing remarks about the weather (0.2) are noise whatever the classifier said.
EPISODE_NOISE = 0.2


def _episodes_of(user_id: str, draft: MemoryDraft, replaced: tuple[int, ...]) -> tuple[int, ...]:
    """The episodes (the user's words) said in the same turns as the slot values a new value replaces, which
    filled that same slot: "我在阿里巴巴工作。" goes with 阿里巴巴 when 腾讯 replaces it, wherever it is written."""
    if not replaced or not draft.key or draft.type == MemoryItem.Type.EPISODE:
        return ()
    slot = draft.key.split(":")[0]
    turns = [t for t in MemoryItem.objects.for_user(user_id).filter(pk__in=list(replaced))
             .values_list("turn_id", flat=True) if t is not None]
    if not turns:
        return ()
    return tuple(pk for pk, value in MemoryItem.objects.for_user(user_id).current()
                 .filter(type=MemoryItem.Type.EPISODE, turn_id__in=turns).values_list("pk", "value")
                 if isinstance(value, dict) and slot in (value.get("slots") or ()))


def _judged_episode(draft: MemoryDraft) -> bool:
    """An episode the disclosure classifier kept (working/episodes.py): the user's words are held only to the
    rules' noise floor, not to their gate ("现在自己开了家咖啡店" is not "about the moment")."""
    return (draft.type == MemoryItem.Type.EPISODE and draft.quality is not None
            and draft.quality >= app_settings.MEMORY_QUALITY_THRESHOLD)


def _corrected_ids(user_id: str, draft: MemoryDraft) -> tuple[int, ...]:
    """The current items of ``draft.supersedes_ids`` that the draft may replace: the user's own words
    replace the user's words and guesses, never a system log."""
    if not draft.supersedes_ids or draft.source != MemoryItem.Source.USER_STATED:
        return ()
    return tuple(MemoryItem.objects.for_user(user_id).current().filter(pk__in=list(draft.supersedes_ids))
                 .exclude(source=MemoryItem.Source.SYSTEM_LOG).values_list("pk", flat=True))


def _find_retry(user_id: str, key: str) -> MemoryItem | None:
    return (MemoryItem.objects.for_user(user_id)
            .filter(status__in=[MemoryItem.Status.ACTIVE, MemoryItem.Status.COLD, MemoryItem.Status.QUARANTINED])
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
    validate_draft(user_id, draft)
    if draft.valid_from is not None and timezone.is_naive(draft.valid_from):
        draft = replace(draft, valid_from=timezone.make_aware(draft.valid_from, dt.UTC))
    content = redact(draft.content.strip().replace("\x00", ""))
    excerpt = redact((draft.excerpt or "").replace("\x00", ""))
    value = redact_json(draft.value)
    tags = validate_tags(draft.tags)
    if draft.source != MemoryItem.Source.SYSTEM_LOG:
        verdict = assess_quality(content, given=draft.quality)
        if not verdict.passed and not (_judged_episode(draft) and verdict.score > EPISODE_NOISE):
            return WriteResult(action="rejected", reason=verdict.reason)
    signals = instruction_signals(content) if draft.source != MemoryItem.Source.SYSTEM_LOG else []
    turn_part = draft.turn_id if draft.source == MemoryItem.Source.SYSTEM_LOG else None
    key = idempotency_key(user_id, draft.session_id, content, turn_id=turn_part)
    # A retried write is found before it costs an embedding (and again under the lock below, which decides).
    existing = None if embedded_ahead(content) else _find_retry(user_id, key)
    if existing is not None:
        return WriteResult(action="unchanged", memory_id=existing.pk, reason="retried write (same session and content)")

    vector, model_name = embed_passage(content)  # outside the transaction: it is the slow part
    if vector is None:
        transaction.on_commit(lambda: enqueue_pending_embeddings(user_id))
    now = timezone.now()
    with transaction.atomic():
        lock_user(user_id)
        existing = _find_retry(user_id, key)
        if existing is not None:
            return WriteResult(action="unchanged", memory_id=existing.pk,
                               reason="retried write (same session and content)")
        tags_key = tags_key_of(tags)
        if signals:
            return _quarantine(user_id, draft, content, excerpt, value, tags, tags_key, key, vector, model_name,
                               signals, now)
        named = _named_existing(user_id, draft)
        if named is not None and (normalise_content(named.content) == normalise_content(content)
                                  or near_identical(named.content, content)
                                  or (draft.key and named.key == draft.key and value is not None
                                      and norm_value(named.value) == norm_value(value))):
            return _merge(named, draft, key, excerpt, now)
        if draft.source != MemoryItem.Source.SYSTEM_LOG and named is None:
            duplicate = find_duplicate(user_id, draft, content, value, tags_key, vector, model_name)
            if duplicate is not None:
                return _merge(duplicate, draft, key, excerpt, now)
        decision = _decide(user_id, draft, value, tags_key, named, now)
        item = _new_item(user_id, draft, content, excerpt, value, tags, tags_key, key, vector, model_name, now)
        if decision.new_is_history:
            kept = MemoryItem.objects.for_user(user_id).get(pk=decision.kept_id)
            item.status = MemoryItem.Status.SUPERSEDED
            item.superseded_at = now
            item.valid_to = kept.valid_from or kept.created_at
        item.save()
        superseded = supersede(user_id, decision.supersede_ids, item, now)
        if decision.new_is_history:
            record_event("create", object_type="memory", object_id=item.pk, user_id=user_id,
                         after=snapshot(item), reason=decision.reason)
            after_commit(user_id)
            return WriteResult(action="created", memory_id=item.pk, reason=decision.reason)
        record_event("create", object_type="memory", object_id=item.pk, user_id=user_id,
                     after=snapshot(item), reason=decision.reason if decision.kept_beside else "")
        after_commit(user_id)
    if superseded:
        return WriteResult(action="superseded_previous", memory_id=item.pk, reason=decision.reason,
                           superseded_ids=tuple(superseded))
    return WriteResult(action="created", memory_id=item.pk, reason=decision.reason if decision.kept_beside else "")


def _new_item(user_id: str, draft: MemoryDraft, content: str, excerpt: str, value: Any, tags: dict, tags_key: str,
              key: str, vector, model_name: str, now: dt.datetime, *,
              status: str = MemoryItem.Status.ACTIVE) -> MemoryItem:
    """The new row of a written draft (unsaved), as validated, redacted and embedded above."""
    return MemoryItem(
        user_id=user_id, agent_id=draft.agent_id, type=draft.type, key=draft.key, content=content, value=value,
        source=draft.source, confidence=float(draft.confidence), status=status, valid_from=draft.valid_from,
        created_at=now, updated_at=now, session_id=draft.session_id, turn_id=draft.turn_id, excerpt=excerpt,
        provenance=[provenance_entry(draft, key, excerpt, now)], tags=tags, tags_key=tags_key, embedding=vector,
        embedding_model=model_name, idempotency_key=key, **search_fields(content, tags),
    )


def _quarantine(user_id: str, draft: MemoryDraft, content: str, excerpt: str, value: Any, tags: dict,
                tags_key: str, key: str, vector, model_name: str, signals: list[str], now: dt.datetime) -> WriteResult:
    """Keep a text that instructs the assistant apart: stored ``quarantined`` (no prompt, recall or profile
    reads it), superseding nothing, until an operator approves or rejects it (memory/review.py)."""
    item = _new_item(user_id, draft, content, excerpt, value, tags, tags_key, key, vector, model_name, now,
                     status=MemoryItem.Status.QUARANTINED)
    item.save()
    reason = f"instructs the assistant ({', '.join(signals)}): held for review"
    record_event("quarantine", object_type="memory", object_id=item.pk, user_id=user_id, after=snapshot(item),
                 reason=reason)
    after_commit(user_id)
    return WriteResult(action="quarantined", memory_id=item.pk, reason=reason)


def _merge(item: MemoryItem, draft: MemoryDraft, key: str, excerpt: str, now: dt.datetime) -> WriteResult:
    before = snapshot(item)
    item.confidence = noisy_or(float(item.confidence), float(draft.confidence))
    if draft.source == MemoryItem.Source.USER_STATED and item.source == MemoryItem.Source.MODEL_INFERRED:
        item.source = MemoryItem.Source.USER_STATED  # the user confirmed the guess
    if draft.key and not item.key:
        item.key = draft.key
    item.provenance = [*(item.provenance or []), provenance_entry(draft, key, excerpt, now)][-50:]
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
    after_commit(item.user_id)
    return WriteResult(action="merged", memory_id=item.pk, reason=f"merged into near-identical memory #{item.pk}")


# --- edits --------------------------------------------------------------------------------------
_VERSIONED = ("content", "value", "key", "type", "tags")
_IN_PLACE = ("confidence", "status", "agent_id", "valid_from", "valid_to", "source")


def _validated_changes(current: MemoryItem, changes: Mapping[str, Any]) -> dict[str, Any]:
    """The changes, validated and redacted (InvalidInput otherwise); a new content clears a stale value."""
    data = dict(changes)
    if "content" in data:
        data["content"] = redact(validate_content(data["content"]))
    if "value" in data:
        data["value"] = redact_json(data["value"])
    if "type" in data and data["type"] not in TYPES:
        raise InvalidInput(f"type must be one of {', '.join(sorted(TYPES))}.", field="type")
    if "source" in data and data["source"] not in SOURCES:
        raise InvalidInput(f"source must be one of {', '.join(sorted(SOURCES))}.", field="source")
    if "key" in data and data["key"] and not KEY_RE.match(data["key"]):
        raise InvalidInput("key must be a short slot name (letters, digits, _ . - :).", field="key")
    if "tags" in data:
        data["tags"] = validate_tags(data["tags"])
    if "confidence" in data:
        data["confidence"] = validate_confidence(data["confidence"])
    if "status" in data and data["status"] not in (MemoryItem.Status.ACTIVE, MemoryItem.Status.COLD):
        raise InvalidInput("status can be set to active or cold; delete an item with DELETE.", field="status")
    if "agent_id" in data and (not isinstance(data["agent_id"], str) or len(data["agent_id"]) > 255):
        raise InvalidInput("agent_id must be a string of at most 255 characters.", field="agent_id")
    if "content" in data and "value" not in data and data["content"] != current.content and current.value is not None:
        # The old structured value described the old sentence: a new content without a new value
        # clears it rather than keeping a value that now contradicts the text.
        data["value"] = None
    return data


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
    if current.status == MemoryItem.Status.QUARANTINED and changes:
        raise InvalidInput("this memory is quarantined (it instructs the assistant): an operator approves or "
                           "rejects it in the admin.", field="status")
    if current.status == MemoryItem.Status.SUPERSEDED and changes:
        raise InvalidInput("this version is superseded; edit the current version instead.", field="id")
    data = _validated_changes(current, changes)
    versioned = {k: v for k, v in data.items() if k in _VERSIONED and getattr(current, k) != v}
    in_place = {k: v for k, v in data.items() if k in _IN_PLACE and getattr(current, k) != v}
    if not versioned and not in_place:
        return WriteResult(action="unchanged", memory_id=current.pk, reason="nothing to change")
    vector = model_name = None
    content_changed = "content" in versioned or "tags" in versioned
    if content_changed:
        vector, model_name = embed_passage(versioned.get("content", current.content))
        if vector is None:
            transaction.on_commit(lambda: enqueue_pending_embeddings(user_id))
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
            after_commit(user_id)
            return WriteResult(action="updated", memory_id=current.pk, reason=reason)
        merged = {**{f: getattr(current, f) for f in (*_VERSIONED, *_IN_PLACE)}, **versioned, **in_place}
        tags = merged["tags"] or {}
        item = MemoryItem(
            user_id=user_id, agent_id=merged["agent_id"], type=merged["type"], key=merged["key"],
            content=merged["content"], value=merged["value"], source=merged["source"],
            confidence=float(merged["confidence"]), status=MemoryItem.Status.ACTIVE,
            valid_from=in_place.get("valid_from") or now, created_at=now, updated_at=now,
            session_id=current.session_id, turn_id=current.turn_id, excerpt=current.excerpt,
            provenance=[*(current.provenance or []), {"correction_of": current.pk, "at": iso(now)}][-50:],
            tags=tags, tags_key=tags_key_of(tags),
            # A changed text never keeps the old text's vector; without one it waits for the sweep.
            embedding=vector if content_changed else current.embedding,
            embedding_model=(model_name or "") if content_changed else current.embedding_model,
            idempotency_key=idempotency_key(user_id, current.session_id, merged["content"]),
            **search_fields(merged["content"], tags),
        )
        item.save()
        # The corrected statement may land in another slot (new key or tags): its rules apply there too.
        decision = decide_conflicts(user_id, MemoryDraft(
            content=item.content, type=item.type, source=item.source, key=item.key, agent_id=item.agent_id,
            valid_from=None), item.tags_key, now)
        others = tuple(i for i in decision.supersede_ids if i not in (current.pk, item.pk))
        superseded = supersede(user_id, (current.pk, *others), item, now, link_to=current.pk)
        record_event("edit", object_type="memory", object_id=item.pk, user_id=user_id, before=before,
                     after={**snapshot(item), "correction_of": current.pk}, reason=reason or "correction")
        after_commit(user_id)
    return WriteResult(action="superseded_previous", memory_id=item.pk, reason=reason or "correction",
                       superseded_ids=tuple(superseded))


