"""The context ledger: what each assembled context carried, for an operator to sample and answer "what did the
agent see when it answered U yesterday" (context/ledger.py writes it; forgetting a user deletes their rows)."""
from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ContextRecordQuerySet(models.QuerySet):
    def for_user(self, user_id: str) -> ContextRecordQuerySet:
        return self.filter(user_id=user_id)

    def older_than(self, when) -> ContextRecordQuerySet:
        return self.filter(created_at__lt=when)


class ContextRecord(models.Model):
    """One assembled context: its route, the items it carried and those left out, tokens, timings."""

    class Via(models.TextChoices):
        REST = "rest", _("REST context")
        ANSWER = "answer", _("REST answer")
        TOOL = "tool", _("tool call")

    user_id = models.CharField(_("user id"), max_length=255, help_text=_("The end user the context was for."))
    agent_id = models.CharField(_("agent id"), max_length=255, blank=True, default="",
                                help_text=_("The agent that asked (empty: none)."))
    session_id = models.CharField(_("session id"), max_length=64, blank=True, default="",
                                  help_text=_("The session whose working memory it carried."))
    via = models.CharField(_("via"), max_length=16, choices=Via.choices, default=Via.REST,
                           help_text=_("The interface that asked for it."))
    route = models.CharField(_("route"), max_length=32, help_text=_("knowledge, personal, continuation or mixed."))
    language = models.CharField(_("language"), max_length=8, blank=True, default="")
    query = models.TextField(_("query"), help_text=_("The user's message (PII redacted)."))
    items = models.JSONField(
        _("items"), default=list, blank=True,
        help_text=_("What the prompt carried, in order: marker, layer, kind, score, tokens and the reference "
                    "(memory id, chunk id, citation)."))
    dropped = models.JSONField(_("dropped"), default=list, blank=True,
                               help_text=_("Candidates left out, each with its reason."))
    token_counts = models.JSONField(_("token counts"), default=dict, blank=True,
                                    help_text=_("Tokens per section, the total and the budget."))
    timings_ms = models.JSONField(_("timings (ms)"), default=dict, blank=True)
    degraded = models.BooleanField(_("degraded"), default=False,
                                   help_text=_("A layer failed or degraded (the reasons are in the items' trace)."))
    knowledge_empty = models.BooleanField(_("knowledge empty"), default=False,
                                          help_text=_("Knowledge was searched and nothing reached the prompt."))
    prompt = models.TextField(_("prompt"), blank=True, default="",
                              help_text=_("The prompt text (PII redacted), kept only with CONTEXT_LEDGER_PROMPT."))
    answer = models.TextField(_("answer"), blank=True, default="",
                              help_text=_("The chat model's answer (context/answer/), PII redacted."))
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)

    objects = ContextRecordQuerySet.as_manager()

    class Meta:
        verbose_name = _("context record")
        verbose_name_plural = _("context ledger")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(name="am_context_user_time_idx", fields=["user_id", "-created_at"]),
            models.Index(name="am_context_time_idx", fields=["created_at"]),
        ]

    def __str__(self) -> str:
        return f"context #{self.pk} ({self.user_id}, {self.created_at:%Y-%m-%d %H:%M})"
