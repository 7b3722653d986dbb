"""Django admin of agentmemory, one module per area."""
from . import apikeys, audit  # noqa: F401
