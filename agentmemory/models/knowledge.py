"""Knowledge base models: knowledge bases, documents, their versions, chunks (and their sentences), and import jobs."""
from __future__ import annotations

from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from pgvector.django import HnswIndex

from ..conf import app_settings
from .fields import embedding_field


def _default_chunk_size() -> int:
    return app_settings.CHUNK_SIZE


def _default_chunk_overlap() -> int:
    return app_settings.CHUNK_OVERLAP


# --- QuerySets ---------------------------------------------------------------------------------


class KnowledgeBaseQuerySet(models.QuerySet):
    def by_slug(self, slug: str) -> KnowledgeBaseQuerySet:
        return self.filter(slug=slug)


class DocumentQuerySet(models.QuerySet):
    def active(self) -> DocumentQuerySet:
        """Documents not deleted (they may still have no active version, e.g. first import failed)."""
        return self.filter(status=Document.Status.ACTIVE)

    def in_knowledge_base(self, knowledge_base) -> DocumentQuerySet:
        return self.filter(knowledge_base=knowledge_base)

    def with_versions(self) -> DocumentQuerySet:
        return self.select_related("active_version", "knowledge_base").prefetch_related("versions")


class DocumentVersionQuerySet(models.QuerySet):
    def active(self) -> DocumentVersionQuerySet:
        return self.filter(status=DocumentVersion.Status.ACTIVE)

    def for_document(self, document) -> DocumentVersionQuerySet:
        return self.filter(document=document)


class ChunkQuerySet(models.QuerySet):
    def active(self) -> ChunkQuerySet:
        """Chunks of active versions: the only ones searches should see."""
        return self.filter(status=Chunk.Status.ACTIVE)

    def in_knowledge_base(self, knowledge_base) -> ChunkQuerySet:
        kb_id = getattr(knowledge_base, "pk", knowledge_base)
        return self.filter(knowledge_base_id=kb_id)

    def for_version(self, version) -> ChunkQuerySet:
        return self.filter(version=version).order_by("position")

    def embedded(self) -> ChunkQuerySet:
        return self.filter(embedding__isnull=False)

    def not_embedded_with(self, model_name: str) -> ChunkQuerySet:
        """Chunks whose vector is missing or was made by another model (they need re-embedding)."""
        return self.filter(models.Q(embedding__isnull=True) | ~models.Q(embedding_model=model_name))

    def to_embed(self, model_name: str):
        """(pk, heading_path, text) of the chunks needing a vector of ``model_name``, in id order."""
        return self.not_embedded_with(model_name).order_by("pk").values_list("pk", "heading_path", "text")

    def without_vectors(self) -> ChunkQuerySet:
        """Defer the vector and tsvector columns (previews and lists never need them)."""
        return self.defer("embedding", "search_vector")


class ImportJobQuerySet(models.QuerySet):
    def unfinished(self) -> ImportJobQuerySet:
        return self.filter(status__in=[ImportJob.Status.QUEUED, ImportJob.Status.RUNNING])

    def waiting(self, created_before) -> ImportJobQuerySet:
        """Queued jobs older than ``created_before``: never sent (broker down) or waiting for a backend."""
        return self.filter(status=ImportJob.Status.QUEUED, created_at__lt=created_before)


# --- Models ------------------------------------------------------------------------------------


class DuplicatePolicy(models.TextChoices):
    KEEP = "keep", _("keep both")
    LINK = "link", _("link to the first copy")
    SKIP = "skip", _("skip the later copy")


