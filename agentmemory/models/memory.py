"""Long-term memory of one user: typed items with source, confidence, status, history; deletion receipts."""
from __future__ import annotations

import datetime as dt
from functools import cache
from typing import Any

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import connection, models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from pgvector.django import HnswIndex

from ..db import read_connection
from .fields import embedding_field


class ScopeRequired(TypeError):
    """A memory read without a user scope; use MemoryItem.objects.for_user(user_id)."""


def _require_scope(user_id: object) -> None:
    if not isinstance(user_id, str) or not user_id:
        raise ScopeRequired("A memory read needs a non-empty user_id.")


class MemoryItemQuerySet(models.QuerySet):
    """Chainable, read-only lookups over memories; every one starts from ``for_user``."""

    def for_user(self, user_id: str) -> MemoryItemQuerySet:
        _require_scope(user_id)
        return self.filter(user_id=user_id)

    def active(self) -> MemoryItemQuerySet:
        return self.filter(status=MemoryItem.Status.ACTIVE)

    def current(self) -> MemoryItemQuerySet:
        """Active or cold: what the user's memory holds now (not superseded, not deleted)."""
        return self.filter(status__in=[MemoryItem.Status.ACTIVE, MemoryItem.Status.COLD])

    def visible_to_agent(self, agent_id: str | None) -> MemoryItemQuerySet:
        """Items shared by all agents (empty agent_id) plus the agent's own; None means every agent."""
        if agent_id is None:
            return self
        return self.filter(agent_id__in=["", agent_id])

    def visible_to_agents(self, agent_ids: list[str] | None) -> MemoryItemQuerySet:
        if not agent_ids:
            return self
        return self.filter(agent_id__in=["", *agent_ids])

    def with_key(self, key: str, tags_key: str = "") -> MemoryItemQuerySet:
        return self.filter(key=key, tags_key=tags_key)

    def valid_at(self, when: dt.datetime) -> MemoryItemQuerySet:
        """Items whose event time covers ``when`` (time travel: what was true then)."""
        return self.filter(
            Q(valid_from__isnull=True, created_at__lte=when) | Q(valid_from__lte=when),
            Q(valid_to__isnull=True) | Q(valid_to__gt=when),
        ).exclude(status=MemoryItem.Status.DELETED)

    def chain_ids(self, memory_id: int) -> list[int]:
        """Ids of every version in the supersession chain of ``memory_id`` (oldest first)."""
        rows = dict(self.values_list("id", "supersedes_id"))
        if memory_id not in rows:
            return []
        newer = {old: new for new, old in rows.items() if old is not None}
        head = memory_id
        while head in newer:
            head = newer[head]
        chain = [head]
        while rows.get(chain[-1]) is not None and rows[chain[-1]] in rows:
            chain.append(rows[chain[-1]])
        return list(reversed(chain))


