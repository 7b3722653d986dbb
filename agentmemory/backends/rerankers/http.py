"""HTTP rerank APIs: Jina / Cohere / SiliconFlow / vLLM style ``POST /rerank`` and Hugging Face TEI."""
from __future__ import annotations

from typing import Any

from ...conf import app_settings
from ...exceptions import BackendError, ConfigurationError
from ..http import post_json
from .base import Reranker


def _post(url: str, payload: dict[str, Any], *, api_key: str, timeout: float) -> Any:
    return post_json(url, payload, api_key=api_key, timeout=timeout, expect_object=False)


def _rerank_url(base: str) -> str:
    base = base.rstrip("/")
    return base if base.endswith("/rerank") else base + "/rerank"


class HttpReranker(Reranker):
    """``POST {RERANK_URL}/rerank`` with ``{model, query, documents, top_n}``; answers
    ``{"results": [{"index": i, "relevance_score": s}, ...]}`` (Jina, Cohere v1/v2, SiliconFlow, vLLM).
    """

    name = "http"

    def __init__(self, url: str | None = None, model: str | None = None, api_key: str | None = None,
                 timeout: float | None = None):
        self.url = url if url is not None else app_settings.RERANK_URL
        self.model = model if model is not None else app_settings.RERANK_MODEL
        self.api_key = api_key if api_key is not None else app_settings.RERANK_API_KEY
        self.timeout = float(timeout if timeout is not None else app_settings.RERANK_TIMEOUT)
        if not self.url:
            raise ConfigurationError("An HTTP reranker needs AGENTMEMORY['RERANK_URL'] (e.g. http://host:port/v1).")
        self.name = f"http:{self.model or self.url}"

    def _payload(self, query: str, passages: list[str]) -> dict[str, Any]:
        payload: dict[str, Any] = {"query": query, "documents": passages, "top_n": len(passages)}
        if self.model:
            payload["model"] = self.model
        return payload

    def _score(self, query: str, passages: list[str]) -> list[float]:
        answer = _post(_rerank_url(self.url), self._payload(query, passages), api_key=self.api_key,
                       timeout=self.timeout)
        items = answer.get("results") if isinstance(answer, dict) else answer
        if items is None and isinstance(answer, dict):
            items = answer.get("data")
        return _scores_from_items(items, len(passages), self.url)


class TEIReranker(HttpReranker):
    """Hugging Face text-embeddings-inference: ``POST /rerank`` with ``{query, texts}``, answers a list."""

    def _payload(self, query: str, passages: list[str]) -> dict[str, Any]:
        return {"query": query, "texts": passages, "truncate": True}


def _scores_from_items(items: Any, count: int, url: str) -> list[float]:
    if not isinstance(items, list):
        raise BackendError(f"{url} answered without a list of rerank results")
    scores: list[float | None] = [None] * count
    for item in items:
        if not isinstance(item, dict) or "index" not in item:
            raise BackendError(f"{url} answered a rerank result without an index")
        index = int(item["index"])
        value = item.get("relevance_score", item.get("score"))
        if value is None or not 0 <= index < count:
            raise BackendError(f"{url} answered an unusable rerank result: {item!r}"[:300])
        scores[index] = float(value)
    if any(s is None for s in scores):
        raise BackendError(f"{url} did not score every passage")
    return [float(s) for s in scores]  # type: ignore[arg-type]
