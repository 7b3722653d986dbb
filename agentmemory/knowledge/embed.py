"""Embed a version's chunks, batch by batch, each batch committed; reuse vectors of identical chunks."""
from __future__ import annotations

from collections.abc import Collection

from django.db import connection, transaction

from ..backends import get_embedder
from ..backends.embeddings.pipeline import embed_batches
from ..conf import app_settings
from ..exceptions import EmbeddingError
from ..models import Chunk, KnowledgeBase
from ..models.fields import vector_literal
from ..progress import Progress
from .chunk import embedding_text


def reusable_vectors(kb: KnowledgeBase, hashes: list[str], *, model_name: str) -> dict:
    """Vectors of chunks in ``kb`` with these content hashes, made by ``model_name``."""
    if not hashes:
        return {}
    rows = (
        Chunk.objects.in_knowledge_base(kb)
        .filter(content_hash__in=set(hashes), embedding_model=model_name, embedding__isnull=False)
        .order_by("content_hash", "-id").distinct("content_hash")
        .values_list("content_hash", "embedding")
    )
    return dict(rows)


def embed_chunks(chunks, *, embedder=None, progress: Progress | None = None, batch_size: int | None = None) -> int:
    """Embed the chunks of ``chunks`` (a QuerySet) lacking a vector of the current model; returns the count.

    Each batch is written in its own transaction, so an interrupted run keeps what it finished; the
    next batch embeds while one is written (the bulk pipeline). An embedder failure is raised once the
    batches before it are stored.
    """
    embedder = embedder or get_embedder()
    model = embedder.model_name
    todo = list(chunks.to_embed(model))
    total = len(todo)
    step = int(batch_size or getattr(embedder, "batch_size", 0) or app_settings.EMBEDDING_BATCH_SIZE)
    done = 0
    if progress:
        progress(0, total)
    batches = (([pk for pk, _p, _t in todo[start:start + step]],
                [embedding_text(path, text) for _pk, path, text in todo[start:start + step]])
               for start in range(0, total, step))
    for pks, vectors in embed_batches(batches, embedder.embed_passages):
        if isinstance(vectors, EmbeddingError):
            raise vectors
        store_vectors(pks, vectors, model)
        done += len(pks)
        if progress:
            progress(done, total)
    return total


def store_vectors(pks: list[int], vectors, model: str, *, activate: Collection[int] = ()) -> None:
    """Write one batch of vectors (one statement, one commit); the chunks in ``activate`` turn active too.

    One UPDATE from arrays of ids and vectors: bulk_update's CASE per row cost the import's thread about
    70 ms of Python a batch of 32 (docs/knowledge.md), taken from the embedder's threads on a small machine.
    ``activate`` is for the publish that follows in the same transaction (publish_versions' ``activated``):
    a chunk's status is an indexed column, so a second UPDATE would insert every chunk into the HNSW index
    a second time, about a third of the first insert's cost (docs/knowledge.md).
    """
    if not pks:
        return
    if len(pks) != len(vectors):
        raise ValueError("one vector per chunk")
    table = Chunk._meta.db_table
    with transaction.atomic(savepoint=False), connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET embedding = v.e::vector, embedding_model = %s, "
            f"status = CASE WHEN v.a THEN %s ELSE {table}.status END "
            f"FROM unnest(%s::bigint[], %s::text[], %s::boolean[]) AS v(id, e, a) WHERE {table}.id = v.id",
            [model, Chunk.Status.ACTIVE, list(pks), [vector_literal(v) for v in vectors],
             [pk in activate for pk in pks]])
