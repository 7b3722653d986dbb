"""The real pgvector: extension present, cosine kNN served by an HNSW index (checked with EXPLAIN)."""
from __future__ import annotations

import numpy as np
import pytest
from django.db import connection

from agentmemory.backends import get_embedder

pytestmark = pytest.mark.django_db


def test_vector_extension_is_installed_by_the_first_migration():
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        (version,) = cursor.fetchone()
    major, minor = (int(x) for x in version.split(".")[:2])
    assert (major, minor) >= (0, 7)


def test_cosine_nearest_neighbour_uses_hnsw_index():
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(300, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE knn_probe (id int PRIMARY KEY, embedding vector(384))")
        cursor.executemany(
            "INSERT INTO knn_probe VALUES (%s, %s::vector)",
            [(i, "[" + ",".join(f"{x:.6f}" for x in v) + "]") for i, v in enumerate(vectors)],
        )
        cursor.execute("CREATE INDEX knn_probe_hnsw ON knn_probe USING hnsw (embedding vector_cosine_ops)")
        cursor.execute("ANALYZE knn_probe")
        cursor.execute("SET LOCAL enable_seqscan = off")
        query = "[" + ",".join(f"{x:.6f}" for x in vectors[42]) + "]"
        cursor.execute("EXPLAIN SELECT id FROM knn_probe ORDER BY embedding <=> %s::vector LIMIT 5", [query])
        plan = "\n".join(row[0] for row in cursor.fetchall())
        cursor.execute("SELECT id FROM knn_probe ORDER BY embedding <=> %s::vector LIMIT 5", [query])
        ids = [row[0] for row in cursor.fetchall()]
    assert "knn_probe_hnsw" in plan
    assert ids[0] == 42


def test_bundled_embedder_separates_related_from_unrelated_text():
    embedder = get_embedder()
    query = embedder.embed_query("大语言模型的参数量")
    passages = embedder.embed_passages(["LLM (large language model) parameter counts", "今天天气晴朗，适合野餐"])
    assert passages.shape == (2, 384)
    scores = passages @ query
    assert scores[0] > scores[1]
