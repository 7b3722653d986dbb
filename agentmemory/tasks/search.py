"""Retrieval tasks: evaluate a knowledge base's saved cases (after imports, or on demand)."""
from __future__ import annotations

from ..conf import app_settings
from .dispatch import enqueue_on_commit, send
from .retry import EVALUATION, agentmemory_task


@agentmemory_task("agentmemory.evaluate_knowledge_base", retry=EVALUATION, audited=False)
def evaluate_knowledge_base(knowledge_base_id: int, trigger: str = "import") -> dict:
    """Run the saved evaluation cases of one knowledge base; a vanished base is a no-op."""
    from ..knowledge.evaluate import evaluate_knowledge_base as evaluate
    from ..models import KnowledgeBase

    kb = KnowledgeBase.objects.filter(pk=knowledge_base_id).first()
    if kb is None:
        return {"skipped": "knowledge base does not exist"}
    run = evaluate(kb, trigger=trigger)
    return {"run_id": run.pk, "hybrid_recall_at_5": run.hybrid_recall_at_5, "recall_dropped": run.recall_dropped}


def submit_evaluation(knowledge_base, trigger: str):
    """Run a base's saved cases now when tasks run in-process (the run), else enqueue them (None)."""
    from ..knowledge.evaluate import evaluate_knowledge_base as evaluate
    from .knowledge import runs_eagerly

    if not runs_eagerly():
        enqueue_on_commit(evaluate_knowledge_base, knowledge_base.pk, trigger)
        return None
    return evaluate(knowledge_base, trigger=trigger)


def _on_chunks_published(sender, *, knowledge_base_id: int, **kwargs) -> None:
    """After a publish commits, enqueue one evaluation of the base (coalesced while one is pending)."""
    from ..knowledge.evaluate import request_evaluation

    if request_evaluation(knowledge_base_id):
        send(evaluate_knowledge_base, knowledge_base_id, "import", countdown=app_settings.EVAL_AFTER_IMPORT_DELAY)


def connect_evaluation_trigger() -> None:
    """Connect the after-publish evaluation (called from receivers.connect_receivers)."""
    from ..knowledge.keywords import chunks_published

    chunks_published.connect(_on_chunks_published, dispatch_uid="agentmemory.evaluate_after_publish")
