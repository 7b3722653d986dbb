"""Sentence vectors of chunks: each sentence of a chunk, embedded with the chunk's heading path (a chunk of one
sentence gets one row holding its own vector).

A question asks about one sentence of a paragraph. Its vector is closer to that sentence's than to the whole
paragraph's, where the other sentences pull the vector elsewhere; across languages, where no word is shared,
most of all. Hybrid search ranks chunks by their best sentence as a third RRF channel beside BM25 and the chunk
vector (channels.vector_channel, retrieve.sentence_search). Measured on 240 Chinese paragraphs with 720 English
questions: R@5 0.886 -> 0.93 (docs/retrieval.md, "Sentence vectors").

Written after a version's chunks have their vectors (bulk.ingest_documents), and by ``agentmemory_reembed``,
which also fills them in for bases imported before they existed. Identical chunks (same content hash, same
model) share their sentences' vectors, as they share the chunk vector. A failing embedder costs only these
rows: the import has published its chunks, and search ranks them without the sentence channel.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Iterator

from django.db import IntegrityError, connection, transaction

from ..backends import get_embedder
from ..backends.embeddings.pipeline import embed_batches
from ..conf import app_settings
from ..exceptions import EmbeddingError
from ..models import Chunk, ChunkSentence
from ..models.fields import vector_literal
from ..text import split_sentences
from .chunk import embedding_text

__all__ = ["MAX_SENTENCES", "chunk_sentences", "embed_sentences", "write_sentences"]

logger = logging.getLogger(__name__)

#: Sentences of one chunk that get a vector (a chunk is CHUNK_SIZE characters: a list of short lines at most).
MAX_SENTENCES = 48
_MARKUP_RE = re.compile(r"#{1,6}\s.*|[|:\-\s]*")
#: A piece shorter than this (a list number, "注：") joins the sentence after it.
MIN_CHARS = 6


def chunk_sentences(heading_path: str, text: str) -> list[str]:
    """The texts embedded for a chunk's sentences, in order; [] for a chunk of one sentence (its vector is the
    sentence's)."""
    sentences: list[str] = []
    carry = ""
    for start, end in split_sentences(text):
        piece = (carry + text[start:end]).strip()
        if _MARKUP_RE.fullmatch(piece):  # a heading line (the heading path says it) or a table's rule
            continue
        if len(piece) < MIN_CHARS:
            carry = piece + " " if piece else ""
            continue
        sentences.append(piece)
        carry = ""
    if carry.strip() and sentences:
        sentences[-1] = f"{sentences[-1]} {carry.strip()}"
    if len(sentences) < 2:
        return []
    return [embedding_text(heading_path, sentence) for sentence in sentences[:MAX_SENTENCES]]


def embed_sentences(chunks, *, embedder=None, batch_size: int | None = None) -> int:
    """Give the chunks of ``chunks`` (a QuerySet) that have their vector but no sentence vectors of the current
    model theirs; returns the sentences embedded. Sentences of another model are replaced. A batch the embedder
    refuses is skipped and its EmbeddingError raised once the others are stored (``write_sentences`` swallows it)."""
    if not app_settings.SENTENCE_VECTORS:
        return 0
    embedder = embedder or get_embedder()
    model = embedder.model_name
    todo = list(chunks.filter(embedding_model=model, embedding__isnull=False)
                .exclude(sentences__embedding_model=model)
                .values_list("pk", "knowledge_base_id", "content_hash", "heading_path", "text"))
    if not todo:
        return 0
    ChunkSentence.objects.filter(chunk_id__in=[row[0] for row in todo]).exclude(embedding_model=model).delete()
    copied = _copy_identical(todo, model)
    per_chunk, whole = [], []
    for pk, _kb, _hash, path, text in todo:
        if pk not in copied:
            cut = chunk_sentences(path, text)
            if cut:
                per_chunk.append([(pk, position, sentence) for position, sentence in enumerate(cut)])
            else:
                whole.append(pk)
    # A chunk of one sentence is its own sentence: its row holds the chunk's vector, so the sentence channel
    # ranks every chunk (a chunk missing from it would lose that channel's share of the fusion).
    _store([(pk, 0, vector) for pk, vector in Chunk.objects.filter(pk__in=whole).values_list("pk", "embedding")],
           model)
    step = int(batch_size or getattr(embedder, "batch_size", 0) or app_settings.EMBEDDING_BATCH_SIZE)
    batches = ((rows, [sentence for _pk, _pos, sentence in rows]) for rows in _whole_chunks(per_chunk, step))
    done, failed = 0, None
    for keys, vectors in embed_batches(batches, embedder.embed_passages):
        if isinstance(vectors, EmbeddingError):
            failed = failed or vectors  # the batches after it are still tried
            continue
        _store([(pk, position, vector) for (pk, position, _s), vector in zip(keys, vectors, strict=True)], model)
        done += len(keys)
    if failed is not None:
        raise failed
    return done


