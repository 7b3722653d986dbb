"""Run an operator's memory test cases: replay, ask, and say why a probe missed.

Each case (models.MemoryTestCase) is replayed for a throwaway user through the same services the REST
API calls (sessions, turns, end of session, extraction with the configured extractor), then its question
is asked of ``assemble_context``; the user is forgotten afterwards. The outcome names where the memory
failed: ``not_stored`` (no current memory holds an expected answer: the write side), ``not_recalled`` (one
does, the context did not show it: recall), ``stale_shown`` (a corrected value is still shown), or
``answered``. Run from the admin (action "Run selected") and ``manage.py agentmemory_memory_tests``.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from django.utils import timezone

from ..memory.forget import forget_user
from ..models import MemoryItem, MemoryTestCase
from ..working.extract import run_extraction
from ..working.sessions import append_turn, create_session, end_session
from .assemble import assemble_context


@dataclass(frozen=True)
class TestOutcome:
    outcome: str
    memories: list[str] = field(default_factory=list)
    shown: str = ""
    stale: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"outcome": self.outcome, "memories": self.memories, "shown": self.shown, "stale": self.stale}


def _contains(text: str, values: list[str]) -> list[str]:
    lowered = text.lower()
    return [v for v in values if str(v).lower() in lowered]


def run_memory_test(case: MemoryTestCase, *, agent_id: str = "memory-tests") -> TestOutcome:
    """Replay ``case`` for a throwaway user, ask its question, record and return the outcome."""
    user_id = f"memory-test-{case.pk or 0}-{uuid.uuid4().hex[:10]}"
    try:
        for messages in case.sessions or []:
            session = create_session(user_id=user_id, agent_id=agent_id)
            for message in messages if isinstance(messages, list) else [messages]:
                append_turn(session, role="user", content=str(message))
            run = end_session(session)
            if run is not None:
                run_extraction(run.pk)
        bundle = assemble_context(user_id=user_id, query=case.question)
        shown = "\n".join(item.text for name in ("profile", "long_term_memory")
                          for item in bundle.sections.get(name, []))
        memories = list(MemoryItem.objects.for_user(user_id).current().values_list("content", flat=True))
    finally:
        forget_user(user_id, reason="memory test case")
    expected = [str(v) for v in case.expected or []]
    stale = _contains(shown, [str(v) for v in case.stale or []])
    stale = [s for s in stale if not any(s.lower() in e.lower() for e in expected)]
    if stale:
        outcome = MemoryTestCase.Outcome.STALE_SHOWN
    elif _contains(shown, expected):
        outcome = MemoryTestCase.Outcome.ANSWERED
    elif any(_contains(m, expected) for m in memories):
        outcome = MemoryTestCase.Outcome.NOT_RECALLED
    else:
        outcome = MemoryTestCase.Outcome.NOT_STORED
    result = TestOutcome(str(outcome), memories[:20], shown[:2000], stale)
    if case.pk is not None:
        MemoryTestCase.objects.filter(pk=case.pk).update(last_run_at=timezone.now(), last_outcome=str(outcome),
                                                         last_result=result.as_dict())
    return result
