"""Which Celery queue each task goes to: one queue per workload, when the operator names them.

Three workloads, so that a backlog of one never delays another:

- ``ingest``: document imports, knowledge-base and memory re-embedding, evaluations (long, CPU-bound);
- ``extraction``: session extraction, rolling summaries, embedding memories stored while the embedder
  was down (per user, latency-sensitive: what a user said should be remembered in seconds);
- ``maintenance``: the beat jobs (sweeps, purges, decay, distillation), forgetting a user, health.

``AGENTMEMORY["TASK_QUEUES"] = {"ingest": "am-ingest", "extraction": "am-extraction", "maintenance":
"am-maintenance"}`` sends each workload to its queue (a workload left out goes to Celery's default queue);
run workers with ``-Q`` accordingly (docs/reliability.md, "Queues"). Empty (the default): every task goes
where the host's Celery sends it (its ``task_default_queue``, or its own ``task_routes``, which then decide),
so installing the app asks nothing of the host's workers.

``AgentMemoryTask.apply_async`` applies it, so ``delay()``, beat and retries all route the same way; an
explicit ``queue=`` wins.
"""
from __future__ import annotations

from celery import Task

from ..conf import app_settings

INGEST, EXTRACTION, MAINTENANCE = "ingest", "extraction", "maintenance"
WORKLOADS = (INGEST, EXTRACTION, MAINTENANCE)

#: Task name -> workload; a task not listed is maintenance.
TASK_WORKLOADS: dict[str, str] = {
    "agentmemory.ingest_document": INGEST,
    "agentmemory.reembed_knowledge_base": INGEST,
    "agentmemory.reembed_memories": INGEST,
    "agentmemory.evaluate_knowledge_base": INGEST,
    "agentmemory.extract_session": EXTRACTION,
    "agentmemory.summarize_session": EXTRACTION,
    "agentmemory.embed_pending_memories": EXTRACTION,
}


def workload_of(task_name: str) -> str:
    return TASK_WORKLOADS.get(task_name, MAINTENANCE)


def queue_for(task_name: str) -> str | None:
    """The queue TASK_QUEUES names for the task's workload, None to leave routing to the host's Celery."""
    return (app_settings.TASK_QUEUES or {}).get(workload_of(task_name)) or None


class AgentMemoryTask(Task):
    """Base of agentmemory's tasks: sent to its workload's queue when one is configured."""

    def apply_async(self, args=None, kwargs=None, task_id=None, producer=None, link=None, link_error=None,
                    shadow=None, **options):
        if not options.get("queue"):
            queue = queue_for(self.name)
            if queue:
                options["queue"] = queue
        return super().apply_async(args, kwargs, task_id=task_id, producer=producer, link=link,
                                   link_error=link_error, shadow=shadow, **options)
