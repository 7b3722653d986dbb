"""Celery tasks of agentmemory: thin wrappers (ids in, one service call, retry policy).

Each area keeps its tasks in its own module; importing them here registers them with Celery.
"""
from .context import purge_contexts
from .knowledge import ingest_document, reembed_knowledge_base, retry_import_jobs
from .memory import (
    decay_memories,
    distill_profiles,
    embed_pending_memories,
    forget_user,
    purge_memories,
    reembed_memories,
)
from .search import evaluate_knowledge_base
from .system import health_check
from .working import (
    close_idle_sessions,
    extract_idle_sessions,
    extract_session,
    purge_sessions,
    summarize_session,
)

__all__ = [
    "close_idle_sessions",
    "decay_memories",
    "distill_profiles",
    "embed_pending_memories",
    "evaluate_knowledge_base",
    "extract_idle_sessions",
    "extract_session",
    "forget_user",
    "health_check",
    "ingest_document",
    "purge_contexts",
    "purge_memories",
    "purge_sessions",
    "reembed_knowledge_base",
    "reembed_memories",
    "retry_import_jobs",
    "summarize_session",
]
