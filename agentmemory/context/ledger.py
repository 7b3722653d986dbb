"""The context ledger: each assembled context recorded (what it carried, what it left out and why, tokens,
timings), listed per user for an operator, and purged after CONTEXT_LEDGER_RETENTION_DAYS.

``record_context`` runs at the end of ``assemble_context`` (REST /context/, /context/answer/, the tools and
MCP all come through it) unless CONTEXT_LEDGER is off or the request says ``record: false``. The query and
(when CONTEXT_LEDGER_PROMPT is on) the prompt are stored PII-redacted; the items are references (memory
ids, chunk ids and citations) with their scores, never the memories' text. Forgetting a user deletes their
rows with everything else keyed by ``user_id`` (memory/forget.py).
"""
from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import timezone

from ..audit import record_event
from ..conf import app_settings
from ..models import ContextRecord, LLMUsage
from ..redact import redact_text
from ..timestamps import iso
from ..types import ContextBundle

#: Reference fields an item keeps in the ledger (its text is not copied: the memory or chunk holds it).
_REF_KEYS = ("memory_id", "key", "source", "chunk_id", "document_id", "version", "knowledge_base", "role",
             "turn_id", "seq")
_SECTIONS = ("profile", "long_term_memory", "knowledge", "working_memory")


def record_context(bundle: ContextBundle, *, user_id: str, query: str, agent_id: str | None,
                   session_id: Any, via: str = ContextRecord.Via.REST) -> ContextRecord:
    """Store what ``bundle`` carried (see the module docstring); returns the row."""
    items = []
    for section in _SECTIONS:
        for item in bundle.sections.get(section, []):
            items.append({"marker": item.label, "section": section, "layer": item.layer, "kind": item.kind,
                          "key": item.key, "score": item.score, "tokens": item.tokens,
                          "ref": {k: item.ref[k] for k in _REF_KEYS if k in item.ref},
                          **({"citation": item.source} if item.layer == "knowledge" else {})})
    trace = bundle.trace
    searched = trace.get("layers", {}).get("knowledge", {}).get("status") not in (None, "skipped")
    return ContextRecord.objects.create(
        user_id=user_id, agent_id=agent_id or "", session_id=str(session_id or ""), via=via, route=bundle.route,
        language=trace.get("language", ""), query=redact_text(query), items=items,
        dropped=list(trace.get("dropped", []))[:200], token_counts=dict(bundle.token_counts),
        total_tokens=max(0, int(bundle.token_counts.get("total", 0) or 0)),
        timings_ms=dict(trace.get("timings_ms", {})), degraded=bool(trace.get("degraded")),
        knowledge_empty=searched and not bundle.sections.get("knowledge"),
        prompt=redact_text(bundle.prompt) if app_settings.CONTEXT_LEDGER_PROMPT else "",
    )


def record_answer(context_id: int | None, answer: str) -> None:
    """Keep the chat model's answer with the context it was given (context/answer/)."""
    if context_id:
        ContextRecord.objects.filter(pk=context_id).update(answer=redact_text(answer),
                                                           via=ContextRecord.Via.ANSWER)


def purge_expired(*, now: dt.datetime | None = None) -> dict[str, Any]:
    """Delete ledger rows older than CONTEXT_LEDGER_RETENTION_DAYS; audited ("ledger.purge") as the receipt."""
    before = (now or timezone.now()) - dt.timedelta(days=app_settings.CONTEXT_LEDGER_RETENTION_DAYS)
    deleted, _ = ContextRecord.objects.older_than(before).delete()
    receipt = {"deleted": deleted, "before": iso(before),
               "retention_days": app_settings.CONTEXT_LEDGER_RETENTION_DAYS}
    if deleted:
        record_event("ledger.purge", object_type="context_record", object_id="", after=receipt)
    return receipt


def daily_usage(*, user_id: str | None = None, since: dt.datetime | None = None) -> list[dict[str, Any]]:
    """Per user and UTC day, newest first: contexts and their tokens (the sum of each context's total), and the
    LLM calls and tokens its jobs spent (LLMUsage). The admin's usage page and REST ``contexts/usage/``."""
    from django.db.models import Count, Sum
    from django.db.models.functions import TruncDate

    contexts = ContextRecord.objects.all()
    llm = LLMUsage.objects.all()
    if user_id is not None:
        contexts, llm = contexts.filter(user_id=user_id), llm.filter(user_id=user_id)
    if since is not None:
        contexts, llm = contexts.filter(created_at__gte=since), llm.filter(created_at__gte=since)
    rows: dict[tuple[str, dt.date], dict[str, Any]] = {}

    def row(user: str, day: dt.date) -> dict[str, Any]:
        return rows.setdefault((user, day), {
            "user_id": user, "day": day, "contexts": 0, "context_tokens": 0,
            "llm_calls": 0, "llm_prompt_tokens": 0, "llm_completion_tokens": 0})

    for entry in contexts.daily_tokens():
        row(entry["user_id"], entry["day"]).update(contexts=entry["contexts"], context_tokens=entry["tokens"] or 0)
    for entry in (llm.annotate(day=TruncDate("created_at", tzinfo=dt.UTC)).values("user_id", "day")
                  .annotate(calls=Sum("calls"), prompt=Sum("prompt_tokens"), completion=Sum("completion_tokens"),
                            jobs=Count("id"))):
        row(entry["user_id"], entry["day"]).update(llm_calls=entry["calls"] or 0, llm_prompt_tokens=entry["prompt"] or 0,
                                                   llm_completion_tokens=entry["completion"] or 0)
    return sorted(rows.values(), key=lambda r: (-r["day"].toordinal(), r["user_id"]))
