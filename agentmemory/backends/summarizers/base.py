"""Summarizer interface: fold new turns into the previous rolling summary (incremental, never from scratch)."""
from __future__ import annotations

from collections.abc import Sequence

from ..extractors.base import TurnText


class Summarizer:
    """Base class of summarizers; subclasses implement :meth:`summarize`.

    ``summarize(previous, turns)`` returns the new summary: the previous one with ``turns`` folded in,
    keeping numbers, proper nouns, names and stated preferences, within ``max_chars``.
    Raises ``agentmemory.exceptions.BackendError`` when the backend fails (the summary is then left
    as it was and the task retried).
    """

    name = "base"

    def summarize(self, previous: str, turns: Sequence[TurnText], *, max_chars: int = 4000) -> str:
        raise NotImplementedError
