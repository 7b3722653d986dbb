"""The request plumbing the sync and async clients share."""
from __future__ import annotations

from typing import Any

import httpx

from .errors import APIConnectionError, error_for

RETRY_STATUSES = (429, 503)
#: What ``BaseClient._settle`` answers for an attempt that is to be retried.
AGAIN = object()


class BaseClient:
    """What the sync and async clients share: the base URL, headers, retry policy and error mapping."""

    def __init__(self, url: str, key: str | None = None, *, timeout: float = 30.0, max_retries: int = 3,
                 backoff: float = 0.5, headers: dict | None = None):
        self.url = url.rstrip("/") + "/"
        self.max_retries = max_retries
        self.backoff = backoff
        self.timeout = timeout
        self.headers = {"Accept": "application/json", **(headers or {})}
        if key:
            self.headers["Authorization"] = f"Bearer {key}"

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        if response is not None:
            retry_after = response.headers.get("Retry-After", "")
            if retry_after.strip().isdigit():
                return min(float(retry_after), 60.0)
        return self.backoff * (2 ** attempt)

    def _settle(self, method: str, path: str, attempt: int, response: httpx.Response | None,
                error: httpx.TransportError | None) -> Any:
        """The answer of one attempt, or ``AGAIN`` when it is retried (connection error, 429, 503; at most
        ``max_retries`` times, then the error is raised)."""
        if error is not None:
            if attempt >= self.max_retries:
                raise APIConnectionError(f"{method} {path}: {error}") from error
            return AGAIN
        if response.status_code not in RETRY_STATUSES or attempt >= self.max_retries:
            return self._result(response)
        return AGAIN

    @staticmethod
    def _result(response: httpx.Response) -> Any:
        if response.status_code >= 400:
            raise error_for(response)
        if not response.content:
            return None
        return response.json()

    # Every endpoint, once: (method, path, json, params) for the sync and async clients to send.
    @staticmethod
    def _clean(params: dict | None) -> dict | None:
        return {k: v for k, v in params.items() if v is not None} if params else None
