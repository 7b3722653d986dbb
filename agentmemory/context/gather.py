"""Stage 2, gather: call the layers the route needs and turn their answers into scored candidates.

Layers (context/layers/): profile (agentmemory.memory.profile, cached), long-term memory
(agentmemory.memory.recall), knowledge (agentmemory.knowledge.search) and working memory
(agentmemory.working.window). The two searches run in worker threads when that helps latency; Django DB
connections are per thread, so each worker closes its connection like a request would
(``close_old_connections``, which honours CONN_MAX_AGE). Inside a transaction (a test, an atomic view)
the searches run inline instead: a worker thread's connection could not see the caller's uncommitted rows.

Each layer maps its own scores to a relevance in [0, 1] and a decay in [0, 1] (see combine.py). A
layer that fails is reported in the trace and contributes nothing; the context is still built.
"""
from __future__ import annotations

import concurrent.futures
import contextvars
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import replace

from django.db import close_old_connections, connection

from ..conf import app_settings
from ..exceptions import InvalidInput, NotFound
from ..types import LayerResult, WorkingContext
from .layers.knowledge import gather_knowledge
from .layers.memory import gather_memories
from .layers.profile import gather_profile
from .layers.working import gather_working

logger = logging.getLogger("agentmemory.context")

_pool: concurrent.futures.ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _forget_pool_after_fork() -> None:
    global _pool
    _pool = None  # its threads did not survive the fork


os.register_at_fork(after_in_child=_forget_pool_after_fork)


def _executor() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="agentmemory-context")
    return _pool


def _in_worker(fn: Callable[[], LayerResult]) -> Callable[[], LayerResult]:
    def run() -> LayerResult:
        close_old_connections()
        try:
            return fn()
        finally:
            close_old_connections()

    return run


def _timed(layer: str, fn: Callable[[], LayerResult]) -> LayerResult:
    start = time.perf_counter()
    try:
        result = fn()
    except (InvalidInput, NotFound):
        raise
    except Exception as exc:  # degrade, don't fail: a layer outage leaves the others standing
        logger.warning("context layer %s failed: %s", layer, exc, exc_info=True)
        result = LayerResult(layer=layer, status="failed", error=f"{type(exc).__name__}: {str(exc)[:300]}")
    return replace(result, elapsed_ms=(time.perf_counter() - start) * 1000)


def _prefetch_query_vector(query: str) -> None:
    """Both searches embed the same query: start it now, so the model runs while the profile, the working
    memory and the keyword channels read the database; both layers then find the vector in the embedder's
    query cache. A failing embedder is the searches' business."""
    try:
        from ..backends import get_embedder

        embedder = get_embedder()
        if embedder.query_cache_size > 0:  # without the cache the searches could not share it
            embedder.prefetch_query(query.strip())
    except Exception as exc:
        logger.debug("query prefetch not started: %s", exc)


def gather_layers(*, layers: tuple[str, ...], user_id: str, query: str, agent_id: str | None,
                  working: WorkingContext | None, knowledge_bases: list | None,
                  parallel: bool | None = None) -> dict[str, LayerResult]:
    """Run the layers in ``layers``; the searches in parallel threads unless inside a transaction."""
    jobs: dict[str, Callable[[], LayerResult]] = {}
    if "knowledge" in layers:
        jobs["knowledge"] = lambda: gather_knowledge(query, knowledge_bases=knowledge_bases,
                                                     top_k=app_settings.CONTEXT_KNOWLEDGE_TOP_K)
    if "long_term_memory" in layers:
        jobs["long_term_memory"] = lambda: gather_memories(user_id, query, agent_id=agent_id,
                                                           top_k=app_settings.CONTEXT_MEMORY_TOP_K)
    if jobs:
        _prefetch_query_vector(query)
    if parallel is None:
        parallel = app_settings.CONTEXT_PARALLEL and not connection.in_atomic_block
    results: dict[str, LayerResult] = {}
    futures = {}
    if parallel and len(jobs) > 1:
        pool = _executor()
        # Each job runs in a copy of this context: where retrieval reads (agentmemory/db.py) goes with it.
        futures = {name: pool.submit(contextvars.copy_context().run, _in_worker(lambda n=name, f=fn: _timed(n, f)))
                   for name, fn in jobs.items()}
    if "profile" in layers:
        results["profile"] = _timed("profile", lambda: gather_profile(user_id, query, agent_id=agent_id))
    if "working_memory" in layers:
        if working is None:
            results["working_memory"] = LayerResult(layer="working_memory", status="skipped",
                                                    detail={"note": "no session_id given"})
        else:
            results["working_memory"] = _timed("working_memory", lambda: gather_working(working, query))
    if not futures:
        for name, fn in jobs.items():
            results[name] = _timed(name, fn)
    for name, future in futures.items():
        results[name] = future.result()
    return results
