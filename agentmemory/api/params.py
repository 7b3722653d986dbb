"""Query parameters read the same way on every endpoint: integers bounded, errors in the envelope."""
from __future__ import annotations

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
