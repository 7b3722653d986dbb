"""Rerankers: score (query, passage) pairs. Base class, HTTP /rerank APIs, a local cross-encoder."""
from __future__ import annotations

from .base import Reranker

__all__ = ["Reranker", "get_reranker"]


def get_reranker() -> Reranker | None:
    """The reranker named by AGENTMEMORY['RERANKER'] (a dotted class path), or None when unset."""
    from .. import load_backend

    return load_backend("RERANKER")
