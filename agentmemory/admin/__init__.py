"""Django admin of agentmemory, one module per area (importing them registers the screens)."""
from . import api_keys, audit, knowledge, ledger, memory, search, working  # noqa: F401
