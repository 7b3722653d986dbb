"""A foreign host: a typical `django-admin startproject` site with its own DRF API, into which
agentmemory is installed exactly as README.md's "Installing into an existing Django site" says.

Nothing of the host's own configuration is changed for agentmemory: its REST_FRAMEWORK stays as it
was (session + basic auth, IsAuthenticated, DRF's own schema class).
"""
from __future__ import annotations

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent
REPO_DIR = BASE_DIR.parent.parent

SECRET_KEY = "foreign-host-test-only-" + "x" * 40
DEBUG = False
ALLOWED_HOSTS = ["testserver", "localhost", "127.0.0.1"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "tests.foreign_host.notes",
    # --- merged for agentmemory (README: add the ones you do not have yet) ---
    "django_celery_beat",
    "agentmemory",
]
# A variant of the host for the tests: one that already documents its own API with drf-spectacular.
USES_SPECTACULAR = os.environ.get("FOREIGN_HOST_USES_SPECTACULAR") == "1"
if USES_SPECTACULAR:
    INSTALLED_APPS += ["drf_spectacular"]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "tests.foreign_host.urls"

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

# The host's development database: agentmemory's embedded PostgreSQL+pgvector helper (README), or
# the PostgreSQL in DATABASE_URL.
if os.environ.get("DATABASE_URL"):
    import environ

    DATABASES = {"default": environ.Env().db("DATABASE_URL")}
else:
    from agentmemory.embedded import embedded_database

    DATABASES = {"default": embedded_database("foreign_host", data_dir=REPO_DIR / ".agentmemory")}
DATABASES["default"]["TEST"] = {"NAME": os.environ.get("FOREIGN_HOST_TEST_DATABASE_NAME", "test_foreign_host")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"

# The host's own API settings, as they were before agentmemory was installed.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.BasicAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
}
if USES_SPECTACULAR:
    REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"] = "drf_spectacular.openapi.AutoSchema"

# The host's Celery settings (its app is tests/foreign_host/celery_app.py). Eager here: the tests of
# asynchronous behaviour with a real worker live in the main suite.
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True

# One embedder thread: the test process shares a small machine.
AGENTMEMORY = {"EMBEDDER_THREADS": 1}
