"""The context ledger: what each assembled context carried, for an operator to sample and answer "what did the
agent see when it answered U yesterday" (context/ledger.py writes it; forgetting a user deletes their rows)."""
from __future__ import annotations

import datetime as dt

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ContextRecordQuerySet(models.QuerySet):
    def for_user(self, user_id: str) -> ContextRecordQuerySet:
        return self.filter(user_id=user_id)

    def older_than(self, when) -> ContextRecordQuerySet:
        return self.filter(created_at__lt=when)

    def daily_tokens(self):
        """Contexts and tokens per user and UTC day (the admin's usage page and REST ``contexts/usage/``)."""
        from django.db.models import Count, Sum
        from django.db.models.functions import TruncDate

        return (self.annotate(day=TruncDate("created_at", tzinfo=dt.UTC)).values("user_id", "day")
                .annotate(contexts=Count("id"), tokens=Sum("total_tokens")).order_by("-day", "user_id"))


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
    total_tokens = models.PositiveIntegerField(_("total tokens"), default=0,
                                               help_text=_("The prompt's tokens (token counts' total), summed per day."))
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


class ContextFeedback(models.Model):
    """A rating of one recorded context, by the agent or the user's page, and what it changed
    (context/feedback.py): memories marked down, a correction written, evaluation cases proposed."""

    context = models.ForeignKey(ContextRecord, on_delete=models.CASCADE, related_name="feedback",
                                verbose_name=_("context"))
    user_id = models.CharField(_("user id"), max_length=255, db_index=True,
                               help_text=_("Copied from the context so forgetting a user reaches every row."))
    rating = models.SmallIntegerField(_("rating"), choices=[(1, _("helpful")), (-1, _("not helpful"))])
    items = models.JSONField(_("items"), default=list, blank=True,
                             help_text=_('The markers the rating is about, e.g. ["M2", "K1"] (empty: the whole context).'))
    comment = models.TextField(_("comment"), blank=True, default="", help_text=_("Free text (PII redacted)."))
    correction = models.TextField(_("correction"), blank=True, default="",
                                  help_text=_("What is true instead, in the user's words (PII redacted)."))
    actor = models.CharField(_("actor"), max_length=255, blank=True, default="",
                             help_text=_("Who gave it: an API key's name, a staff user or the user's page."))
    effects = models.JSONField(_("effects"), default=list, blank=True,
                               help_text=_("What the feedback changed, one entry per item."))
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("context feedback")
        verbose_name_plural = _("context feedback")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.rating:+d} on context #{self.context_id}"


class LLMUsage(models.Model):
    """Tokens one LLM-backed job spent (extraction run, session summary, profile distillation, answer),
    as the chat model reported them (``usage``); written only when an LLM was called."""

    class Purpose(models.TextChoices):
        EXTRACTION = "extraction", _("extraction")
        SUMMARY = "summary", _("session summary")
        DISTILL = "distill", _("profile distillation")
        ANSWER = "answer", _("answer")

    user_id = models.CharField(_("user id"), max_length=255, db_index=True)
    purpose = models.CharField(_("purpose"), max_length=16, choices=Purpose.choices)
    job = models.CharField(_("job"), max_length=255, blank=True, default="",
                           help_text=_('The job it ran for, e.g. "extraction_run:12" or "session:<id>".'))
    model = models.CharField(_("model"), max_length=200, blank=True, default="")
    calls = models.PositiveIntegerField(_("calls"), default=0)
    prompt_tokens = models.PositiveIntegerField(_("prompt tokens"), default=0)
    completion_tokens = models.PositiveIntegerField(_("completion tokens"), default=0)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("LLM usage")
        verbose_name_plural = _("LLM usage")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(name="am_llm_usage_user_time_idx", fields=["user_id", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.purpose} {self.job}: {self.prompt_tokens}+{self.completion_tokens} tokens"

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens
