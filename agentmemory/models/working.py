"""Working memory models: sessions, their turns, and the extraction runs that move turns into memory."""
from __future__ import annotations

import datetime as dt
import uuid

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

# --- QuerySets ---------------------------------------------------------------------------------


class SessionQuerySet(models.QuerySet):
    def for_user(self, user_id: str) -> SessionQuerySet:
        """Sessions of one end user: the only way services and views should load a session."""
        return self.filter(user_id=user_id)

    def for_agent(self, agent_id: str) -> SessionQuerySet:
        return self.filter(agent_id=agent_id)

    def active(self) -> SessionQuerySet:
        return self.filter(status=Session.Status.ACTIVE)

    def ended(self) -> SessionQuerySet:
        return self.filter(status=Session.Status.ENDED)

    def idle_since(self, cutoff: dt.datetime) -> SessionQuerySet:
        """Active sessions with no turn since ``cutoff`` and turns not yet extracted."""
        return self.active().filter(last_activity_at__lt=cutoff,
                                    turn_count__gt=models.F("extracted_up_to"))

    def due_for_purge(self, cutoff: dt.datetime) -> SessionQuerySet:
        """Ended sessions whose raw turns are past the retention period."""
        return self.ended().filter(ended_at__lt=cutoff)


class TurnQuerySet(models.QuerySet):
    def for_user(self, user_id: str) -> TurnQuerySet:
        return self.filter(user_id=user_id)

    def in_session(self, session) -> TurnQuerySet:
        return self.filter(session_id=getattr(session, "pk", session)).order_by("seq")

    def between(self, first_seq: int, last_seq: int) -> TurnQuerySet:
        return self.filter(seq__gte=first_seq, seq__lte=last_seq)

    def high_priority(self) -> TurnQuerySet:
        return self.filter(high_priority=True)


class ExtractionRunQuerySet(models.QuerySet):
    def for_user(self, user_id: str) -> ExtractionRunQuerySet:
        return self.filter(user_id=user_id)

    def for_session(self, session) -> ExtractionRunQuerySet:
        return self.filter(session_id=getattr(session, "pk", session))

    def succeeded(self) -> ExtractionRunQuerySet:
        return self.filter(status=ExtractionRun.Status.SUCCEEDED)


# --- Models ------------------------------------------------------------------------------------


class Session(models.Model):
    """One conversation of an end user with an agent: the working memory's unit."""

    class Status(models.TextChoices):
        ACTIVE = "active", _("active")
        ENDED = "ended", _("ended")
        ARCHIVED = "archived", _("archived")

    id = models.UUIDField(_("id"), primary_key=True, default=uuid.uuid4, editable=False,
                          help_text=_("Opaque session id used in the API."))
    user_id = models.CharField(_("user id"), max_length=255, db_index=True,
                               help_text=_("The end user this conversation belongs to."))
    agent_id = models.CharField(_("agent id"), max_length=255, blank=True, default="",
                                help_text=_("The agent taking part, when there are several."))
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.ACTIVE,
                              db_index=True,
                              help_text=_("active: taking turns; ended: closed, turns kept for the retention "
                                        "period; archived: raw turns purged."))
    metadata = models.JSONField(_("metadata"), default=dict, blank=True,
                                help_text=_("Caller-supplied JSON (channel, locale, ...)."))
    started_at = models.DateTimeField(_("started at"), default=timezone.now, editable=False)
    last_activity_at = models.DateTimeField(_("last activity at"), default=timezone.now, db_index=True,
                                            help_text=_("Time of the last turn (or of creation)."))
    ended_at = models.DateTimeField(_("ended at"), null=True, blank=True,
                                    help_text=_("When the session was ended; starts the retention period."))
    archived_at = models.DateTimeField(_("archived at"), null=True, blank=True,
                                       help_text=_("When the raw turns were purged."))
    turn_count = models.PositiveIntegerField(
        _("turn count"), default=0, editable=False,
        help_text=_("Sequence number of the last turn; the next turn gets turn_count + 1 (under a row lock)."))
    summary = models.TextField(_("summary"), blank=True, default="",
                               help_text=_("Rolling summary of the turns up to 'summary covers'."))
    summary_covers_seq = models.PositiveIntegerField(
        _("summary covers up to"), default=0,
        help_text=_("Sequence number of the last turn folded into the summary (0: none)."))
    summary_fields = models.JSONField(
        _("structured summary"), default=dict, blank=True,
        help_text=_('The summary as fields: {"goal": "...", "confirmed": [...], "open": [...]} '
                    "(working/summary.py); 'summary' is its text."))
    summary_updated_at = models.DateTimeField(_("summary updated at"), null=True, blank=True)
    task_state = models.JSONField(_("task state"), default=dict, blank=True,
                                  help_text=_("Structured state of the task at hand, set by the agent."))
    extracted_up_to = models.PositiveIntegerField(
        _("extracted up to"), default=0, editable=False,
        help_text=_("Sequence number of the last turn a successful extraction covered."))

    objects = SessionQuerySet.as_manager()

    class Meta:
        verbose_name = _("session")
        verbose_name_plural = _("sessions")
        ordering = ["-last_activity_at"]
        indexes = [models.Index(fields=["user_id", "-last_activity_at"], name="am_session_user_idx")]

    def __str__(self) -> str:
        return f"{self.user_id} · {self.started_at:%Y-%m-%d %H:%M} ({self.status})"

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE


class Turn(models.Model):
    """One message of a session, numbered 1, 2, 3... without gaps or repeats."""

    class Role(models.TextChoices):
        USER = "user", _("user")
        ASSISTANT = "assistant", _("assistant")
        SYSTEM = "system", _("system")
        TOOL = "tool", _("tool")

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="turns",
                                verbose_name=_("session"), help_text=_("The conversation this turn belongs to."))
    user_id = models.CharField(_("user id"), max_length=255, db_index=True,
                               help_text=_("Copied from the session so forgetting a user reaches every row."))
    seq = models.PositiveIntegerField(_("sequence number"), help_text=_("1-based position in the session."))
    role = models.CharField(_("role"), max_length=16, choices=Role.choices)
    content = models.TextField(_("content"))
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    token_count = models.PositiveIntegerField(_("token count"), default=0,
                                              help_text=_("Approximate LLM tokens of the content."))
    high_priority = models.BooleanField(
        _("high priority"), default=False,
        help_text=_("Kept verbatim even after it is folded into the summary (remember intent, numbers, names)."))
    metadata = models.JSONField(_("metadata"), default=dict, blank=True, help_text=_("Caller-supplied JSON."))

    objects = TurnQuerySet.as_manager()

    class Meta:
        verbose_name = _("turn")
        verbose_name_plural = _("turns")
        ordering = ["session", "seq"]
        constraints = [models.UniqueConstraint(fields=["session", "seq"], name="am_turn_session_seq_uniq")]

    def __str__(self) -> str:
        # No content: a turn's text may hold PII, and str() ends up in admin pages and logs.
        return f"#{self.seq} {self.role}"


class ExtractionRun(models.Model):
    """One extraction over a session's turns, keyed by (session, trigger kind, last turn covered).

    The key makes a duplicate delivery a no-op; ``items`` (the extractor's output, stored before any
    write) and ``results`` (one entry per written item, saved in the write's own transaction) let a run
    interrupted half-way resume without writing anything twice.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RUNNING = "running", _("running")
        SUCCEEDED = "succeeded", _("succeeded")
        FAILED = "failed", _("failed")

    class Trigger(models.TextChoices):
        END = "end", _("session ended")
        IDLE = "idle", _("session idle")
        REMEMBER = "remember", _("remember intent")
        MANUAL = "manual", _("manual")

    class Kind(models.TextChoices):
        SESSION = "session", _("session turns")
        REMEMBER = "remember", _("one remember turn")

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="extraction_runs",
                                verbose_name=_("session"))
    user_id = models.CharField(_("user id"), max_length=255, db_index=True,
                               help_text=_("Copied from the session so forgetting a user reaches every row."))
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices, default=Kind.SESSION,
                            help_text=_("session: the session's new turns; remember: one explicit remember turn."))
    trigger = models.CharField(_("trigger"), max_length=16, choices=Trigger.choices, default=Trigger.END)
    first_seq = models.PositiveIntegerField(_("first turn"), help_text=_("First sequence number covered."))
    last_seq = models.PositiveIntegerField(_("last turn"), help_text=_("Last sequence number covered (the key)."))
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.PENDING,
                              db_index=True)
    extractor = models.CharField(_("extractor"), max_length=255, blank=True, default="",
                                 help_text=_("Dotted path of the extractor backend used."))
    items = models.JSONField(_("items"), null=True, blank=True,
                             help_text=_("Memory drafts the extractor returned, stored before any write."))
    results = models.JSONField(_("results"), default=list, blank=True,
                               help_text=_("What the write service did with each item, with its reason."))
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    error = models.TextField(_("error"), blank=True, default="", help_text=_("Last failure, when there was one."))
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    objects = ExtractionRunQuerySet.as_manager()

    class Meta:
        verbose_name = _("extraction run")
        verbose_name_plural = _("extraction runs")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["session", "kind", "last_seq"], name="am_extraction_key_uniq"),
            models.CheckConstraint(condition=Q(first_seq__lte=models.F("last_seq")),
                                   name="am_extraction_span_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} extraction of turns {self.first_seq}-{self.last_seq} ({self.status})"

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for row in self.results or []:
            out[row.get("action", "?")] = out.get(row.get("action", "?"), 0) + 1
        return out
