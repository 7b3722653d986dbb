"""The app's JSON parser: what PostgreSQL cannot store is refused at the edge, with the field's path."""
from __future__ import annotations

from typing import Any

from rest_framework.parsers import FormParser, JSONParser, MultiPartParser

from ..exceptions import InvalidInput

#: Deeper JSON than this is refused: no field of the API nests anywhere near it.
MAX_JSON_DEPTH = 32


def check_storable(value: Any, path: str = "", depth: int = 0) -> None:
    """InvalidInput when ``value`` nests deeper than MAX_JSON_DEPTH or holds text PostgreSQL refuses
    (NUL, lone surrogates), in a string or a key, at any depth."""
    if depth > MAX_JSON_DEPTH:
        raise InvalidInput(f"The JSON nests deeper than {MAX_JSON_DEPTH} levels.", field=path or None)
    if isinstance(value, str):
        _check_text(value, path)
    elif isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            _check_text(str(key), child)
            check_storable(item, child, depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            check_storable(item, f"{path}[{index}]", depth + 1)


def _check_text(text: str, path: str) -> None:
    if "\x00" in text:
        raise InvalidInput("Text must not contain NUL (\\u0000) characters.", field=path or None)
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise InvalidInput("Text must not contain unpaired surrogate characters.", field=path or None)


class StrictJSONParser(JSONParser):
    """DRF's JSON parser (invalid JSON and invalid UTF-8 are a 400), plus check_storable."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise InvalidInput(f"The JSON nests deeper than {MAX_JSON_DEPTH} levels.") from None
        check_storable(data)
        return data


def _check_form(data) -> None:
    check_storable({key: data.getlist(key) for key in data})


class StrictFormParser(FormParser):
    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        _check_form(data)
        return data


class StrictMultiPartParser(MultiPartParser):
    """Multipart, with its text fields checked (uploaded files are parsed by the import, not here)."""

    def parse(self, stream, media_type=None, parser_context=None):
        result = super().parse(stream, media_type, parser_context)
        _check_form(result.data)
        return result


PARSERS = [StrictJSONParser, StrictFormParser, StrictMultiPartParser]
