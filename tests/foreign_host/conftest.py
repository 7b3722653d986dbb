"""The foreign-host tests run in their own pytest process, with the host's settings module:

    python -m pytest --ds=tests.foreign_host.settings tests/foreign_host

(`make test` runs it after the main suite). Under any other settings they are not collected.
"""
import os

if os.environ.get("DJANGO_SETTINGS_MODULE") != "tests.foreign_host.settings":
    collect_ignore_glob = ["test_*.py"]
else:
    from .celery_app import app as celery_app  # noqa: F401  (a host imports its Celery app at startup)

