"""Signal wiring, called once from AppConfig.ready()."""
from __future__ import annotations


def connect_receivers() -> None:
    """Connect agentmemory's signal receivers (areas add theirs here)."""
    from django.core.signals import setting_changed

    from .backends import reset_backends

    def _reset(*, setting: str, **kwargs) -> None:
        if setting == "AGENTMEMORY":
            reset_backends()

    setting_changed.connect(_reset, dispatch_uid="agentmemory.reset_backends")

    from .tasks.retrieval import connect_evaluation_trigger  # retrieval: evaluate saved cases after imports

    connect_evaluation_trigger()
