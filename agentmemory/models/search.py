"""Retrieval models: BM25 corpus statistics per knowledge base, evaluation cases and runs."""
from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .knowledge import KnowledgeBase

# --- QuerySets ---------------------------------------------------------------------------------


class KnowledgeTermStatQuerySet(models.QuerySet):
    def for_terms(self, knowledge_base_id: int, terms: list[str]) -> KnowledgeTermStatQuerySet:
        return self.filter(knowledge_base_id=knowledge_base_id, term__in=terms)


class EvaluationCaseQuerySet(models.QuerySet):
    def for_knowledge_base(self, knowledge_base) -> EvaluationCaseQuerySet:
        return self.filter(knowledge_base_id=getattr(knowledge_base, "pk", knowledge_base))

    def accepted(self) -> EvaluationCaseQuerySet:
        """Cases that count (evaluations, the publish gate): all but proposals not yet accepted."""
        return self.filter(accepted=True)

    def proposed(self) -> EvaluationCaseQuerySet:
        return self.filter(accepted=False)


class EvaluationRunQuerySet(models.QuerySet):
    def for_knowledge_base(self, knowledge_base) -> EvaluationRunQuerySet:
        return self.filter(knowledge_base_id=getattr(knowledge_base, "pk", knowledge_base))

    def finished(self) -> EvaluationRunQuerySet:
        return self.filter(status=EvaluationRun.Status.SUCCEEDED)

    def flagged(self) -> EvaluationRunQuerySet:
        return self.filter(recall_dropped=True)


# --- Models ------------------------------------------------------------------------------------


class KnowledgeBaseStats(models.Model):
    """Corpus statistics of a knowledge base's active chunks (BM25 N and average length), plus overrides."""

    knowledge_base = models.OneToOneField(
        "agentmemory.KnowledgeBase", on_delete=models.CASCADE, related_name="retrieval_stats",
        verbose_name=_("knowledge base"), help_text=_("Knowledge base these statistics describe."),
    )
    chunk_count = models.PositiveIntegerField(_("active chunks"), default=0, help_text=_("N in the BM25 IDF."))
    total_terms = models.BigIntegerField(_("total terms"), default=0,
                                         help_text=_("Sum of the active chunks' term counts (for the average length)."))
    chunks_zh = models.PositiveIntegerField(_("Chinese chunks"), default=0, db_default=0,
                                            help_text=_("Active chunks written in Chinese (the vector channel's languages)."))
    chunks_en = models.PositiveIntegerField(_("English chunks"), default=0, db_default=0,
                                            help_text=_("Active chunks written in English."))
    bm25_k1 = models.FloatField(_("BM25 k1"), null=True, blank=True,
                                help_text=_("Override of AGENTMEMORY['BM25_K1'] for this knowledge base (empty = default)."))
    bm25_b = models.FloatField(_("BM25 b"), null=True, blank=True,
                               help_text=_("Override of AGENTMEMORY['BM25_B'] for this knowledge base (empty = default)."))
    evaluation_pending = models.BooleanField(_("evaluation pending"), default=False,
                                             help_text=_("An evaluation was requested by a publish and has not run yet."))
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now,
                                      help_text=_("When the statistics last changed."))

    class Meta:
        verbose_name = _("knowledge base statistics")
        verbose_name_plural = _("knowledge base statistics")

    def __str__(self) -> str:
        return f"{self.knowledge_base_id}: N={self.chunk_count}"

    @property
    def average_length(self) -> float:
        return (self.total_terms / self.chunk_count) if self.chunk_count else 0.0


