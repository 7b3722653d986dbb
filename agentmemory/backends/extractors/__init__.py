"""Memory extractors: rule-based (offline default) and OpenAI-compatible LLM; one base class."""
from __future__ import annotations

from .base import ExistingMemory, Extractor, TurnText


def get_extractor() -> Extractor:
    """The configured extractor (AGENTMEMORY['EXTRACTOR'])."""
    from .. import load_backend
    from .rules import RuleBasedExtractor

    return load_backend("EXTRACTOR") or RuleBasedExtractor()


__all__ = ["ExistingMemory", "Extractor", "TurnText", "get_extractor"]
