"""Vectors of memories: one passage embedded as it is written, and the sweep that embeds what an embedder
outage (or a switch of embedding model) left without a current vector."""
from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from django.db import transaction

from ..backends import get_embedder
from ..backends.embeddings.pipeline import embed_batches
from ..exceptions import EmbeddingError
from ..models import MemoryItem
from ..models.memory import stale_vector
from ..progress import Progress
from ..signals import memory_embedding_pending
from ..validation import validate_user_id
from . import cache

logger = logging.getLogger(__name__)


#: Passages embedded ahead, in one batch, by ``embedded_together`` (text -> vector, model).
_ahead: ContextVar[dict[str, tuple[list[float], str]] | None] = ContextVar("agentmemory_passages_ahead", default=None)


@contextmanager
def embedded_together(texts: Sequence[str]) -> Iterator[None]:
    """Within the block, ``embed_passage`` of one of ``texts`` reads the vector embedded with the others in one call
    (an extraction writes several memories: one batch costs less than one call each). An embedder failing here
    leaves each write to try on its own, as it would have."""
    unique = list(dict.fromkeys(t for t in texts if t))
    ahead: dict[str, tuple[list[float], str]] = {}
    if len(unique) > 1:
        embedder = get_embedder()
        try:
            vectors = embedder.embed_passages(unique)
            ahead = {t: ([float(x) for x in v], embedder.model_name) for t, v in zip(unique, vectors, strict=True)}
        except EmbeddingError as exc:
            logger.warning("batch embedding failed, each memory embeds on its own: %s", exc)
    token = _ahead.set(ahead)
    try:
        yield
    finally:
        _ahead.reset(token)


def embedded_ahead(text: str) -> bool:
    """Whether ``text``'s vector is already at hand (``embedded_together``)."""
    return text in (_ahead.get() or {})


def embed_passage(text: str) -> tuple[list[float] | None, str]:
    """The passage vector and model of ``text``; (None, "") when the embedder fails.

    A failing embedder must not lose a memory: the item is stored without a vector (keyword recall
    still finds it) and ``embed_pending_memories`` fills the vector in once the embedder is back.
    """
    ahead = _ahead.get()
    if ahead and text in ahead:
        return ahead[text]
    embedder = get_embedder()
    try:
        vector = embedder.embed_passages([text])[0]
    except EmbeddingError as exc:
        logger.warning("memory stored without embedding (will be embedded later): %s", exc)
        return None, ""
    return [float(x) for x in vector], embedder.model_name


def enqueue_pending_embeddings(user_id: str) -> None:
    # Services do not know Celery: receivers.py turns this signal into the embedding task.
    memory_embedding_pending.send(sender=MemoryItem, user_id=user_id)


def embed_pending_memories(*, user_id: str | None = None, batch_size: int = 64, other_models: bool = False,
                           progress: Progress | None = None) -> dict:
    """Embed current memories stored without a vector (after an embedder outage); idempotent.

    With ``other_models`` also those whose vector comes from another model than the configured one
    (after switching embedders): batch by batch, each committed, so an interrupted run resumes; recall
    keeps working meanwhile (items not yet re-embedded are found by their keywords). Batches go through
    the bulk embedding pipeline (the next batch embeds while one is stored); ``progress(done, total)``
    after each. ``user_id`` limits the sweep to one user's scope; None sweeps every user (the beat job).
    Returns counts; an embedder still failing leaves the items pending, to be tried again later.
    """
    embedder = get_embedder()
    model = embedder.model_name
    stale = stale_vector(model if other_models else None)
    if user_id is not None:
        users = [validate_user_id(user_id)]
        total = MemoryItem.objects.for_user(user_id).current().filter(stale).count() if progress else 0
    else:
        counts = MemoryItem.objects.pending_embedding_counts(model if other_models else None)
        users, total = list(counts), sum(counts.values())
    counts = {"embedded": 0, "still_pending": 0}
    failing: set[str] = set()

    def batches() -> Iterator[tuple[tuple[str, list[MemoryItem]], list[str]]]:
        for uid in users:
            last = 0
            while uid not in failing:
                batch = list(MemoryItem.objects.for_user(uid).current().filter(stale, pk__gt=last)
                             .order_by("id").only("id", "content")[:batch_size])
                if not batch:
                    break
                last = batch[-1].pk
                yield (uid, batch), [m.content for m in batch]

    for (uid, batch), vectors in embed_batches(batches(), embedder.embed_passages):
        if isinstance(vectors, EmbeddingError) or uid in failing:
            if uid not in failing:
                logger.warning("pending memory embeddings of %s still failing: %s", uid, vectors)
                failing.add(uid)
            counts["still_pending"] += len(batch)
            continue
        with transaction.atomic():
            for item, vector in zip(batch, vectors, strict=True):
                # Only fill a vector that is still stale: the content may have changed meanwhile.
                MemoryItem.objects.for_user(uid).filter(stale, pk=item.pk, content=item.content).update(
                    embedding=[float(x) for x in vector], embedding_model=model)
        counts["embedded"] += len(batch)
        cache.invalidate_user(uid)
        if progress:
            progress(counts["embedded"], max(total, counts["embedded"]))
    return counts
