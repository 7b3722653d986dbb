"""Django admin of agentmemory, one module per area (importing them registers the screens)."""
from . import apikeys, audit, knowledge, memory, retrieval, sessions  # noqa: F401
