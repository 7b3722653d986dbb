"""Host project used to run and test agentmemory; not part of the installed package."""
from .celery import app as celery_app

__all__ = ("celery_app",)
