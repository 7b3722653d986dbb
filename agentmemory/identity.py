"""Who a logged-in Django user is to the memory: USER_ID_RESOLVER and the resolvers it can name.

The memory is keyed by an opaque user id. For the host's own logged-in users (the user's page, session
calls to the API) that id comes from the Django user through ``AGENTMEMORY["USER_ID_RESOLVER"]``; the
default is the primary key, which never changes and is never given to another account. A username
(often the e-mail address) may change, and a freed one may be registered again by someone else, who
would then read the first person's memories: it is kept only for sites that used it in earlier releases
(``manage.py agentmemory_migrate_user_ids`` moves their memories to the primary key).
"""
from __future__ import annotations

from typing import Any

from django.utils.module_loading import import_string

from .conf import app_settings
from .exceptions import InvalidInput
from .validation import validate_user_id


def pk_as_user_id(user: Any) -> str | None:
    """The default resolver: a Django user's memory user id is their primary key, as text."""
    return str(user.pk) if getattr(user, "pk", None) is not None else None


def username_as_user_id(user: Any) -> str | None:
    """The resolver of sites that keyed memories on usernames (the default of earlier releases)."""
    return user.get_username() or None


def resolve_user_id(user: Any) -> str | None:
    """The memory user id of a Django user (USER_ID_RESOLVER), or None when it has none or the resolver
    gives an id the API could not address (empty, with a '/', too long)."""
    own = import_string(app_settings.USER_ID_RESOLVER)(user)
    if own in (None, ""):
        return None
    try:
        return validate_user_id(str(own))
    except InvalidInput:
        return None
