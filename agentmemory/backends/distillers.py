"""Profile distillers: write a user's summary from their current memories.

``TemplateDistiller`` is the offline default (deterministic: per type, the newest value of each slot);
``LLMDistiller`` asks the OpenAI-compatible chat model (AGENTMEMORY LLM_*) for a structured rewrite of a
few hundred characters, from the memories and the summaries of the user's recent sessions (a backend
says it reads sessions with ``uses_sessions = True``). Selected by AGENTMEMORY['PROFILE_DISTILLER'].
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

TYPES = ("fact", "preference", "decision", "event", "feedback")


@dataclass(frozen=True)
class MemoryLine:
    id: int
    type: str
    key: str
    content: str


@dataclass(frozen=True)
class SessionLine:
    """A recent session of the user, as its rolling summary (PII already redacted)."""

    id: str
    when: str  # ISO date of its last activity
    summary: str


_LABELS = {
    "zh": {"fact": "基本情况", "preference": "偏好", "decision": "决定", "event": "近况", "feedback": "反馈",
           "sep": "；", "end": "。", "colon": "："},
    "en": {"fact": "About", "preference": "Preferences", "decision": "Decisions", "event": "Recently",
           "feedback": "Feedback", "sep": "; ", "end": ".", "colon": ": "},
}


def _language(memories: Sequence[MemoryLine]) -> str:
    """The language the user's memories are written in ("zh" or "en"), else the configured LANGUAGE."""
    from ..text import configured_language, language_of

    return language_of(" ".join(m.content for m in memories[:40]), default=configured_language())


class TemplateDistiller:
    """Identity and facts, stable preferences, decisions, recent events: each slot once, newest first."""

    name = "template"
    uses_sessions = False  # deterministic: from the memories only

    def distill(self, memories: Sequence[MemoryLine], *, max_chars: int = 400,
                sessions: Sequence[SessionLine] = ()) -> str:
        # The template of the memories' own language (a user who speaks English gets "Identity: The user works
        # at Stripe", never "基本情况：The user works at Stripe"); LANGUAGE when they say neither.
        labels = _LABELS[_language(memories)]
        by_type: dict[str, list[str]] = {t: [] for t in TYPES}
        for line in memories:  # newest first, one per slot (the caller's order and choice)
            if line.type in by_type and len(by_type[line.type]) < 5:
                by_type[line.type].append(line.content.rstrip("。.；; "))
        parts = [f"{labels[t]}{labels['colon']}{labels['sep'].join(lines)}{labels['end']}"
                 for t, lines in by_type.items() if lines]
        text = (" " if labels is _LABELS["en"] else "").join(parts)
        return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


class LLMDistiller:
    """A structured rewrite by the configured chat model; raises LLMError when it cannot."""

    name = "llm"
    uses_sessions = True

    def __init__(self, client=None):
        from .llm import ChatClient

        self.client = client or ChatClient()

    def distill(self, memories: Sequence[MemoryLine], *, max_chars: int = 400,
                sessions: Sequence[SessionLine] = ()) -> str:
        chinese = _language(memories) == "zh"
        lines = "\n".join(f"- [{m.type}] {m.content}" for m in memories[:80])
        if sessions:
            heading = "最近的对话（摘要）：" if chinese else "Recent conversations (summaries):"
            lines += f"\n\n{heading}\n" + "\n".join(f"- {s.when}: {s.summary[:600]}" for s in sessions)
        instruction = (
            f"根据下面关于用户的记忆（以及最近对话的摘要），写一段不超过 {max_chars} 字的用户画像：身份与公司、稳定偏好、"
            "当前项目、已做的决定。每个方面只写最新的值；记忆与对话冲突时以较新的为准；不要编造。只返回 JSON：{\"summary\": \"...\"}。"
            if chinese else
            f"From the memories about the user below (and the summaries of recent conversations), write a profile of "
            f"at most {max_chars} characters: identity and company, stable preferences, current projects, decisions "
            "taken. Only the newest value of each (the newer source wins a conflict); invent nothing. Return only "
            "JSON: {\"summary\": \"...\"}.")
        answer = self.client.complete_json([{"role": "system", "content": instruction},
                                            {"role": "user", "content": lines}])
        summary = str(answer.get("summary", "")).strip()
        return summary[:max_chars]
