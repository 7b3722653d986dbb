"""Base interface of embedders: model name, dimension, and batched query/passage embedding."""
from __future__ import annotations

import concurrent.futures
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from ...exceptions import EmbeddingError

_prefetch_pool: concurrent.futures.ThreadPoolExecutor | None = None
_prefetch_lock = threading.Lock()


def _prefetcher() -> concurrent.futures.ThreadPoolExecutor:
    global _prefetch_pool
    if _prefetch_pool is None:
        with _prefetch_lock:
            if _prefetch_pool is None:
                # Threads mostly wait (on an HTTP embedder, or on the bundled model's own thread);
                # enough of them that concurrent requests do not queue behind each other.
                _prefetch_pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=8, thread_name_prefix="agentmemory-embed")
    return _prefetch_pool


def _forget_pool_after_fork() -> None:
    global _prefetch_pool
    _prefetch_pool = None  # its threads did not survive the fork


os.register_at_fork(after_in_child=_forget_pool_after_fork)


class Embedder:
    """Turns texts into unit-length vectors.

    Subclasses implement ``_embed(texts, is_query)``. Retrieval models such as E5 embed questions
    and passages differently, so callers say which they have: ``embed_queries`` for search input,
    ``embed_passages`` for stored text.
    """

    #: Name recorded beside every stored vector; searching across models is refused.
    model_name: str = ""
    #: Dimension of the vectors returned.
    dimensions: int = 0
    batch_size: int = 32

    def _embed(self, texts: list[str], is_query: bool) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._batched(list(texts), True)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._batched(list(texts), False)

    #: Query vectors kept per process: one request embeds its query once even when the knowledge
    #: and memory layers both search with it (from parallel threads).
    query_cache_size: int = 256

    def clear_query_cache(self) -> None:
        """Forget cached query vectors and failures (benchmarks that must pay for every embedding use this)."""
        self.__dict__.get("_query_failures", {}).clear()
        state = self.__dict__.get("_query_cache_state")
        if state is not None:
            lock, cache, _inflight = state
            with lock:
                cache.clear()

    def prefetch_query(self, text: str) -> concurrent.futures.Future:
        """Start embedding a query in a background thread and return its future.

        Searches call this first and do their keyword work while the model runs (the bundled model
        and HTTP backends release the GIL); ``embed_query`` for the same text then waits for this
        computation instead of starting another. The future raises EmbeddingError on failure.
        An embedder with a thread of its own (``_query_submitter``) gets the question straight on that
        thread, without a hop through the prefetch pool.
        """
        submit = self._query_submitter()
        if submit is None or self.query_cache_size <= 0:
            return _prefetcher().submit(self.embed_query, text)
        lock, cache, inflight, failures = self._query_state()
        future: concurrent.futures.Future = concurrent.futures.Future()
        with lock:
            if text in cache:
                cache.move_to_end(text)
                future.set_result(cache[text])
                return future
            try:
                self._raise_recent_failure(failures, text)
            except EmbeddingError as exc:
                future.set_exception(exc)
                return future
            event = inflight.get(text)
            if event is None:
                event = inflight[text] = threading.Event()
                owner = True
            else:
                owner = False
        if not owner:  # another caller is computing it: wait for theirs as embed_query does
            return _prefetcher().submit(self.embed_query, text)
        future.set_running_or_notify_cancel()  # running, as an executor's: no cancel() between it and its result

        def finish(raw: concurrent.futures.Future) -> None:
            try:
                vector = self._unit(self._validated(raw.result, 1))[0]
            except EmbeddingError as exc:
                self._remember_failure(text, exc)
                future.set_exception(exc)
            else:
                future.set_result(self._remember(text, vector))
            finally:
                with lock:
                    inflight.pop(text, None)
                event.set()

        try:
            submitted = submit(text)
        except Exception as exc:  # e.g. the thread's executor shut down: fail as a computation would
            submitted = concurrent.futures.Future()
            submitted.set_exception(exc)
        submitted.add_done_callback(finish)
        return future

    def _query_submitter(self):
        """A callable(text) -> Future of the raw (1, dimensions) vectors of one question, computed on the
        embedder's own thread; None (the default) when it has none (the prefetch pool calls embed_query)."""
        return None

    #: Seconds a failed query embedding is remembered: the layers of one request that all need the
    #: vector then share one failure instead of each waiting out the backend's timeout again.
    failure_memory_seconds: float = 5.0

    def _query_state(self) -> tuple[threading.Lock, OrderedDict, dict, dict]:
        """The query cache's lock, vectors (LRU), computations in flight and recent failures."""
        state = self.__dict__.get("_query_cache_state")
        if state is None:
            state = self.__dict__.setdefault("_query_cache_state", (threading.Lock(), OrderedDict(), {}))
        failures = self.__dict__.setdefault("_query_failures", {})
        return (*state, failures)

    def _remember(self, text: str, vector: np.ndarray) -> np.ndarray:
        """Cache a computed query vector (read-only) and forget an earlier failure of it."""
        lock, cache, _inflight, failures = self._query_state()
        vector.setflags(write=False)
        with lock:
            failures.pop(text, None)
            cache[text] = vector
            while len(cache) > self.query_cache_size:
                cache.popitem(last=False)
        return vector

    def _remember_failure(self, text: str, exc: EmbeddingError) -> None:
        lock, _cache, _inflight, failures = self._query_state()
        with lock:
            failures[text] = (time.monotonic(), str(exc))
            if len(failures) > self.query_cache_size:
                failures.pop(next(iter(failures)))

    def embed_query(self, text: str) -> np.ndarray:
        """One query's vector (read-only), computed once per process for repeated and concurrent calls."""
        if self.query_cache_size <= 0:
            return self.embed_queries([text])[0]
        lock, cache, inflight, failures = self._query_state()
        with lock:
            if text in cache:
                cache.move_to_end(text)
                return cache[text]
            self._raise_recent_failure(failures, text)
            event = inflight.get(text)
            owner = event is None
            if owner:
                event = inflight[text] = threading.Event()
        if not owner:
            event.wait(timeout=60)
            with lock:
                if text in cache:
                    return cache[text]
                self._raise_recent_failure(failures, text)
            return self.embed_queries([text])[0]
        try:
            vector = self.embed_queries([text])[0]
        except EmbeddingError as exc:
            self._remember_failure(text, exc)
            raise
        else:
            return self._remember(text, vector)
        finally:
            with lock:
                inflight.pop(text, None)
            event.set()

    def _raise_recent_failure(self, failures: dict, text: str) -> None:
        seen = failures.get(text)
        if seen is not None:
            if time.monotonic() - seen[0] <= self.failure_memory_seconds:
                raise EmbeddingError(seen[1])
            failures.pop(text, None)

    def _batched(self, texts: list[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        parts = []
        for start in range(0, len(texts), self.batch_size):
            chunk = texts[start : start + self.batch_size]
            parts.append(self._validated(lambda chunk=chunk: self._embed(chunk, is_query), len(chunk)))
        return self._unit(np.vstack(parts))

    def _validated(self, compute, count: int) -> np.ndarray:
        """``compute()``'s vectors as float32, checked to be ``count`` of the model's dimension; any backend
        failure becomes the one error type callers handle."""
        try:
            vectors = np.asarray(compute(), dtype=np.float32)
        except EmbeddingError:
            raise
        except Exception as exc:
            raise EmbeddingError(f"{type(self).__name__} failed: {exc}") from exc
        if vectors.shape != (count, self.dimensions):
            raise EmbeddingError(
                f"{self.model_name} returned vectors of shape {vectors.shape}, "
                f"expected ({count}, {self.dimensions})"
            )
        return vectors

    @staticmethod
    def _unit(vectors: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return vectors / norms
