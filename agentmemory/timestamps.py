"""The one timestamp convention of everything the app answers: ISO 8601 in UTC with a ``Z``.

REST responses, tool and MCP results, exports and the JSON the services store (provenance, reports) all
write times this way, whatever the host's ``TIME_ZONE`` or the timezone a middleware activated:
``2026-12-04T10:10:16.154250Z`` (microseconds when the value has them). The API views serialise under
UTC (api/base.py), so DRF's ``DateTimeField`` says the same.
"""
from __future__ import annotations

import datetime as dt

UTC = dt.UTC


def iso(value: dt.datetime | None) -> str | None:
    """``value`` as ISO 8601 in UTC ending in ``Z`` (naive values are taken as UTC); None stays None."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    text = value.astimezone(UTC).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text
