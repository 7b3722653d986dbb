"""A second foreign host: a custom user model that logs in by e-mail, and the app mounted at /ai/memory/.

The settings of the typical host (tests/foreign_host/settings.py) with what such a site changes: its
AUTH_USER_MODEL and where it mounts agentmemory. Nothing of agentmemory is configured for it: the default
USER_ID_RESOLVER (the primary key) is what is under test.

    python -m pytest --ds=tests.foreign_host.email_settings tests/foreign_host/email_login
"""
from .settings import *  # noqa: F403
from .settings import DATABASES, INSTALLED_APPS

INSTALLED_APPS = [app for app in INSTALLED_APPS if app != "tests.foreign_host.notes"]
INSTALLED_APPS.insert(INSTALLED_APPS.index("rest_framework"), "tests.foreign_host.accounts")
AUTH_USER_MODEL = "accounts.User"
ROOT_URLCONF = "tests.foreign_host.email_urls"
DATABASES["default"]["TEST"] = {"NAME": "test_foreign_host_email"}
