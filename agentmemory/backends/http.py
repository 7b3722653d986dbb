"""A small JSON-over-HTTP client shared by the OpenAI-compatible backends (stdlib only)."""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from ..exceptions import BackendError


def post_json(url: str, payload: dict[str, Any], *, api_key: str = "", timeout: float = 30.0,
              error_class: type[BackendError] = BackendError, expect_object: bool = True) -> Any:
    """POST a JSON body and return the decoded JSON answer; any failure raises ``error_class``.

    With ``expect_object`` (the OpenAI protocols) anything but a JSON object is an error; TEI's
    ``/rerank`` answers with a list, so its backend passes False.
    """
    data = json.dumps(payload).encode("utf-8")
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
    except urllib.error.HTTPError as exc:
        detail = exc.read()[:500].decode("utf-8", "replace")
        raise error_class(f"{url} answered HTTP {exc.code}: {detail}") from exc
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise error_class(f"{url} could not be reached: {exc}") from exc
    try:
        answer = json.loads(body)
    except ValueError as exc:
        raise error_class(f"{url} answered with invalid JSON") from exc
    if expect_object and not isinstance(answer, dict):
        raise error_class(f"{url} answered with a JSON {type(answer).__name__}, expected an object")
    return answer


def join_url(base: str, path: str) -> str:
    """Join an OpenAI-style base URL (``http://host:port`` or ``.../v1``) and a path like ``/embeddings``."""
    base = base.rstrip("/")
    if base.endswith(path):
        return base
    if not base.endswith("/v1"):
        base += "/v1"
    return base + path