class MemoryItemManager(models.Manager.from_queryset(MemoryItemQuerySet)):
    """The default manager: reads must start with ``for_user(user_id)``; there is no unscoped path.

    ``get_queryset()`` stays available to Django internals (admin, deletion) and to the two cross-user
    jobs that are scoped by purpose (``due_for_decay``, forgetting a user).
    """

    def _unscoped(self, *args, **kwargs):
        raise ScopeRequired("Memory reads need a user scope: MemoryItem.objects.for_user(user_id)...")

    all = filter = exclude = get = first = last = count = exists = iterator = _unscoped
    order_by = values = values_list = in_bulk = aggregate = annotate = earliest = latest = raw = _unscoped

    def by_ids_for_user(self, user_id: str, ids: list[int]) -> list[MemoryItem]:
        """One user's items with these ids, without their vector and tsvector (loaded if touched).

        Recall reads its top items this way on every call: one prepared SQL text, where the ORM
        spent about 0.4 ms compiling the same query each time (and a raw queryset about 1 ms mapping
        its columns): the rows become instances here, through the fields' own converters.
        """
        _require_scope(user_id)
        with read_connection.cursor() as cursor:  # the replica inside retrieval_reads (agentmemory/db.py)
            cursor.execute(_by_ids_sql(), [user_id, list(ids)])
            return self.from_rows(cursor.fetchall())

    def from_rows(self, rows: list[tuple], *, epoch_times: bool = False) -> list[MemoryItem]:
        """Instances from rows of ``row_columns(epoch_times)`` read by a statement that holds the user scope
        itself (recall reads a small user's rows whole), through the fields' converters."""
        names, converters = _by_ids_columns()
        times = _time_positions() if epoch_times else ()
        # As the database adapter gives times: aware in UTC, or naive in TIME_ZONE where a host has USE_TZ off.
        local = None if settings.USE_TZ else timezone.get_default_timezone()
        items = []
        for row in rows:
            values = list(row)
            for i in times:
                if values[i] is not None:
                    values[i] = _EPOCH + dt.timedelta(microseconds=values[i])
                    if local is not None:
                        values[i] = timezone.make_naive(values[i], local)
            for i, convert, column in converters:
                values[i] = convert(values[i], column, read_connection)
            items.append(MemoryItem.from_db(read_connection.alias, names, values))
        return items

    def owner_of(self, memory_id: int) -> str | None:
        """The user id a memory belongs to, nothing else: for APIs addressed by memory id alone (the
        mem0-style ``get(id)``), which then check the caller may act for that user and read through
        ``for_user``."""
        return self.get_queryset().filter(pk=memory_id).values_list("user_id", flat=True).first()

    def pending_embedding_counts(self, model_name: str | None = None) -> dict[str, int]:
        """Per user id, the current items stored without a vector, and with ``model_name`` also those whose
        vector is of another model (the re-embedding sweep: ids and counts only, one query)."""
        return dict(self.get_queryset().exclude(status__in=[MemoryItem.Status.SUPERSEDED, MemoryItem.Status.DELETED])
                    .filter(stale_vector(model_name)).order_by().values("user_id")
                    .annotate(n=models.Count("id")).values_list("user_id", "n"))

    def vector_models(self) -> list[str]:
        """The embedding models of current vectors (a handful of values; for checks and reports)."""
        return list(self.get_queryset().exclude(status__in=[MemoryItem.Status.SUPERSEDED, MemoryItem.Status.DELETED])
                    .filter(embedding__isnull=False).order_by().values_list("embedding_model", flat=True).distinct())

    def due_for_decay(self, now: dt.datetime, cutoff: dt.datetime) -> MemoryItemQuerySet:
        """Active items of every user not accessed since ``cutoff`` (the cold-status job)."""
        return self.get_queryset().filter(status=MemoryItem.Status.ACTIVE).filter(
            Q(last_accessed_at__lt=cutoff) | Q(last_accessed_at__isnull=True, created_at__lt=cutoff)
        )


def stale_vector(model_name: str | None = None) -> Q:
    """Items without a vector; with ``model_name``, also those whose vector another model made."""
    return Q(embedding__isnull=True) | (~Q(embedding_model=model_name) if model_name else Q(pk__in=[]))


def _by_ids_fields() -> list:
    return [f for f in MemoryItem._meta.concrete_fields if f.name not in ("embedding", "search_vector")]


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


@cache
def row_columns(epoch_times: bool = False) -> str:
    """The columns ``from_rows`` reads, in its order: all but the vector and the tsvector. With
    ``epoch_times`` the times come as integer microseconds since the epoch: exact, and much cheaper to read
    than timestamps for a reader that converts few of many rows (a hundred rows: 1.6 ms against 2.9)."""
    columns = []
    for f in _by_ids_fields():
        name = connection.ops.quote_name(f.column)
        if epoch_times and isinstance(f, models.DateTimeField):
            name = f"(extract(epoch FROM {name}) * 1000000)::bigint"
        columns.append(name)
    return ", ".join(columns)


@cache
def row_names() -> tuple[str, ...]:
    """The attribute names of ``row_columns``' columns, in its order."""
    return tuple(f.attname for f in _by_ids_fields())


@cache
def _time_positions() -> tuple[int, ...]:
    return tuple(i for i, f in enumerate(_by_ids_fields()) if isinstance(f, models.DateTimeField))


@cache
def _by_ids_sql() -> str:
    return f"SELECT {row_columns()} FROM {MemoryItem._meta.db_table} WHERE user_id = %s AND id = ANY(%s)"


@cache
def _by_ids_columns() -> tuple[list[str], list[tuple[int, Any, Any]]]:
    """The attribute names of _by_ids_sql's columns, and (position, converter, column) for each value a
    field converts from its database form (JSON, say), as a queryset would."""
    fields = _by_ids_fields()
    converters = []
    for i, f in enumerate(fields):
        column = f.get_col(MemoryItem._meta.db_table)
        # The backend's converters first, then the field's: the order a queryset's compiler applies them.
        for convert in [*connection.ops.get_db_converters(column), *column.get_db_converters(connection)]:
            converters.append((i, convert, column))
    return list(row_names()), converters


