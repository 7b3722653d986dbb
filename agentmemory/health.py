"""A full health probe: database, pgvector and one real embedding through the configured backend."""
from __future__ import annotations

import socket
import time

from django.db import connection

from .backends import get_embedder


def run_health_check(probe_text: str = "agentmemory 健康检查 health check") -> dict:
    """Return what was checked and how long it took; raises the backend's error when one fails."""
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cursor.fetchone()
    embedder = get_embedder()
    vector = embedder.embed_query(probe_text)
    return {
        "host": socket.gethostname(),
        "pgvector": row[0] if row else None,
        "embedder": embedder.model_name,
        "embedder_engine": getattr(embedder, "engine", None),
        "dimensions": int(vector.shape[0]),
        "norm": round(float((vector**2).sum() ** 0.5), 4),
        "ms": round((time.perf_counter() - started) * 1000, 1),
    }
