"""The client's exceptions, one per kind of API error, each carrying the API's error body."""
from __future__ import annotations

import httpx


class AgentMemoryClientError(Exception):
    """Root of the client's errors: ``status`` (None for network errors), ``error``, ``detail``, ``body``."""

    def __init__(self, message: str, *, status: int | None = None, body: dict | None = None):
        super().__init__(message)
        self.status = status
        self.body = body or {}
        self.error = self.body.get("error", "")
        self.detail = self.body.get("detail", message)
        self.field = self.body.get("field")


class APIConnectionError(AgentMemoryClientError):
    """The server could not be reached (after the retries)."""


class BadRequestError(AgentMemoryClientError):
    """400: invalid input; ``field`` names it."""


class AuthenticationError(AgentMemoryClientError):
    """401: no key, or an invalid, revoked or expired one."""


class PermissionDeniedError(AgentMemoryClientError):
    """403: the key lacks the scope, or may not act for that user or agent."""


class NotFoundError(AgentMemoryClientError):
    """404."""


class ConflictError(AgentMemoryClientError):
    """409 (e.g. an embedding model mismatch)."""


class PayloadTooLargeError(AgentMemoryClientError):
    """413."""


class RateLimitError(AgentMemoryClientError):
    """429 (after the retries)."""


class ServerError(AgentMemoryClientError):
    """5xx (503 after the retries)."""


_BY_STATUS = {400: BadRequestError, 401: AuthenticationError, 403: PermissionDeniedError, 404: NotFoundError,
              409: ConflictError, 413: PayloadTooLargeError, 429: RateLimitError}


def error_for(response: httpx.Response) -> AgentMemoryClientError:
    try:
        body = response.json()
    except ValueError:
        body = {"error": "http_error", "detail": response.text[:500]}
    if not isinstance(body, dict):
        body = {"error": "http_error", "detail": str(body)[:500]}
    cls = _BY_STATUS.get(response.status_code, ServerError if response.status_code >= 500 else AgentMemoryClientError)
    return cls(f"{response.status_code} {body.get('error', '')}: {body.get('detail', '')}",
               status=response.status_code, body=body)
