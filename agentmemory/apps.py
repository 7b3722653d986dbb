"""AppConfig of agentmemory: registers system checks and signal receivers."""
from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AgentMemoryConfig(AppConfig):
    name = "agentmemory"
    label = "agentmemory"
    verbose_name = _("Agent memory")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the checks)
        from .receivers import connect_receivers

        connect_receivers()
