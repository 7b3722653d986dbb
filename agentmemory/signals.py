"""Signals agentmemory sends (past tense, sent after the write commits)."""
from __future__ import annotations

from django.dispatch import Signal

#: A memory of ``user_id`` was stored without a vector because the embedder failed.
memory_embedding_pending = Signal()
