"""Django admin of agentmemory, one module per area."""
from . import apikeys, audit  # noqa: F401
from . import knowledge  # noqa: F401
from . import retrieval  # noqa: F401
from . import memory  # noqa: F401
from . import sessions  # noqa: F401