class MemoryItem(models.Model):
    """One statement the agent knows about one user."""

    class Type(models.TextChoices):
        FACT = "fact", _("fact")
        PREFERENCE = "preference", _("preference")
        DECISION = "decision", _("decision")
        EVENT = "event", _("event")
        FEEDBACK = "feedback", _("feedback")
        #: What the user said about themselves, in their words (one message or the part of it about them).
        EPISODE = "episode", _("episode")

    class Source(models.TextChoices):
        USER_STATED = "user_stated", _("stated by the user")
        MODEL_INFERRED = "model_inferred", _("inferred by the model")
        SYSTEM_LOG = "system_log", _("system log")

    class Status(models.TextChoices):
        ACTIVE = "active", _("active")
        SUPERSEDED = "superseded", _("superseded")
        COLD = "cold", _("cold")
        DELETED = "deleted", _("deleted")
        #: Instructs the assistant (memory/guard.py): held for an operator's review, never in a prompt.
        QUARANTINED = "quarantined", _("quarantined (awaiting review)")

    # Indexed through (user_id, status) and (user_id, key) below; a single-column index would only
    # add write cost.
    user_id = models.CharField(_("user id"), max_length=255,
                               help_text=_("Opaque id of the end user, given by the caller."))
    agent_id = models.CharField(_("agent id"), max_length=255, blank=True, default="",
                                help_text=_("Agent this memory belongs to; empty = shared by all the user's agents."))
    type = models.CharField(_("type"), max_length=20, choices=Type.choices)
    key = models.CharField(_("key"), max_length=100, blank=True, default="",
                           help_text=_("Optional slot, e.g. company_industry, reply_style, budget, tech_stack."))
    content = models.TextField(_("content"), help_text=_("One natural-language statement (PII redacted)."))
    value = models.JSONField(_("value"), null=True, blank=True, help_text=_("Optional structured value of the slot."))
    source = models.CharField(_("source"), max_length=20, choices=Source.choices)
    confidence = models.FloatField(_("confidence"), default=0.8, help_text=_("0..1."))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.ACTIVE)
    valid_from = models.DateTimeField(_("valid from"), null=True, blank=True,
                                      help_text=_("Event time: since when the statement holds."))
    valid_to = models.DateTimeField(_("valid to"), null=True, blank=True,
                                    help_text=_("Event time: until when it held (set when superseded)."))
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now, editable=False)
    superseded_at = models.DateTimeField(_("superseded at"), null=True, blank=True, editable=False,
                                         help_text=_("Record time at which a newer item replaced this one."))
    supersedes = models.ForeignKey(
        "self", verbose_name=_("supersedes"), null=True, blank=True, on_delete=models.SET_NULL,
        related_name="superseded_by", editable=False, help_text=_("The older version this item replaced."),
    )
    session_id = models.CharField(_("session id"), max_length=255, blank=True, default="",
                                  help_text=_("Session the statement came from (a plain id, not a foreign key)."))
    turn_id = models.BigIntegerField(_("turn id"), null=True, blank=True,
                                     help_text=_("Turn the statement came from (a plain id, not a foreign key)."))
    excerpt = models.TextField(_("source excerpt"), blank=True, default="",
                               help_text=_("The words the memory was taken from (PII redacted)."))
    provenance = models.JSONField(
        _("provenance"), default=list, blank=True, editable=False,
        help_text=_("Every write merged into this item: session, turn, excerpt, time, idempotency key."),
    )
    tags = models.JSONField(_("context tags"), default=dict, blank=True,
                            help_text=_('Context such as {"project": "java-billing"}; items with other tags coexist.'))
    tags_key = models.CharField(_("tags key"), max_length=500, blank=True, default="", editable=False,
                                help_text=_("Canonical form of the tags, compared by dedup and conflicts."))
    access_count = models.PositiveIntegerField(_("access count"), default=0, editable=False)
    last_accessed_at = models.DateTimeField(_("last accessed at"), null=True, blank=True, editable=False)
    embedding = embedding_field(verbose_name=_("embedding"), help_text=_("Passage embedding of the content."))
    embedding_model = models.CharField(_("embedding model"), max_length=200, blank=True, default="",
                                       editable=False, help_text=_("Model that produced the embedding."))
    search_vector = SearchVectorField(_("keyword vector"), null=True, blank=True, editable=False,
                                      help_text=_("Keyword tokens with positions (BM25)."))
    term_count = models.PositiveIntegerField(_("term count"), default=0, editable=False,
                                             help_text=_("Number of keyword tokens (BM25 document length)."))
    # Set by a database trigger (migration 0011) from a sequence on every insert and every change of what
    # recall's in-process index holds (memory/snapshot.py): a user's (count, sum, max) of it tells that index
    # whether it is still current. Rows older than the migration keep 0.
    rev = models.BigIntegerField(_("revision"), default=0, editable=False)
    idempotency_key = models.CharField(
        _("idempotency key"), max_length=64, blank=True, default="", editable=False, db_index=True,
        help_text=_("SHA-256 of user, session and normalised content: a retried write is a no-op."),
    )

    objects = MemoryItemManager()

    class Meta:
        verbose_name = _("memory item")
        verbose_name_plural = _("memory items")
        ordering = ["-created_at", "-id"]
        # Forgetting a user deletes everything they have (memories, sessions, profile): its own permission.
        permissions = [("forget_user", "Can forget a user (delete all of their data)"),
                       ("review_memoryitem", "Can approve or reject quarantined memories")]
        indexes = [
            models.Index(fields=["user_id", "status"], name="am_memory_user_status_idx"),
            models.Index(fields=["user_id", "key"], name="am_memory_user_key_idx"),
            # A user's scope read from the index alone (recall's statistics and window lengths), and
            # a dialogue turn's neighbours (the window channels).
            models.Index(fields=["user_id", "session_id", "turn_id"], name="am_memory_scope_idx",
                         include=["status", "source", "agent_id", "term_count", "id", "rev"]),
            HnswIndex(name="am_memory_embedding_hnsw", fields=["embedding"], m=16, ef_construction=64,
                      opclasses=["vector_cosine_ops"]),
            GinIndex(fields=["search_vector"], name="am_memory_search_gin"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(confidence__gte=0) & Q(confidence__lte=1),
                                   name="am_memory_confidence_0_1"),
        ]

    def __str__(self) -> str:
        text = self.content if len(self.content) <= 60 else self.content[:59] + "…"
        return f"[{self.user_id}] {text}"


