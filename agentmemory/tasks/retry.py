"""How agentmemory's tasks retry: one declaration per kind of work, one mechanism for all of them.

A task names its policy (``@agentmemory_task("agentmemory.x", retry=POLICY)``); the policy says on which
errors it retries, how often, and how long it waits (fixed, or doubling up to a cap, optionally jittered
as Celery's ``retry_jitter`` does). Run eagerly (no broker), a retry happens in the web request; a policy
with ``eager=False`` gives up at once instead and lets the task's ``fallback`` answer (the beat sweep
tries again later).
"""
from __future__ import annotations

import functools
import inspect
import random
from collections.abc import Callable
from dataclasses import dataclass

from celery import shared_task
from django.db import InterfaceError, OperationalError

from ..audit import task_actor
from ..conf import app_settings
from ..exceptions import BackendError, EmbeddingError
from .queues import AgentMemoryTask

DATABASE_DOWN = (OperationalError, InterfaceError)


@dataclass(frozen=True)
class RetryPolicy:
    """On which errors a task retries, how many times, and how long it waits before each retry."""

    on: tuple[type[BaseException], ...]
    max_retries: int | str = 3  # or the name of an AGENTMEMORY setting, read when the task runs
    countdown: float = 5.0  # the first wait, in seconds
    backoff: bool = True  # double the wait at each retry (up to countdown_max)
    countdown_max: float = 600.0
    jitter: bool = False  # a random wait between 0 and the computed one
    eager: bool = True  # retry in-process too (no broker); False: call the task's fallback instead
    requeue_on_worker_lost: bool = True  # a worker killed mid-task: the message goes back to the queue

    def limit(self) -> int:
        if isinstance(self.max_retries, str):
            return int(getattr(app_settings, self.max_retries))
        return self.max_retries

    def wait(self, retries: int) -> float:
        """The countdown before retry number ``retries + 1``."""
        wait = min(self.countdown_max, self.countdown * 2 ** retries) if self.backoff else self.countdown
        return random.randrange(int(wait) + 1) if self.jitter else wait


# Imports and re-embeds resume where they stopped: retried while the embedder or database is down.
KNOWLEDGE_JOB = RetryPolicy(on=(EmbeddingError, *DATABASE_DOWN), countdown=5, countdown_max=300, jitter=True,
                            requeue_on_worker_lost=False)
# Extraction and summaries call a model: bounded by a setting; eagerly they leave the run to the sweep.
EXTRACTION = RetryPolicy(on=(BackendError, *DATABASE_DOWN), max_retries="EXTRACTION_MAX_RETRIES", countdown=5,
                         eager=False)
# Maintenance of memories: the database blinked; try again a little later.
DECAY = RetryPolicy(on=DATABASE_DOWN, countdown=60, backoff=False)
FORGET = RetryPolicy(on=DATABASE_DOWN, max_retries=5, countdown=30, backoff=False)
EMBED_PENDING = RetryPolicy(on=DATABASE_DOWN, countdown=30, backoff=False)
REEMBED_MEMORIES = RetryPolicy(on=DATABASE_DOWN, countdown=1, jitter=True, requeue_on_worker_lost=False)
EVALUATION = RetryPolicy(on=(OSError,), countdown=1, jitter=True, requeue_on_worker_lost=False)


def agentmemory_task(name: str, *, retry: RetryPolicy | None = None,
                     fallback: Callable[..., object] | None = None, audited: bool = True, **options) -> Callable:
    """``shared_task`` registered as ``name``, acknowledged late (unless told), retrying as ``retry`` declares.

    The task's writes are attributed to ``task:<name>`` in the audit trail (unless ``audited`` is False);
    ``fallback(exc, *args, **kwargs)`` answers for a policy that does not retry eagerly.
    """
    options.setdefault("acks_late", True)
    options.setdefault("base", AgentMemoryTask)  # its workload's queue (tasks/queues.py)

    def decorate(func: Callable) -> Callable:
        body = _as_task_actor(name, func) if audited else func
        if retry is None:
            return shared_task(name=name, **options)(body)

        @functools.wraps(func)
        def run(self, *args, **kwargs):
            try:
                return body(*args, **kwargs)
            except retry.on as exc:
                if self.request.is_eager and not retry.eager:
                    if fallback is None:
                        raise
                    return fallback(exc, *args, **kwargs)
                raise self.retry(exc=exc, countdown=retry.wait(self.request.retries),
                                 max_retries=retry.limit()) from exc

        # Celery checks the arguments of a call against the task's signature: func's, after ``self``.
        own = inspect.signature(func)
        run.__signature__ = own.replace(parameters=[
            inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), *own.parameters.values()])
        if isinstance(retry.max_retries, int):
            options.setdefault("max_retries", retry.max_retries)
        return shared_task(name=name, bind=True, reject_on_worker_lost=retry.requeue_on_worker_lost,
                           **options)(run)

    return decorate


def _as_task_actor(name: str, func: Callable) -> Callable:
    @functools.wraps(func)
    def body(*args, **kwargs):
        with task_actor(name):
            return func(*args, **kwargs)

    body.__signature__ = inspect.signature(func)  # Celery checks calls against it, not (*args, **kwargs)
    return body
