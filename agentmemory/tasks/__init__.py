"""Celery tasks of agentmemory: thin wrappers (ids in, one service call, retry policy).

Each area keeps its tasks in its own module; importing them here registers them with Celery.
"""
from .system import health_check

__all__ = ["health_check"]
