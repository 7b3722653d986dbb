"""Rolling summary: fold the turns older than the window into the summary, incrementally.

The summary is structured (backends/summarizers/base.SummaryFields: goal, confirmed, open), stored in
``Session.summary_fields`` with its rendered text in ``Session.summary`` (what the prompt carries).

The summarizer gets the previous summary plus only the turns not yet folded (never a rewrite from
scratch). It runs outside any lock; the result is applied only if nobody folded meanwhile.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from ..backends.extractors import TurnText
from ..backends.summarizers import Summarizer, get_summarizer
from ..backends.summarizers.base import SummaryFields
from ..conf import app_settings
from ..models import Session, Turn
from ..redact import redact
from ..usage import llm_usage


@dataclass(frozen=True)
class SummaryResult:
    session_id: str
    folded: int  # turns folded by this call
    covers_up_to: int
    changed: bool


def fold_target(session: Session) -> int:
    """The last turn the summary should cover now: everything older than the window."""
    return max(0, session.turn_count - app_settings.WINDOW_TURNS)


def summary_due(session: Session) -> bool:
    """True when enough turns wait to be folded (SUMMARY_TRIGGER_TURNS not yet summarized)."""
    return (session.turn_count - session.summary_covers_seq >= app_settings.SUMMARY_TRIGGER_TURNS
            and fold_target(session) > session.summary_covers_seq)


def update_summary(session_id, *, force: bool = False, summarizer: Summarizer | None = None) -> SummaryResult:
    """Fold the turns between the summary and the window into the summary (a no-op when not due).

    ``force`` folds whatever is older than the window even below the trigger threshold.
    """
    session = Session.objects.get(pk=session_id)
    target = fold_target(session)
    start = session.summary_covers_seq
    if target <= start or (not force and not summary_due(session)):
        return SummaryResult(str(session.pk), 0, start, False)
    turns = Turn.objects.in_session(session).between(start + 1, target)
    texts = [TurnText(seq=t.seq, role=t.role, content=t.content, turn_id=t.pk, session_id=str(session.pk))
             for t in turns]
    summarizer = summarizer or get_summarizer()
    previous = SummaryFields.from_session(session.summary_fields, session.summary)
    with llm_usage("summary", user_id=session.user_id, job=f"session:{session.pk}"):
        fields = summarizer.summarize_fields(previous, texts, max_chars=app_settings.SUMMARY_MAX_CHARS)
    fields = SummaryFields(goal=redact(fields.goal), confirmed=[redact(x) for x in fields.confirmed],
                           open=[redact(x) for x in fields.open])
    # Optimistic apply: only if the summary still covers what we started from (no concurrent fold).
    applied = Session.objects.filter(pk=session.pk, summary_covers_seq=start).update(
        summary=fields.render(), summary_fields=fields.as_dict(), summary_covers_seq=target,
        summary_updated_at=timezone.now())
    return SummaryResult(str(session.pk), target - start if applied else 0,
                         target if applied else Session.objects.get(pk=session.pk).summary_covers_seq,
                         bool(applied))
