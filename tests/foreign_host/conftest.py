"""The foreign-host tests run in their own pytest processes, with a host's settings module:

    python -m pytest --ds=tests.foreign_host.settings tests/foreign_host
    python -m pytest --ds=tests.foreign_host.email_settings tests/foreign_host/email_login

(`make test` runs both after the main suite). Each host collects only its own tests; under any other
settings none of them are collected.
"""
import os

_HOST = os.environ.get("DJANGO_SETTINGS_MODULE")
if _HOST == "tests.foreign_host.settings":
    collect_ignore_glob = ["email_login/test_*.py"]
elif _HOST == "tests.foreign_host.email_settings":
    collect_ignore_glob = ["test_*.py"]
else:
    collect_ignore_glob = ["test_*.py", "email_login/test_*.py"]
if _HOST in ("tests.foreign_host.settings", "tests.foreign_host.email_settings"):
    from .celery_app import app as celery_app  # noqa: F401  (a host imports its Celery app at startup)
