"""Input checks shared by the areas: a query, a user id or a text is validated the same way everywhere."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .conf import app_settings
from .exceptions import InvalidInput

MAX_ID_CHARS = 255


def validate_bounded_text(value: Any, *, field: str, limit_setting: str) -> str:
    """``value`` unchanged, or InvalidInput: a non-empty string of at most AGENTMEMORY[limit_setting] characters."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{field} must be a non-empty string.", field=field)
    limit = int(getattr(app_settings, limit_setting))
    if len(value) > limit:
        raise InvalidInput(f"{field} has {len(value)} characters; the limit is {limit} ({limit_setting}).",
                           field=field)
    return value


def validate_query(query: Any) -> str:
    """The query stripped, or InvalidInput: it must be a non-empty string of at most MAX_QUERY_CHARS."""
    return validate_bounded_text(query, field="query", limit_setting="MAX_QUERY_CHARS").strip()


def validate_user_id(user_id: Any) -> str:
    """The caller's opaque user id, or InvalidInput: a non-empty string of at most 255 characters."""
    if not isinstance(user_id, str) or not user_id.strip() or len(user_id) > MAX_ID_CHARS:
        raise InvalidInput(f"user_id must be a non-empty string of at most {MAX_ID_CHARS} characters.",
                           field="user_id")
    if "\x00" in user_id or any(0xD800 <= ord(c) <= 0xDFFF for c in user_id):
        # PostgreSQL text cannot hold NUL, and a lone surrogate is not text at all.
        raise InvalidInput("user_id must not contain NUL or unpaired surrogate characters.", field="user_id")
    if "/" in user_id:
        # A user id is a path segment of the API (users/{user_id}/...) and of the user's page: a slash
        # would address another endpoint, so it is refused where the id first appears.
        raise InvalidInput("user_id must not contain '/' (it is a segment of URL paths such as "
                           "users/{user_id}/); map such ids to another form.", field="user_id")
    return user_id


def validate_tags(tags: Any, *, field: str = "tags") -> dict[str, str]:
    """Context tags such as ``{"project": "java-billing"}``: at most 20 pairs of short strings ({} for none)."""
    if tags in (None, ""):
        return {}
    if not isinstance(tags, Mapping) or not all(isinstance(k, str) and isinstance(v, str) and k and len(k) <= 100
                                                 and len(v) <= 200 for k, v in tags.items()):
        raise InvalidInput(f"{field} must be an object of short strings, e.g. {{\"project\": \"java-billing\"}}.",
                           field=field)
    if len(tags) > 20:
        raise InvalidInput(f"at most 20 {field}.", field=field)
    return dict(tags)
