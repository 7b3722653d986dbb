"""Python client of the agentmemory REST API, sync (``AgentMemory``) and async (``AsyncAgentMemory``).

Needs only httpx (no Django): it runs wherever the agent runs.

    from agentmemory.client import AgentMemory
    m = AgentMemory("http://127.0.0.1:8000/api/agentmemory", "am_...")
    m.add([{"role": "user", "content": "我们公司是做母婴用品的"}], user_id="u1")
    m.search("帮我写一封营销邮件", user_id="u1")

The mem0 verbs (``add``, ``search``, ``get_all``, ``get``, ``update``, ``delete``, ``delete_all``,
``history``) come first; every other endpoint has a method named for it. Connection errors, 429 and
503 are retried (``Retry-After`` honoured, else exponential backoff); every other error raises one of
the exceptions of errors.py, carrying the API's error body.

Modules: sync.py, asynchronous.py, errors.py, results.py, base.py (the shared request plumbing).
"""
from __future__ import annotations

from .asynchronous import AsyncAgentMemory
from .base import RETRY_STATUSES
from .errors import (
    AgentMemoryClientError,
    APIConnectionError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
)
from .results import Context, Memory
from .sync import AgentMemory

__all__ = ["RETRY_STATUSES", "APIConnectionError", "AgentMemory", "AgentMemoryClientError", "AsyncAgentMemory",
           "AuthenticationError", "BadRequestError", "ConflictError", "Context", "Memory", "NotFoundError",
           "PayloadTooLargeError", "PermissionDeniedError", "RateLimitError", "ServerError"]