def _whole_chunks(per_chunk: list[list[tuple]], step: int) -> Iterator[list[tuple]]:
    """Batches of about ``step`` sentences that never split a chunk's: a batch the embedder refuses leaves its chunks
    with no rows, which the next pass (``agentmemory_reembed``) writes, rather than with some of them."""
    batch: list[tuple] = []
    for rows in per_chunk:
        if batch and len(batch) + len(rows) > step:
            yield batch
            batch = []
        batch.extend(rows)
    if batch:
        yield batch


def write_sentences(chunks, *, embedder=None) -> int:
    """``embed_sentences`` for an import that has already published its chunks: an embedder failing here is
    logged, not raised (search ranks those chunks without their sentences until ``agentmemory_reembed``)."""
    try:
        return embed_sentences(chunks, embedder=embedder)
    except (EmbeddingError, IntegrityError) as exc:  # the embedder, or a chunk deleted as its row was written
        logger.warning("agentmemory: sentence vectors not written (%s); agentmemory_reembed writes them", exc)
        return 0


def _copy_identical(todo: list[tuple], model: str) -> set[int]:
    """Copy the sentence vectors of an identical chunk of the same base (same content hash and model) to the
    chunks of ``todo`` that have one; returns the chunks served so."""
    by_hash: dict[tuple[int, str], list[int]] = {}
    for pk, kb, content_hash, _path, _text in todo:
        by_hash.setdefault((kb, content_hash), []).append(pk)
    waiting = {pk for pk, *_rest in todo}
    donors = (ChunkSentence.objects.filter(embedding_model=model,
                                           chunk__knowledge_base_id__in={kb for kb, _h in by_hash},
                                           chunk__content_hash__in={h for _kb, h in by_hash})
              .exclude(chunk_id__in=waiting)
              .order_by("chunk_id", "position")
              .values_list("chunk__knowledge_base_id", "chunk__content_hash", "chunk_id", "position", "embedding"))
    source: dict[tuple[int, str], int] = {}
    copies: list[tuple[int, int, object]] = []
    for kb, content_hash, donor, position, vector in donors:
        if source.setdefault((kb, content_hash), donor) != donor:
            continue  # one donor per content
        copies.extend((pk, position, vector) for pk in by_hash.get((kb, content_hash), ()))
    _store(copies, model)
    return {pk for pk, _position, _vector in copies}


def _store(rows: list[tuple[int, int, object]], model: str) -> None:
    """Insert one batch of sentence vectors in one statement; a row already there (a concurrent run) is kept,
    and a chunk deleted meanwhile gets none."""
    if not rows:
        return
    table, chunks = ChunkSentence._meta.db_table, Chunk._meta.db_table
    with transaction.atomic(savepoint=False), connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (chunk_id, position, embedding, embedding_model) "
            f"SELECT v.c, v.p, v.e::vector, %s FROM unnest(%s::bigint[], %s::int[], %s::text[]) AS v(c, p, e) "
            f"JOIN {chunks} ON {chunks}.id = v.c ON CONFLICT DO NOTHING",
            [model, [pk for pk, _p, _v in rows], [position for _pk, position, _v in rows],
             [vector_literal(vector) for _pk, _p, vector in rows]])
