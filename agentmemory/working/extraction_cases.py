"""Labelled extraction cases: replay dialogues through sessions and check which slots end up active.

A case is one JSON object (the format of tests/data/extraction_cases.jsonl):
``{"id", "lang", "before": [user messages of an earlier session], "turns": [messages of a later
session], "expect": [{"slot", "value", "old"?, "negated"?}], "small_talk"?: true}``.

Each case runs the real pipeline for a user of its own: sessions, turns (remember intents written at
once), the end of each session and its extraction run, the write path with dedup and conflicts. A
slot counts as recalled when an active memory of that slot holds the expected value (and, for a
retraction, says so); a correction also counts whether the old value is still active (stale). A
small-talk case must leave no memory from its later session.
"""
from __future__ import annotations

import json
import unicodedata
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..backends.extractors import Extractor
from ..models import MemoryItem
from .extract import run_extraction
from .sessions import append_turn, create_session, end_session


@dataclass
class CaseResult:
    id: str
    lang: str
    expected: int
    recalled: int
    stale: int  # corrections whose old value is still active
    corrections: int
    small_talk: bool
    small_talk_memories: int
    missed: list[str] = field(default_factory=list)


@dataclass
class CasesReport:
    results: list[CaseResult]

    def _sum(self, name: str, lang: str | None = None) -> int:
        return sum(getattr(r, name) for r in self.results if lang is None or r.lang == lang)

    def recall(self, lang: str | None = None) -> float:
        expected = self._sum("expected", lang)
        return self._sum("recalled", lang) / expected if expected else 1.0

    @property
    def stale(self) -> int:
        return self._sum("stale")

    @property
    def corrections(self) -> int:
        return self._sum("corrections")

    @property
    def small_talk_cases(self) -> int:
        return sum(1 for r in self.results if r.small_talk)

    @property
    def small_talk_with_memories(self) -> int:
        return sum(1 for r in self.results if r.small_talk and r.small_talk_memories)

    def misses(self) -> list[str]:
        return [f"{r.id}: {m}" for r in self.results for m in r.missed]


def load_cases(path: str | Path) -> list[dict[str, Any]]:
    with Path(path).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _norm(text: Any) -> str:
    text = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    return "".join(unicodedata.normalize("NFKC", text).lower().split())


def _is_retraction(memory: MemoryItem) -> bool:
    """"No longer likes X": a value ``{"item": X, <slot>: false}``."""
    return isinstance(memory.value, dict) and False in memory.value.values()


def _session(user_id: str, messages: Iterable[str], extractor: Extractor) -> None:
    session = create_session(user_id=user_id, agent_id="cases")
    for message in messages:
        append_turn(session, role="user", content=message)
    run = end_session(session)
    if run is not None:
        run_extraction(run.pk, extractor=extractor)


def run_case(case: dict[str, Any], extractor: Extractor, *, user_id: str) -> CaseResult:
    """Replay one case for ``user_id``, a user with nothing yet (left in place: the caller forgets it)."""
    if case.get("before"):
        _session(user_id, case["before"], extractor)
    known = set(MemoryItem.objects.for_user(user_id).values_list("pk", flat=True))
    _session(user_id, case["turns"], extractor)
    active = list(MemoryItem.objects.for_user(user_id).active())
    result = CaseResult(id=case["id"], lang=case.get("lang", ""), expected=len(case.get("expect") or []),
                        recalled=0, stale=0, corrections=0, small_talk=bool(case.get("small_talk")),
                        small_talk_memories=sum(1 for m in active if m.pk not in known))
    for expect in case.get("expect") or []:
        slot, wanted = expect["slot"], _norm(expect["value"])
        in_slot = [m for m in active if (m.key or "").split(":")[0] == slot]
        negated = bool(expect.get("negated"))
        hit = any(wanted in _norm(m.value) or wanted in _norm(m.content) for m in in_slot
                  if negated == _is_retraction(m))
        result.recalled += hit
        if not hit:
            result.missed.append(f"{slot}={expect['value']} not active ({[m.content for m in in_slot] or 'slot empty'})")
        if expect.get("old"):
            result.corrections += 1
            old = _norm(expect["old"])
            if any(old in _norm(m.value) and wanted not in _norm(m.value) for m in in_slot if not _is_retraction(m)):
                result.stale += 1
                result.missed.append(f"{slot}: old value {expect['old']} still active")
    if result.small_talk and result.small_talk_memories:
        result.missed.append(f"small talk stored {[m.content for m in active if m.pk not in known]}")
    return result


def run_cases(cases: list[dict[str, Any]], extractor: Extractor, *, user_prefix: str = "cases") -> CasesReport:
    """Replay every case, each for its own user, and forget those users afterwards."""
    from ..memory.forget import forget_user

    results, users = [], []
    try:
        for case in cases:
            users.append(f"{user_prefix}-{case['id']}-{uuid.uuid4().hex[:8]}")
            results.append(run_case(case, extractor, user_id=users[-1]))
    finally:
        for user_id in users:
            forget_user(user_id, reason="extraction cases cleanup")
    return CasesReport(results)
