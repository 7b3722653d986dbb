"""An operator's memory test cases: a conversation, a question asked later, the answer the memory must give."""
from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class MemoryTestCase(models.Model):
    """One phrasing to check: its sessions are replayed for a throwaway user, then ``question`` is asked of
    the context; the case passes when one of ``expected`` is in the profile or long-term memory it gives,
    and none of ``stale``."""

    class Outcome(models.TextChoices):
        ANSWERED = "answered", _("answered")
        NOT_STORED = "not_stored", _("not stored")
        NOT_RECALLED = "not_recalled", _("stored but not recalled")
        STALE_SHOWN = "stale_shown", _("stale value shown")

    name = models.CharField(_("name"), max_length=200, unique=True, help_text=_("What the case checks."))
    sessions = models.JSONField(
        _("sessions"), help_text=_('The user\'s messages, one list per session: [["我在阿里巴巴工作。"], ["我跳槽到腾讯了。"]].'))
    question = models.CharField(_("question"), max_length=2000, help_text=_("Asked of the context after the sessions."))
    expected = models.JSONField(_("expected"), help_text=_('Accepted answers, any one suffices: ["腾讯"].'))
    stale = models.JSONField(_("stale"), default=list, blank=True, help_text=_('Values that must not be shown: ["阿里"].'))
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    last_run_at = models.DateTimeField(_("last run at"), null=True, blank=True, editable=False)
    last_outcome = models.CharField(_("last outcome"), max_length=20, choices=Outcome.choices, blank=True, default="",
                                    editable=False)
    last_result = models.JSONField(_("last result"), default=dict, blank=True, editable=False,
                                   help_text=_("Why: what was stored, what the context showed."))

    class Meta:
        verbose_name = _("memory test case")
        verbose_name_plural = _("memory test cases")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
