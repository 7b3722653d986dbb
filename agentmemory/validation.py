"""Input checks shared by the areas: a search query is validated the same way everywhere."""
from __future__ import annotations

from typing import Any

from .conf import app_settings
from .exceptions import InvalidInput


def validate_query(query: Any) -> str:
    """The query stripped, or InvalidInput: it must be a non-empty string of at most MAX_QUERY_CHARS."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query must be a non-empty string", field="query")
    limit = int(app_settings.MAX_QUERY_CHARS)
    if len(query) > limit:
        raise InvalidInput(f"query is {len(query)} characters; the limit is {limit} (MAX_QUERY_CHARS)",
                           field="query")
    return query.strip()
