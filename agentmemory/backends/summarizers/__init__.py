"""Rolling-summary backends: extractive (offline default) and OpenAI-compatible LLM; one base class."""
from __future__ import annotations

from .base import Summarizer


def get_summarizer() -> Summarizer:
    """The configured summarizer (AGENTMEMORY['SUMMARIZER'])."""
    from .. import load_backend
    from .extractive import ExtractiveSummarizer

    return load_backend("SUMMARIZER") or ExtractiveSummarizer()


__all__ = ["Summarizer", "get_summarizer"]