class KnowledgeTermStat(models.Model):
    """Document frequency of one keyword term among a knowledge base's active chunks."""

    knowledge_base = models.ForeignKey(  # indexed by the unique (knowledge_base, term)
        "agentmemory.KnowledgeBase", on_delete=models.CASCADE, related_name="term_stats", db_index=False,
        verbose_name=_("knowledge base"), help_text=_("Knowledge base of the term."),
    )
    term = models.TextField(_("term"), help_text=_("A keyword token, as stored in chunk search vectors."))
    df = models.IntegerField(_("document frequency"), default=0, help_text=_("Active chunks containing the term."))

    objects = KnowledgeTermStatQuerySet.as_manager()

    class Meta:
        verbose_name = _("term statistic")
        verbose_name_plural = _("term statistics")
        constraints = [
            models.UniqueConstraint(fields=["knowledge_base", "term"], name="am_termstat_kb_term_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.term} (df={self.df})"


class KeywordPosting(models.Model):
    """One (term, chunk) pair of an active chunk: the inverted index the BM25 keyword channel reads.

    The primary key (knowledge base, term, chunk) carries tf and the chunk's length as included
    columns, so a query term's postings are one index-only range scan: no chunk row and no tsvector
    is read while scoring. Rows exist only for active chunks; publish, deprecate and re-index keep
    them current (keywords.py), and the database deletes them with their chunk (ON DELETE CASCADE,
    see migration 0004, which Django's own collector would do row by row).
    """

    pk = models.CompositePrimaryKey("knowledge_base_id", "term", "chunk_id")
    knowledge_base = models.ForeignKey(
        "agentmemory.KnowledgeBase", on_delete=models.DO_NOTHING, db_constraint=False, related_name="+",
        verbose_name=_("knowledge base"), help_text=_("Knowledge base of the chunk."),
    )
    term = models.TextField(_("term"), help_text=_("A keyword token, as stored in the chunk's search vector."))
    chunk = models.ForeignKey(
        "agentmemory.Chunk", on_delete=models.DO_NOTHING, db_constraint=False, related_name="+",
        verbose_name=_("chunk"), help_text=_("The active chunk containing the term."),
    )
    tf = models.PositiveSmallIntegerField(_("term frequency"), help_text=_("Occurrences of the term in the chunk."))
    length = models.PositiveIntegerField(_("chunk length"), help_text=_("The chunk's term count (BM25 |d|)."))

    class Meta:
        verbose_name = _("keyword posting")
        verbose_name_plural = _("keyword postings")

    def __str__(self) -> str:
        return f"{self.term} in chunk {self.chunk_id} (tf={self.tf})"


class EvaluationCase(models.Model):
    """A query with the chunks or documents that should be retrieved for it."""

    class Source(models.TextChoices):
        ADMIN = "admin", _("admin hit test")
        FILE = "file", _("JSONL file")
        API = "api", _("API")
        PROPOSED = "proposed", _("proposed from an import")
        FEEDBACK = "feedback", _("proposed from feedback")

    knowledge_base = models.ForeignKey(
        "agentmemory.KnowledgeBase", on_delete=models.CASCADE, related_name="evaluation_cases",
        verbose_name=_("knowledge base"), help_text=_("Knowledge base the query is searched in."),
    )
    query = models.TextField(_("query"), help_text=_("The question as a user would ask it."))
    expected_chunk_ids = models.JSONField(
        _("expected chunks"), default=list, blank=True,
        help_text=_("Chunk ids that answer the query; a later version's chunk with the same content also counts."),
    )
    expected_document_ids = models.JSONField(
        _("expected documents"), default=list, blank=True,
        help_text=_("Document ids that answer the query (any chunk of them counts)."),
    )
    rejected_chunk_ids = models.JSONField(
        _("rejected chunks"), default=list, blank=True,
        help_text=_("Chunks a user marked as not answering the query (negative feedback on a context)."),
    )
    source = models.CharField(_("source"), max_length=16, choices=Source.choices, default=Source.ADMIN,
                              help_text=_("Where the case came from."))
    note = models.CharField(_("note"), max_length=500, blank=True, default="", help_text=_("Free text."))
    accepted = models.BooleanField(
        _("accepted"), default=True, db_default=True,
        help_text=_("Proposed cases (from an import's content) count only once an operator accepts them."),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)

    objects = EvaluationCaseQuerySet.as_manager()

    class Meta:
        verbose_name = _("evaluation case")
        verbose_name_plural = _("evaluation cases")
        ordering = ["knowledge_base_id", "id"]

    def __str__(self) -> str:
        return self.query[:80]


class EvaluationRun(models.Model):
    """One evaluation of a knowledge base's cases: metrics per mode and a snapshot of the configuration."""

    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        SUCCEEDED = "succeeded", _("succeeded")
        FAILED = "failed", _("failed")

    class Trigger(models.TextChoices):
        COMMAND = "command", _("management command")
        IMPORT = "import", _("after import")
        ADMIN = "admin", _("admin")
        API = "api", _("REST API")

    knowledge_base = models.ForeignKey(
        "agentmemory.KnowledgeBase", on_delete=models.CASCADE, related_name="evaluation_runs",
        verbose_name=_("knowledge base"), help_text=_("Knowledge base evaluated."),
    )
    trigger = models.CharField(_("trigger"), max_length=16, choices=Trigger.choices, default=Trigger.COMMAND,
                               help_text=_("What started the run."))
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.RUNNING,
                              help_text=_("running, succeeded or failed."))
    case_count = models.PositiveIntegerField(_("cases"), default=0, help_text=_("Number of cases evaluated."))
    metrics = models.JSONField(_("metrics"), default=dict, blank=True,
                               help_text=_('Per mode: {"hybrid": {"recall@1": .., "recall@5": .., ...}, ...}.'))
    config = models.JSONField(_("configuration"), default=dict, blank=True,
                              help_text=_("Snapshot of the retrieval settings used (k1, b, RRF k, ef_search, models)."))
    hybrid_recall_at_5 = models.FloatField(_("hybrid recall@5"), null=True, blank=True,
                                           help_text=_("The number watched for regressions."))
    previous_recall_at_5 = models.FloatField(_("previous recall@5"), null=True, blank=True,
                                             help_text=_("Hybrid recall@5 of the previous successful run."))
    recall_dropped = models.BooleanField(_("recall dropped"), default=False,
                                         help_text=_("Hybrid recall@5 fell below the previous run's."))
    error = models.TextField(_("error"), blank=True, default="", help_text=_("Why the run failed."))
    started_at = models.DateTimeField(_("started at"), default=timezone.now, editable=False)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True, help_text=_("When the run finished."))

    objects = EvaluationRunQuerySet.as_manager()

    class Meta:
        verbose_name = _("evaluation run")
        verbose_name_plural = _("evaluation runs")
        ordering = ["-started_at", "-id"]
        indexes = [models.Index(fields=["knowledge_base", "-started_at"], name="am_evalrun_kb_started_idx")]

    def __str__(self) -> str:
        return f"run #{self.pk} of {self.knowledge_base_id} ({self.status})"


class KnowledgeBaseRetrieval(KnowledgeBase):
    """A knowledge base seen from retrieval: the admin's hit testing ("召回测试") and evaluation screen."""

    class Meta:
        proxy = True
        verbose_name = _("knowledge base retrieval (hit testing)")
        verbose_name_plural = _("knowledge base retrieval (hit testing)")
