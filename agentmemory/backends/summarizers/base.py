"""Summarizer interface: fold new turns into the previous rolling summary (incremental, never from scratch).

The summary is structured (SummaryFields): the session's ``goal``, what is ``confirmed`` (decisions and facts
established, numbers and names as said) and what is still ``open`` (questions and to-dos); its text, rendered
in the conversation's language, is what a prompt's working-memory section carries.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..extractors.base import TurnText, is_chinese

#: Section names of the rendered summary, per language.
HEADINGS = {"zh": ("目标：", "已确认：", "待解决："), "en": ("Goal: ", "Confirmed:", "Open:")}


@dataclass
class SummaryFields:
    """A session's structured summary; ``confirmed`` and ``open`` entries are one line each."""

    goal: str = ""
    confirmed: list[str] = field(default_factory=list)
    open: list[str] = field(default_factory=list)

    @classmethod
    def from_session(cls, fields: Any, text: str = "") -> SummaryFields:
        """The stored fields; a summary written before fields existed becomes its lines, confirmed."""
        if isinstance(fields, dict) and any(fields.get(k) for k in ("goal", "confirmed", "open")):
            return cls(goal=str(fields.get("goal") or ""), confirmed=[str(x) for x in fields.get("confirmed") or []],
                       open=[str(x) for x in fields.get("open") or []])
        return cls(confirmed=[line for line in (text or "").splitlines() if line.strip()])

    def as_dict(self) -> dict[str, Any]:
        return {"goal": self.goal, "confirmed": list(self.confirmed), "open": list(self.open)}

    def render(self) -> str:
        """The text a prompt carries: goal, confirmed and open, headed in the conversation's language."""
        if not (self.goal or self.confirmed or self.open):
            return ""
        goal, confirmed, open_ = HEADINGS["zh" if is_chinese(" ".join([self.goal, *self.confirmed, *self.open]))
                                          else "en"]
        parts = [f"{goal}{self.goal}"] if self.goal else []
        if self.confirmed:
            parts += [confirmed, *(f"- {line}" for line in self.confirmed)]
        if self.open:
            parts += [open_, *(f"- {line}" for line in self.open)]
        return "\n".join(parts)


class Summarizer:
    """Base class of summarizers; subclasses implement :meth:`summarize_fields` or :meth:`summarize`.

    ``summarize_fields(previous, turns)`` returns the new SummaryFields: the previous ones with ``turns``
    folded in. A backend that only writes text implements ``summarize(previous_text, turns)``; its lines
    are then the ``confirmed`` part. Either keeps numbers, proper nouns, names and stated preferences,
    within ``max_chars``, and raises ``agentmemory.exceptions.BackendError`` when the backend fails (the
    summary is then left as it was and the task retried).
    """

    name = "base"

    def summarize(self, previous: str, turns: Sequence[TurnText], *, max_chars: int = 4000) -> str:
        raise NotImplementedError

    def summarize_fields(self, previous: SummaryFields, turns: Sequence[TurnText], *,
                         max_chars: int = 4000) -> SummaryFields:
        text = self.summarize("\n".join(previous.confirmed), turns, max_chars=max_chars)
        return SummaryFields(goal=previous.goal, confirmed=[line for line in text.splitlines() if line.strip()],
                             open=list(previous.open))
