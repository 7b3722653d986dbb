"""Celery tasks of agentmemory: thin wrappers (ids in, one service call, retry policy).

Each area keeps its tasks in its own module; importing them here registers them with Celery.
"""
from .knowledge import ingest_document, reembed_knowledge_base
from .memory import decay_memories, forget_user
from .retrieval import evaluate_knowledge_base
from .sessions import extract_idle_sessions, extract_session, purge_sessions, summarize_session
from .system import health_check

__all__ = ["decay_memories", "forget_user", "evaluate_knowledge_base", "extract_idle_sessions", "extract_session", "purge_sessions", "summarize_session", "health_check", "ingest_document", "reembed_knowledge_base"]
