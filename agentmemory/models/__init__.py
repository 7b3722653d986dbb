"""agentmemory models, one module per area; import them from here."""
from .apikeys import ApiKey
from .audit import AuditEvent

__all__ = ["ApiKey", "AuditEvent"]
