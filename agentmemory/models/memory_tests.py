"""An operator's memory test cases: a conversation, a question asked later, the answer the memory must give."""
from __future__ import annotations

from django.db import models
from django.utils import timezone


class MemoryTestCase(models.Model):
    """One phrasing to check: its sessions are replayed for a throwaway user, then ``question`` is asked of
    the context; the case passes when one of ``expected`` is in the profile or long-term memory it gives,
    and none of ``stale``."""

    class Outcome(models.TextChoices):
        ANSWERED = "answered", "answered"
        NOT_STORED = "not_stored", "not stored"
        NOT_RECALLED = "not_recalled", "stored but not recalled"
        STALE_SHOWN = "stale_shown", "stale value shown"

    name = models.CharField("name", max_length=200, unique=True, help_text="What the case checks.")
    sessions = models.JSONField(
        "sessions", help_text='The user\'s messages, one list per session: [["我在阿里巴巴工作。"], ["我跳槽到腾讯了。"]].')
    question = models.CharField("question", max_length=2000, help_text="Asked of the context after the sessions.")
    expected = models.JSONField("expected", help_text='Accepted answers, any one suffices: ["腾讯"].')
    stale = models.JSONField("stale", default=list, blank=True, help_text='Values that must not be shown: ["阿里"].')
    created_at = models.DateTimeField("created at", default=timezone.now, editable=False)
    last_run_at = models.DateTimeField("last run at", null=True, blank=True, editable=False)
    last_outcome = models.CharField("last outcome", max_length=20, choices=Outcome.choices, blank=True, default="",
                                    editable=False)
    last_result = models.JSONField("last result", default=dict, blank=True, editable=False,
                                   help_text="Why: what was stored, what the context showed.")

    class Meta:
        verbose_name = "memory test case"
        verbose_name_plural = "memory test cases"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
