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

    from .signals import memory_embedding_pending

    def _embed_later(*, user_id: str, **kwargs) -> None:
        from .tasks.dispatch import send
        from .tasks.memory import embed_pending_memories

        send(embed_pending_memories, user_id)

    memory_embedding_pending.connect(_embed_later, dispatch_uid="agentmemory.embed_pending_memories")

    from .tasks.search import connect_evaluation_trigger  # retrieval: evaluate saved cases after imports

    connect_evaluation_trigger()
