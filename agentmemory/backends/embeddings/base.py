"""Base interface of embedders: model name, dimension, and batched query/passage embedding."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...exceptions import EmbeddingError


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

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]

    def _batched(self, texts: list[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        parts = []
        for start in range(0, len(texts), self.batch_size):
            chunk = texts[start : start + self.batch_size]
            try:
                vectors = np.asarray(self._embed(chunk, is_query), dtype=np.float32)
            except EmbeddingError:
                raise
            except Exception as exc:  # any backend failure becomes the one error type callers handle
                raise EmbeddingError(f"{type(self).__name__} failed: {exc}") from exc
            if vectors.shape != (len(chunk), self.dimensions):
                raise EmbeddingError(
                    f"{self.model_name} returned vectors of shape {vectors.shape}, "
                    f"expected ({len(chunk)}, {self.dimensions})"
                )
            parts.append(vectors)
        out = np.vstack(parts)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms
