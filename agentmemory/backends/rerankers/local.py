"""A local cross-encoder reranker (sentence-transformers), for AGENTMEMORY['RERANK_MODEL_PATH']."""
from __future__ import annotations

import threading

from ...conf import app_settings
from ...exceptions import ConfigurationError
from .base import Reranker


class CrossEncoderReranker(Reranker):
    """Scores pairs with ``sentence_transformers.CrossEncoder`` loaded from a local model path."""

    def __init__(self, model_path: str | None = None):
        self.model_path = model_path if model_path is not None else app_settings.RERANK_MODEL_PATH
        if not self.model_path:
            raise ConfigurationError(
                "The local reranker needs AGENTMEMORY['RERANK_MODEL_PATH'] (a cross-encoder model folder)."
            )
        try:
            import sentence_transformers  # noqa: F401
        except ImportError as exc:
            raise ConfigurationError(
                "The local reranker needs sentence-transformers: pip install sentence-transformers"
            ) from exc
        self.name = f"cross-encoder:{self.model_path}"
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        if self._model is None:
            with self._lock:
                if self._model is None:
                    from sentence_transformers import CrossEncoder

                    self._model = CrossEncoder(self.model_path)
        return self._model

    def _score(self, query: str, passages: list[str]) -> list[float]:
        scores = self._load().predict([(query, p) for p in passages])
        return [float(s) for s in scores]
