"""Feedback on a recorded context (REST ``POST contexts/{id}/feedback/``): a rating of the whole context or of
the items it names by their prompt markers ("M2", "K1"), and what it changes.

- **-1 on a memory** (profile or long-term): its confidence drops by FEEDBACK_CONFIDENCE_STEP; below
  FEEDBACK_REVIEW_BELOW, or when it was a model's inference, it leaves the prompt for an operator's review
  (memory/review.mark_down).
- **A correction** ("I work at Tencent now"): a user-stated memory. With a marked memory it is that memory's
  new version (memory/write.update_memory: same slot, superseding it, history kept); without one it is
  written as any statement of the user (the write path's conflicts decide what it replaces), which is how a
  user's correction of a knowledge-base answer is kept for that user.
- **-1 on a knowledge chunk**: an evaluation case is proposed for the operator (source ``feedback``, not
  accepted): the query, with the chunk under ``rejected_chunk_ids``; the operator names the chunk that should
  answer and accepts it, and from then on evaluations and the publish gate check it. **+1 on a chunk**
  proposes a case expecting that chunk.
- **+1 on a memory** is kept with the feedback and changes nothing.

Each feedback row keeps its effects, one entry per item, and an audit event ``context.feedback``. The same
feedback sent again on the same context (a client's retry) returns the first row and changes nothing twice.
"""
from __future__ import annotations

from django.db import transaction

from ..audit import record_event
from ..conf import app_settings
from ..exceptions import InvalidInput
from ..memory.review import mark_down
from ..memory.write import update_memory, write_memory
from ..models import Chunk, ContextFeedback, ContextRecord, EvaluationCase, MemoryItem
from ..redact import redact_text
from ..types import MemoryDraft

MAX_TEXT = 2000
MAX_ITEMS = 20
_MEMORY_SECTIONS = ("profile", "long_term_memory")


def _marked(record: ContextRecord, markers: list[str]) -> list[dict]:
    """The ledger items ``markers`` name, in the order given (InvalidInput for a marker the context lacks)."""
    by_marker = {item.get("marker"): item for item in record.items if item.get("marker")}
    unknown = [m for m in markers if m not in by_marker]
    if unknown:
        known = ", ".join(sorted(by_marker)) or "none"
        raise InvalidInput(f"context {record.pk} has no item {', '.join(unknown)} (its markers: {known}).",
                           field="items")
    return [by_marker[m] for m in dict.fromkeys(markers)]


def _text(value, field: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise InvalidInput(f"{field} must be a string of at most {MAX_TEXT} characters.", field=field)
    return value.strip()


def give_feedback(record: ContextRecord, *, rating, items=None, comment=None, correction=None,
                  actor: str = "") -> ContextFeedback:
    """Record feedback on ``record`` and apply its effects (see the module docstring)."""
    if rating not in (1, -1) or isinstance(rating, bool):
        raise InvalidInput("rating must be 1 or -1.", field="rating")
    markers = items or []
    if not isinstance(markers, list) or len(markers) > MAX_ITEMS or not all(isinstance(m, str) for m in markers):
        raise InvalidInput(f"items must be a list of at most {MAX_ITEMS} markers such as \"M2\" or \"K1\".",
                           field="items")
    comment, correction = _text(comment, "comment"), _text(correction, "correction")
    if correction and rating != -1:
        raise InvalidInput("a correction comes with rating -1.", field="correction")
    marked = _marked(record, markers)
    # A retried request (the same feedback on the same context) changes nothing twice: the first row answers.
    same = ContextFeedback.objects.filter(context=record, rating=rating, items=list(dict.fromkeys(markers)),
                                          comment=redact_text(comment), correction=redact_text(correction)).first()
    if same is not None:
        return same
    memories = [m for m in marked if m.get("section") in _MEMORY_SECTIONS and m.get("ref", {}).get("memory_id")]
    chunks = [m for m in marked if m.get("section") == "knowledge" and m.get("ref", {}).get("chunk_id")]
    reason = f"feedback on context {record.pk}"
    effects: list[dict] = []
    corrected: int | None = None
    if correction:
        effects.append(_correct(record, correction, memories, reason))
        corrected = effects[-1].get("corrects")
    if rating == -1:
        for item in memories:
            if item["ref"]["memory_id"] == corrected:
                continue
            effects.append({"marker": item["marker"], **mark_down(
                record.user_id, item["ref"]["memory_id"], step=app_settings.FEEDBACK_CONFIDENCE_STEP,
                review_below=app_settings.FEEDBACK_REVIEW_BELOW, reason=reason)})
    else:
        effects += [{"marker": m["marker"], "memory_id": m["ref"]["memory_id"], "action": "noted"} for m in memories]
    effects += [_propose_case(record, item, rating, comment) for item in chunks]
    with transaction.atomic():
        row = ContextFeedback.objects.create(
            context=record, user_id=record.user_id, rating=rating, items=list(dict.fromkeys(markers)),
            comment=redact_text(comment), correction=redact_text(correction), actor=actor[:255], effects=effects)
        record_event("context.feedback", object_type="context_record", object_id=record.pk, user_id=record.user_id,
                     after={"rating": rating, "items": row.items, "effects": effects}, actor=actor)
    return row


def _correct(record: ContextRecord, correction: str, memories: list[dict], reason: str) -> dict:
    """The correction as a user-stated memory: the first marked memory's new version, else a new statement."""
    for item in memories:
        current = MemoryItem.objects.for_user(record.user_id).current().filter(pk=item["ref"]["memory_id"]).first()
        if current is None:
            continue
        result = update_memory(record.user_id, current.pk, reason=reason, changes={
            "content": correction, "source": MemoryItem.Source.USER_STATED,
            "confidence": max(current.confidence, 0.95)})
        return {"marker": item["marker"], "action": "corrected", "corrects": current.pk,
                "memory_id": result.memory_id, "superseded_ids": list(result.superseded_ids)}
    result = write_memory(record.user_id, MemoryDraft(
        content=correction, type=MemoryItem.Type.FACT, source=MemoryItem.Source.USER_STATED, confidence=0.95,
        quality=1.0, agent_id="", session_id=record.session_id, excerpt=correction))
    return {"action": "correction_" + result.action, "memory_id": result.memory_id,
            "superseded_ids": list(result.superseded_ids), **({"reason": result.reason} if result.reason else {})}


def _propose_case(record: ContextRecord, item: dict, rating: int, comment: str) -> dict:
    """An unaccepted evaluation case of the chunk's base for this query (one per query, chunks gathered)."""
    chunk_id = int(item["ref"]["chunk_id"])
    kb_id = Chunk.objects.filter(pk=chunk_id).values_list("document__knowledge_base_id", flat=True).first()
    if kb_id is None:
        return {"marker": item["marker"], "chunk_id": chunk_id, "action": "skipped", "reason": "chunk deleted"}
    field = "rejected_chunk_ids" if rating == -1 else "expected_chunk_ids"
    with transaction.atomic():
        case = (EvaluationCase.objects.select_for_update()
                .filter(knowledge_base_id=kb_id, query=record.query, source=EvaluationCase.Source.FEEDBACK,
                        accepted=False).first())
        if case is None:
            case = EvaluationCase(knowledge_base_id=kb_id, query=record.query, source=EvaluationCase.Source.FEEDBACK,
                                  accepted=False, expected_chunk_ids=[], rejected_chunk_ids=[])
        ids = set(getattr(case, field) or [])
        ids.add(chunk_id)
        setattr(case, field, sorted(ids))
        case.note = (f"context {record.pk}: " + (comment or ("helpful" if rating == 1 else "not helpful")))[:500]
        case.save()
    return {"marker": item["marker"], "chunk_id": chunk_id, "action": "case_proposed", "evaluation_case_id": case.pk}
