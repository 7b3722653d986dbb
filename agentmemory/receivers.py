"""Signal wiring, called once from AppConfig.ready()."""
from __future__ import annotations


def connect_receivers() -> None:
    """Connect agentmemory's signal receivers (areas add theirs here)."""
    from django.core.signals import setting_changed

    from .backends import reset_backends

    def _reset(*, setting: str, **kwargs) -> None:
        if setting == "AGENTMEMORY":
            reset_backends()

    setting_changed.connect(_reset, dispatch_uid="agentmemory.reset_backends", weak=False)

    from .signals import memory_embedding_pending

    def _embed_later(*, user_id: str, **kwargs) -> None:
        from .tasks.dispatch import send
        from .tasks.memory import embed_pending_memories

        send(embed_pending_memories, user_id)

    memory_embedding_pending.connect(_embed_later, dispatch_uid="agentmemory.embed_pending_memories", weak=False)

    from django.contrib.auth import get_user_model
    from django.db.models.signals import post_delete

    def _forget_deleted_account(*, instance, **kwargs) -> None:
        from .audit import audit_context
        from .conf import app_settings
        from .memory.forget import forget_account

        if app_settings.FORGET_ON_USER_DELETE:
            with audit_context("system:account_deleted", "the site's user account was deleted"):
                forget_account(instance)

    post_delete.connect(_forget_deleted_account, sender=get_user_model(), weak=False,
                        dispatch_uid="agentmemory.forget_deleted_account")

    from .tasks.search import connect_evaluation_trigger  # retrieval: evaluate saved cases after imports

    connect_evaluation_trigger()