class KnowledgeBase(models.Model):
    slug = models.SlugField(_("slug"), max_length=100, unique=True, help_text=_("Stable identifier used in URLs."))
    name = models.CharField(_("name"), max_length=200, help_text=_("Human-readable name."))
    description = models.TextField(_("description"), blank=True, default="", help_text=_("What this knowledge base holds."))
    chunk_size = models.PositiveIntegerField(
        _("chunk size"), default=_default_chunk_size,
        help_text=_("Target chunk length in characters (documents are re-chunked on their next import)."),
    )
    chunk_overlap = models.PositiveIntegerField(
        _("chunk overlap"), default=_default_chunk_overlap,
        help_text=_("Characters of the previous chunk repeated at the start of the next, for context."),
    )
    user_dictionary = models.JSONField(
        _("user dictionary"), default=list, blank=True,
        help_text=_("Domain terms (list of strings) added to jieba's dictionary when segmenting this knowledge base."),
    )
    embedding_model = models.CharField(
        _("embedding model"), max_length=200, blank=True, default="",
        help_text=_("Model of the vectors stored in this knowledge base; set on first import, changed by re-embed."),
    )
    floor_cosine = models.FloatField(
        _("relevance floor (cosine)"), null=True, blank=True,
        help_text=_("A hit reaches the results only with a dense cosine at least this high, or a normalised BM25 "
                  "or margin over its floor. Empty (all three): AGENTMEMORY['KNOWLEDGE_FLOOR']. Set by "
                  "agentmemory_calibrate_floor."),
    )
    floor_bm25 = models.FloatField(
        _("relevance floor (normalised BM25)"), null=True, blank=True,
        help_text=_("Floor on BM25 divided by the query's own maximum possible score (0-1). Empty: the default."),
    )
    floor_margin = models.FloatField(
        _("relevance floor (cosine margin)"), null=True, blank=True,
        help_text=_("Floor on the hit's cosine minus the median cosine of the query's vector candidates."),
    )
    floor_bm25_min_cosine = models.FloatField(
        _("relevance floor (cosine needed by a BM25 pass)"), null=True, blank=True,
        help_text=_("A hit passing on BM25 also needs this cosine: the query's words, but not its meaning, "
                  "are not enough (\"你是机器人吗\" and an article on robots)."),
    )
    floor_calibration = models.JSONField(
        _("floor calibration"), default=dict, blank=True,
        help_text=_("What the last calibration measured: cases, off-topic questions, recall kept, rejection."),
    )
    publish_gate = models.BooleanField(
        _("publish gate"), default=False, db_default=False,
        help_text=_("Verify each new document version before it goes live: the base's accepted evaluation cases "
                  "and the off-topic checks run against the base as it would be; a version that lowers recall "
                  "(by more than the margin) is held for review instead of published."),
    )
    publish_gate_margin = models.FloatField(
        _("publish gate margin"), null=True, blank=True,
        help_text=_("Recall@5 drop (0-1, absolute) the gate tolerates. Empty: AGENTMEMORY['PUBLISH_GATE_MARGIN']."),
    )
    duplicate_policy = models.CharField(
        _("duplicate policy"), max_length=8, choices=DuplicatePolicy.choices, default=DuplicatePolicy.KEEP,
        db_default=DuplicatePolicy.KEEP,
        help_text=_("A chunk that (nearly) duplicates an active chunk of another document: keep both (search "
                  "shows the better-ranked copy), link (the first copy is served, the later cited as its "
                  "duplicate) or skip (the later copy is never served)."),
    )
    propose_checks = models.BooleanField(
        _("propose checks"), default=False, db_default=False,
        help_text=_("Each import proposes evaluation cases from its new content (headings and key sentences as "
                  "questions) for an operator to accept."),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    objects = KnowledgeBaseQuerySet.as_manager()

    class Meta:
        verbose_name = _("knowledge base")
        verbose_name_plural = _("knowledge bases")
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.name or self.slug


class Document(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", _("active")
        DELETED = "deleted", _("deleted")

    class Format(models.TextChoices):
        MARKDOWN = "markdown", _("Markdown")
        TEXT = "text", _("plain text")
        HTML = "html", _("HTML")
        PDF = "pdf", _("PDF")
        DOCX = "docx", _("DOCX")

    knowledge_base = models.ForeignKey(
        KnowledgeBase, on_delete=models.CASCADE, related_name="documents", verbose_name=_("knowledge base"),
        help_text=_("Knowledge base this document belongs to."),
    )
    external_id = models.CharField(
        _("external id"), max_length=255,
        help_text=_("Caller's id of the document, unique in the knowledge base; re-posting it makes a new version."),
    )
    title = models.CharField(_("title"), max_length=500, help_text=_("Title shown in citations."))
    format = models.CharField(_("format"), max_length=16, choices=Format.choices, help_text=_("Source format."))
    metadata = models.JSONField(_("metadata"), default=dict, blank=True, help_text=_("Free-form metadata (JSON object)."))
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.ACTIVE,
        help_text=_("Deleted documents keep their rows (deprecated) unless purged."),
    )
    active_version = models.ForeignKey(
        "DocumentVersion", on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        verbose_name=_("active version"), help_text=_("The one version whose chunks are searched."),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    objects = DocumentQuerySet.as_manager()

    class Meta:
        verbose_name = _("document")
        verbose_name_plural = _("documents")
        ordering = ["knowledge_base_id", "external_id"]
        constraints = [
            models.UniqueConstraint(fields=["knowledge_base", "external_id"], name="am_document_kb_external_id_uniq"),
        ]

    def __str__(self) -> str:
        return self.title or self.external_id


class DocumentVersion(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        HELD = "held", _("held for review")
        ACTIVE = "active", _("active")
        DEPRECATED = "deprecated", _("deprecated")
        FAILED = "failed", _("failed")
        DISCARDED = "discarded", _("discarded")

    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="versions", verbose_name=_("document"),
        help_text=_("Document this is a version of."),
    )
    number = models.PositiveIntegerField(_("number"), help_text=_("1, 2, 3... per document."))
    content_hash = models.CharField(_("content hash"), max_length=64, db_index=True,
                                    help_text=_("SHA-256 of the extracted source text."))
    source_text = models.TextField(_("source text"), help_text=_("Text extracted from the upload; chunk offsets point into it."))
    structure = models.JSONField(
        _("structure"), default=dict, blank=True,
        help_text=_("Headings and unbreakable blocks found by the parser (offsets into the source text)."),
    )
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.PENDING,
        help_text=_("pending while embedding; held when the publish gate stopped it (review queue); active when "
                  "published; deprecated when replaced; failed with a reason; discarded by a reviewer."),
    )
    error = models.TextField(_("error"), blank=True, default="", help_text=_("Why the import of this version failed."))
    gate_report = models.JSONField(
        _("gate report"), default=dict, blank=True,
        help_text=_("What the publish gate measured: recall@5 before and after, the cases the version breaks "
                  "(expected chunk, new rank), off-topic questions it answers, the decision."),
    )
    duplicates = models.JSONField(
        _("duplicates"), default=list, blank=True,
        help_text=_("Chunks of this version that (nearly) duplicate active chunks of other documents."),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    published_at = models.DateTimeField(_("published at"), null=True, blank=True,
                                        help_text=_("When this version last became active."))

    objects = DocumentVersionQuerySet.as_manager()

    class Meta:
        verbose_name = _("document version")
        verbose_name_plural = _("document versions")
        ordering = ["document_id", "-number"]
        permissions = [("publish_version", "Can publish or discard a held document version")]
        constraints = [
            models.UniqueConstraint(fields=["document", "number"], name="am_docversion_document_number_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.document} v{self.number}"


class Chunk(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        ACTIVE = "active", _("active")
        DEPRECATED = "deprecated", _("deprecated")

    # No index of its own on knowledge_base, version or content_hash: the composite indexes below lead
    # with them. Every chunk row is written three times by an import (insert, vectors, publish); each
    # index less is less work taken from the embedder (migration 0014).
    knowledge_base = models.ForeignKey(
        KnowledgeBase, on_delete=models.CASCADE, related_name="chunks", verbose_name=_("knowledge base"),
        db_index=False, help_text=_("Denormalised from the document, for filtering searches."),
    )
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks",
                                 verbose_name=_("document"), help_text=_("Document of the chunk."))
    version = models.ForeignKey(DocumentVersion, on_delete=models.CASCADE, related_name="chunks", db_index=False,
                                verbose_name=_("version"), help_text=_("Document version the chunk was cut from."))
    position = models.PositiveIntegerField(_("position"), help_text=_("Order of the chunk in its version, from 0."))
    heading_path = models.TextField(_("heading path"), blank=True, default="",
                                    help_text=_('Headings above the chunk, e.g. "产品手册 > 参数说明".'))
    char_start = models.PositiveIntegerField(_("start offset"), help_text=_("Offset of the chunk's first character in the version's source text."))
    char_end = models.PositiveIntegerField(_("end offset"), help_text=_("Offset after the chunk's last character."))
    text = models.TextField(_("text"), help_text=_("Displayed text (source_text[char_start:char_end])."))
    content_hash = models.CharField(_("content hash"), max_length=64,
                                    help_text=_("SHA-256 of heading path and text; equal hashes reuse the embedding."))
    token_count = models.PositiveIntegerField(_("token count"), default=0, help_text=_("Approximate LLM tokens of the text."))
    language = models.CharField(_("language"), max_length=8, blank=True, default="", db_default="",
                                help_text=_('"zh" or "en": the language the text is written in (cross-lingual search).'))
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.PENDING,
                              help_text=_("Only active chunks are searched."))
    embedding = embedding_field(verbose_name=_("embedding"), help_text=_("Passage vector of heading path + text."))
    embedding_model = models.CharField(_("embedding model"), max_length=200, blank=True, default="",
                                       help_text=_("Model that produced the embedding."))
    search_vector = SearchVectorField(_("search vector"), null=True, blank=True, editable=False,
                                      help_text=_("Keyword index of heading path + text (jieba/English tokens)."))
    term_count = models.PositiveIntegerField(_("term count"), default=0,
                                             help_text=_("Number of keyword tokens (BM25 document length)."))
    duplicate_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_index=False,
        verbose_name=_("duplicate of"),
        help_text=_("The active chunk of another document this one (nearly) repeats, found at import; the base's "
                  "duplicate policy says which of the two search serves."),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)

    objects = ChunkQuerySet.as_manager()

    class Meta:
        verbose_name = _("chunk")
        verbose_name_plural = _("chunks")
        ordering = ["version_id", "position"]
        indexes = [
            HnswIndex(name="am_chunk_embedding_hnsw", fields=["embedding"], m=16, ef_construction=64,
                      opclasses=["vector_cosine_ops"]),
            models.Index(name="am_chunk_kb_status_idx", fields=["knowledge_base", "status"]),
            # reusable vectors: the chunks of a base with these hashes (embed.reusable_vectors)
            models.Index(name="am_chunk_kb_hash_idx", fields=["knowledge_base", "content_hash"]),
            # the copies of a chunk (search serving the first copy of a linked duplicate); few rows
            models.Index(name="am_chunk_duplicate_of_idx", fields=["duplicate_of"],
                         condition=models.Q(duplicate_of__isnull=False)),
        ]
        constraints = [
            models.UniqueConstraint(fields=["version", "position"], name="am_chunk_version_position_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id} v{self.version_id} #{self.position}"

    @property
    def embedding_text(self) -> str:
        """What is embedded: the heading path as context, then the text."""
        return f"{self.heading_path}\n{self.text}" if self.heading_path else self.text


class ChunkSentence(models.Model):
    """One sentence of a chunk, with its own vector (knowledge/sentences.py); a chunk of one sentence has one row
    holding the chunk's vector.

    Search compares a question with a chunk's sentences as well as with the whole chunk: a question asks about
    one sentence, whose vector is closer to it than the paragraph's (across languages most of all).
    """

    # The database deletes a chunk's sentences with it (ON DELETE CASCADE, migration 0023), whoever deletes the
    # chunk: an SQL delete as well as the ORM's, which need not read them first.
    chunk = models.ForeignKey(Chunk, on_delete=models.DO_NOTHING, db_constraint=False, related_name="sentences",
                              verbose_name=_("chunk"), db_index=False,
                              help_text=_("The chunk the sentence is cut from."))
    position = models.PositiveSmallIntegerField(_("position"), help_text=_("Order of the sentence in its chunk."))
    embedding = embedding_field(verbose_name=_("embedding"), help_text=_("Passage vector of heading path + sentence."))
    embedding_model = models.CharField(_("embedding model"), max_length=200,
                                       help_text=_("Model that produced the embedding."))

    class Meta:
        verbose_name = _("chunk sentence")
        verbose_name_plural = _("chunk sentences")
        ordering = ["chunk_id", "position"]
        indexes = [
            HnswIndex(name="am_chunksent_embedding_hnsw", fields=["embedding"], m=16, ef_construction=64,
                      opclasses=["vector_cosine_ops"]),
        ]
        constraints = [
            models.UniqueConstraint(fields=["chunk", "position"], name="am_chunksent_chunk_position_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.chunk_id} s{self.position}"


class ImportJob(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        SUCCEEDED = "succeeded", _("succeeded")
        FAILED = "failed", _("failed")

    class Kind(models.TextChoices):
        INGEST = "ingest", _("ingest document")
        REEMBED = "reembed", _("re-embed knowledge base")

    knowledge_base = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="import_jobs",
                                       verbose_name=_("knowledge base"), help_text=_("Target knowledge base."))
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices, default=Kind.INGEST,
                            help_text=_("What the job does."))
    external_id = models.CharField(_("external id"), max_length=255, blank=True, default="",
                                   help_text=_("Document external id (ingest jobs)."))
    title = models.CharField(_("title"), max_length=500, blank=True, default="", help_text=_("Document title (ingest jobs)."))
    format = models.CharField(_("format"), max_length=16, blank=True, default="", help_text=_("Source format (ingest jobs)."))
    source_text = models.TextField(_("source text"), blank=True, default="",
                                   help_text=_("Extracted text to import, kept until the job succeeds so a retry "
                                             "needs no re-upload."))
    structure = models.JSONField(_("structure"), default=dict, blank=True,
                                 help_text=_("Headings and unbreakable blocks found by the parser."))
    metadata = models.JSONField(_("metadata"), default=dict, blank=True, help_text=_("Document metadata to set."))
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.QUEUED,
                              help_text=_("queued, running, succeeded or failed."))
    progress = models.PositiveIntegerField(_("progress"), default=0, help_text=_("Items done (chunks embedded)."))
    total = models.PositiveIntegerField(_("total"), default=0, help_text=_("Items to do."))
    result = models.JSONField(_("result"), default=dict, blank=True, help_text=_("Outcome (document, version, counts)."))
    error = models.TextField(_("error"), blank=True, default="", help_text=_("Why the job failed."))
    requested_by = models.CharField(_("requested by"), max_length=200, blank=True, default="",
                                    help_text=_("Actor who asked for the job (api_key:NAME, admin:USER, command:...)."))
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True, help_text=_("When a worker picked it up."))
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True, help_text=_("When it finished."))

    objects = ImportJobQuerySet.as_manager()

    class Meta:
        verbose_name = _("import job")
        verbose_name_plural = _("import jobs")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"


class HeldVersion(DocumentVersion):
    """The review queue: document versions the publish gate held (admin: publish or discard)."""

    class Meta:
        proxy = True
        verbose_name = _("held version")
        verbose_name_plural = _("review queue (held versions)")
