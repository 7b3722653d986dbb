"""Query parameters read the same way on every endpoint: integers bounded, pages, errors in the envelope."""
from __future__ import annotations

from dataclasses import dataclass

from ..exceptions import InvalidInput

#: Larger offsets or ids than this are refused: no table of ours gets near it, and PostgreSQL's
#: integer columns overflow past 2**31.
MAX_INT_PARAM = 2**31 - 1


def int_param(request, name: str, default: int, *, minimum: int = 0, maximum: int = MAX_INT_PARAM,
              clamp: bool = False) -> int:
    """The integer query parameter ``name`` (``default`` when absent), within minimum..maximum.

    Out of range is a 400, or with ``clamp`` (page sizes) the nearest bound.
    """
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InvalidInput(f"{name} must be an integer.", field=name) from None
    if clamp:
        return max(minimum, min(value, maximum))
    if not minimum <= value <= maximum:
        raise InvalidInput(f"{name} must be between {minimum} and {maximum}.", field=name)
    return value


@dataclass(frozen=True)
class Page:
    """One page of a list: ``limit`` rows from ``offset`` (the one way the app's lists are paged)."""

    offset: int
    limit: int

    def of(self, rows):
        """The page's slice of ``rows`` (a QuerySet already ordered, or a list)."""
        return rows[self.offset:self.offset + self.limit]


def page_param(request, *, default_limit: int, max_limit: int) -> Page:
    """``?limit=`` (clamped to 1..max_limit) and ``?offset=`` (a bounded integer, 400 otherwise)."""
    return Page(offset=int_param(request, "offset", 0),
                limit=int_param(request, "limit", default_limit, minimum=1, maximum=max_limit, clamp=True))
