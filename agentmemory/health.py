"""A full health probe: database, pgvector and one real embedding through the configured backend."""
from __future__ import annotations

import socket
import time

from django.db import connection

from .backends import get_embedder


def pgvector_version() -> str | None:
    """The installed pgvector extension's version, None when it is not installed."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cursor.fetchone()
    return row[0] if row else None


def run_health_check(probe_text: str = "agentmemory 健康检查 health check") -> dict:
    """Return what was checked and how long it took; raises the backend's error when one fails."""
    started = time.perf_counter()
    pgvector = pgvector_version()
    embedder = get_embedder()
    vector = embedder.embed_query(probe_text)
    models = vector_models(embedder.model_name)
    return {
        "host": socket.gethostname(),
        "pgvector": pgvector,
        "embedder": embedder.model_name,
        "embedder_engine": getattr(embedder, "engine", None),
        "dimensions": int(vector.shape[0]),
        "norm": round(float((vector**2).sum() ** 0.5), 4),
        "ms": round((time.perf_counter() - started) * 1000, 1),
        "vectors": models,
    }


def vector_models(current: str) -> dict:
    """Stored vectors of another model than the configured embedder's (after a switch, until re-embedded):
    counts only, across users (run ``agentmemory_reembed --memories`` / ``--kb``)."""
    from .models import KnowledgeBase, MemoryItem

    table = MemoryItem._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*) FILTER (WHERE embedding IS NOT NULL AND embedding_model <> %s), "
            f"count(*) FILTER (WHERE embedding IS NULL) FROM {table} WHERE status IN ('active', 'cold')",
            [current])
        other, pending = cursor.fetchone()
    stale_bases = sorted(KnowledgeBase.objects.exclude(embedding_model="").exclude(embedding_model=current)
                         .values_list("slug", flat=True))
    return {"memories_other_model": int(other), "memories_pending_embedding": int(pending),
            "knowledge_bases_other_model": len(stale_bases), "mixed_models": bool(other or stale_bases)}
