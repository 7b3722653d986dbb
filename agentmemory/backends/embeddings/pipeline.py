"""Embedding in bulk: the embedder runs batch k+1 in a background thread while batch k is stored.

One path for every bulk embedding (document import, re-embedding a knowledge base or memories). The
bundled model releases the GIL, so the database writes of one batch cost the embedder nothing; an
HTTP embedder waits on the network meanwhile. Database work stays on the calling thread (Django
connections are per thread), and so does producing the batches: whatever the batches' iterator does
(preparing the next documents) overlaps the embedding of the batch before.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

import numpy as np

from ...exceptions import EmbeddingError

Key = TypeVar("Key")


def embed_batches(batches: Iterable[tuple[Key, list[str]]], embed: Callable[[list[str]], np.ndarray],
                  ) -> Iterator[tuple[Key, np.ndarray | EmbeddingError]]:
    """Yield (key, vectors) for each (key, texts) batch, in order, embedding one batch ahead.

    The next batch is taken and submitted before the caller gets the current one, so what the caller
    does with it (storing the vectors) overlaps the next embedding. A batch the embedder refused is
    yielded with its EmbeddingError instead of vectors; the batches after it are still tried.
    """
    def result(future: Future) -> np.ndarray | EmbeddingError:
        try:
            return future.result()
        except EmbeddingError as exc:
            return exc

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="agentmemory-embed") as pool:
        pending: tuple[Key, Future] | None = None
        try:
            for key, texts in batches:
                submitted = (key, pool.submit(embed, texts))
                if pending is not None:
                    yield pending[0], result(pending[1])
                pending = submitted
            if pending is not None:
                key, future = pending
                pending = None
                yield key, result(future)
        finally:
            if pending is not None:
                pending[1].cancel()
