"""Exceptions of agentmemory: one root, subclasses that also inherit the Django type they mean."""
from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured, ValidationError


class AgentMemoryError(Exception):
    """Root of every error agentmemory raises on purpose."""


class ConfigurationError(AgentMemoryError, ImproperlyConfigured):
    """A setting is missing or wrong; the message names the setting to fix."""


class InvalidInput(AgentMemoryError, ValidationError):
    """Input rejected at the edge; ``field`` names the offending field when there is one."""

    def __init__(self, message: str, field: str | None = None):
        AgentMemoryError.__init__(self, message)
        ValidationError.__init__(self, message)
        self.field = field
        self.detail = message


class NotFound(AgentMemoryError):
    """A referenced object does not exist in the caller's scope."""


class AccessDenied(AgentMemoryError):
    """The caller may not do this (scope, permission, user or agent); the message says which."""


class BackendError(AgentMemoryError):
    """An embedding, LLM or rerank backend failed (network, protocol, or bad answer)."""


class EmbeddingError(BackendError):
    """The embedding backend failed; nothing was written on its account."""


class EmbeddingModelMismatch(AgentMemoryError):
    """Vectors of one embedding model were about to be compared with vectors of another."""


class ExtractionBusy(BackendError):
    """Another extraction run of the same user is running: this one waits (the task retries it later)."""


class LLMError(BackendError):
    """An OpenAI-compatible chat backend failed or returned an unusable answer."""
