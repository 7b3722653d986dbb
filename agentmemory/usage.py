"""LLM tokens per job: ``with llm_usage("extraction", user_id=..., job="extraction_run:12"):`` counts the chat
completions the block makes (backends/llm.counting_usage, from each response's ``usage``) and, when there was
at least one, writes an LLMUsage row, also when the block fails (the tokens were spent). Offline backends make
no call and leave no row. Per user and day the admin's usage page and REST ``contexts/usage/`` add them up
beside the contexts' tokens (context/ledger.daily_usage).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .backends.llm import UsageTally, counting_usage
from .models import LLMUsage


@contextmanager
def llm_usage(purpose: str, *, user_id: str, job: str = "") -> Iterator[UsageTally]:
    with counting_usage() as tally:
        try:
            yield tally
        finally:
            if tally.calls:
                LLMUsage.objects.create(user_id=user_id, purpose=purpose, job=job[:255], model=tally.model[:200],
                                        calls=tally.calls, prompt_tokens=tally.prompt_tokens,
                                        completion_tokens=tally.completion_tokens)