class MemoryTerm(models.Model):
    """One lexeme of one memory with its frequency: recall's keyword postings.

    Kept by a database trigger from ``MemoryItem.search_vector`` (migration 0010), so every write path
    (the ORM, bulk_create, raw SQL, the admin) keeps it exact; the application never writes it. Recall
    reads a user's matches here by (user, lexeme) instead of expanding each row's tsvector.
    """

    memory = models.ForeignKey(MemoryItem, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+",
                               verbose_name=_("memory"))
    user_id = models.CharField(_("user id"), max_length=255)
    lexeme = models.TextField(_("lexeme"))
    tf = models.PositiveIntegerField(_("term frequency"))

    class Meta:
        verbose_name = _("memory term")
        verbose_name_plural = _("memory terms")
        default_permissions = ()
        indexes = [models.Index(fields=["user_id", "lexeme"], include=["memory", "tf"], name="am_memory_term_idx")]

    def __str__(self) -> str:
        return f"{self.lexeme} x{self.tf} (memory {self.memory_id})"


class MemoryProfile(models.Model):
    """The per-user summary text (rewritten by the lifecycle jobs); key facts come from MemoryItem."""

    user_id = models.CharField(_("user id"), max_length=255, unique=True)
    summary = models.TextField(_("summary"), blank=True, default="", help_text=_("A short portrait of the user."))
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)
    summary_method = models.CharField(_("summary method"), max_length=20, blank=True, default="",
                                      help_text=_("How the summary was written: template, llm or manual."))
    summary_sources = models.JSONField(_("summary sources"), default=list, blank=True,
                                       help_text=_("Ids of the memories the summary was distilled from."))
    distilled_at = models.DateTimeField(_("distilled at"), null=True, blank=True,
                                        help_text=_("When the distillation job last rewrote the summary."))

    class Meta:
        verbose_name = _("memory profile")
        verbose_name_plural = _("memory profiles")

    def __str__(self) -> str:
        return f"profile of {self.user_id}"


class DeletionReceipt(models.Model):
    """Proof that a user's data (or one memory) was deleted: when, why, how many rows; never content.

    It holds no ``user_id`` field on purpose, so forgetting a user never deletes its receipts; the
    subject is kept as a SHA-256 digest that can be checked against a given user id.
    """

    class Kind(models.TextChoices):
        USER = "user", _("user forgotten")
        MEMORY = "memory", _("memory deleted")

    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    subject_digest = models.CharField(_("subject digest"), max_length=64, db_index=True,
                                      help_text=_("SHA-256 of the user id whose data was deleted."))
    reason = models.CharField(_("reason"), max_length=500, blank=True, default="")
    actor = models.CharField(_("actor"), max_length=200, blank=True, default="")
    counts = models.JSONField(_("counts"), default=dict, help_text=_("Deleted rows per kind (model label)."))
    created_at = models.DateTimeField(_("deleted at"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("deletion receipt")
        verbose_name_plural = _("deletion receipts")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"receipt #{self.pk} ({self.kind}, {self.created_at:%Y-%m-%d %H:%M})"
