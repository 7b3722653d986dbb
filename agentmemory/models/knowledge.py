"""Knowledge base models: knowledge bases, documents, their versions, chunks, and import jobs."""
from __future__ import annotations

from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.utils import timezone
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
    KEEP = "keep", "keep both"
    LINK = "link", "link to the first copy"
    SKIP = "skip", "skip the later copy"


class KnowledgeBase(models.Model):
    slug = models.SlugField("slug", max_length=100, unique=True, help_text="Stable identifier used in URLs.")
    name = models.CharField("name", max_length=200, help_text="Human-readable name.")
    description = models.TextField("description", blank=True, default="", help_text="What this knowledge base holds.")
    chunk_size = models.PositiveIntegerField(
        "chunk size", default=_default_chunk_size,
        help_text="Target chunk length in characters (documents are re-chunked on their next import).",
    )
    chunk_overlap = models.PositiveIntegerField(
        "chunk overlap", default=_default_chunk_overlap,
        help_text="Characters of the previous chunk repeated at the start of the next, for context.",
    )
    user_dictionary = models.JSONField(
        "user dictionary", default=list, blank=True,
        help_text="Domain terms (list of strings) added to jieba's dictionary when segmenting this knowledge base.",
    )
    embedding_model = models.CharField(
        "embedding model", max_length=200, blank=True, default="",
        help_text="Model of the vectors stored in this knowledge base; set on first import, changed by re-embed.",
    )
    floor_cosine = models.FloatField(
        "relevance floor (cosine)", null=True, blank=True,
        help_text="A hit reaches the results only with a dense cosine at least this high, or a normalised BM25 "
                  "or margin over its floor. Empty (all three): AGENTMEMORY['KNOWLEDGE_FLOOR']. Set by "
                  "agentmemory_calibrate_floor.",
    )
    floor_bm25 = models.FloatField(
        "relevance floor (normalised BM25)", null=True, blank=True,
        help_text="Floor on BM25 divided by the query's own maximum possible score (0-1). Empty: the default.",
    )
    floor_margin = models.FloatField(
        "relevance floor (cosine margin)", null=True, blank=True,
        help_text="Floor on the hit's cosine minus the median cosine of the query's vector candidates.",
    )
    floor_bm25_min_cosine = models.FloatField(
        "relevance floor (cosine needed by a BM25 pass)", null=True, blank=True,
        help_text="A hit passing on BM25 also needs this cosine: the query's words, but not its meaning, "
                  "are not enough (\"你是机器人吗\" and an article on robots).",
    )
    floor_calibration = models.JSONField(
        "floor calibration", default=dict, blank=True,
        help_text="What the last calibration measured: cases, off-topic questions, recall kept, rejection.",
    )
    publish_gate = models.BooleanField(
        "publish gate", default=False, db_default=False,
        help_text="Verify each new document version before it goes live: the base's accepted evaluation cases "
                  "and the off-topic checks run against the base as it would be; a version that lowers recall "
                  "(by more than the margin) is held for review instead of published.",
    )
    publish_gate_margin = models.FloatField(
        "publish gate margin", null=True, blank=True,
        help_text="Recall@5 drop (0-1, absolute) the gate tolerates. Empty: AGENTMEMORY['PUBLISH_GATE_MARGIN'].",
    )
    duplicate_policy = models.CharField(
        "duplicate policy", max_length=8, choices=DuplicatePolicy.choices, default=DuplicatePolicy.KEEP,
        db_default=DuplicatePolicy.KEEP,
        help_text="A chunk that (nearly) duplicates an active chunk of another document: keep both (search "
                  "shows the better-ranked copy), link (the first copy is served, the later cited as its "
                  "duplicate) or skip (the later copy is never served).",
    )
    propose_checks = models.BooleanField(
        "propose checks", default=False, db_default=False,
        help_text="Each import proposes evaluation cases from its new content (headings and key sentences as "
                  "questions) for an operator to accept.",
    )
    created_at = models.DateTimeField("created at", default=timezone.now, editable=False)
    updated_at = models.DateTimeField("updated at", auto_now=True)

    objects = KnowledgeBaseQuerySet.as_manager()

    class Meta:
        verbose_name = "knowledge base"
        verbose_name_plural = "knowledge bases"
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.name or self.slug


class Document(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", "active"
        DELETED = "deleted", "deleted"

    class Format(models.TextChoices):
        MARKDOWN = "markdown", "Markdown"
        TEXT = "text", "plain text"
        HTML = "html", "HTML"
        PDF = "pdf", "PDF"
        DOCX = "docx", "DOCX"

    knowledge_base = models.ForeignKey(
        KnowledgeBase, on_delete=models.CASCADE, related_name="documents", verbose_name="knowledge base",
        help_text="Knowledge base this document belongs to.",
    )
    external_id = models.CharField(
        "external id", max_length=255,
        help_text="Caller's id of the document, unique in the knowledge base; re-posting it makes a new version.",
    )
    title = models.CharField("title", max_length=500, help_text="Title shown in citations.")
    format = models.CharField("format", max_length=16, choices=Format.choices, help_text="Source format.")
    metadata = models.JSONField("metadata", default=dict, blank=True, help_text="Free-form metadata (JSON object).")
    status = models.CharField(
        "status", max_length=16, choices=Status.choices, default=Status.ACTIVE,
        help_text="Deleted documents keep their rows (deprecated) unless purged.",
    )
    active_version = models.ForeignKey(
        "DocumentVersion", on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        verbose_name="active version", help_text="The one version whose chunks are searched.",
    )
    created_at = models.DateTimeField("created at", default=timezone.now, editable=False)
    updated_at = models.DateTimeField("updated at", auto_now=True)

    objects = DocumentQuerySet.as_manager()

    class Meta:
        verbose_name = "document"
        verbose_name_plural = "documents"
        ordering = ["knowledge_base_id", "external_id"]
        constraints = [
            models.UniqueConstraint(fields=["knowledge_base", "external_id"], name="am_document_kb_external_id_uniq"),
        ]

    def __str__(self) -> str:
        return self.title or self.external_id


class DocumentVersion(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        HELD = "held", "held for review"
        ACTIVE = "active", "active"
        DEPRECATED = "deprecated", "deprecated"
        FAILED = "failed", "failed"
        DISCARDED = "discarded", "discarded"

    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="versions", verbose_name="document",
        help_text="Document this is a version of.",
    )
    number = models.PositiveIntegerField("number", help_text="1, 2, 3... per document.")
    content_hash = models.CharField("content hash", max_length=64, db_index=True,
                                    help_text="SHA-256 of the extracted source text.")
    source_text = models.TextField("source text", help_text="Text extracted from the upload; chunk offsets point into it.")
    structure = models.JSONField(
        "structure", default=dict, blank=True,
        help_text="Headings and unbreakable blocks found by the parser (offsets into the source text).",
    )
    status = models.CharField(
        "status", max_length=16, choices=Status.choices, default=Status.PENDING,
        help_text="pending while embedding; held when the publish gate stopped it (review queue); active when "
                  "published; deprecated when replaced; failed with a reason; discarded by a reviewer.",
    )
    error = models.TextField("error", blank=True, default="", help_text="Why the import of this version failed.")
    gate_report = models.JSONField(
        "gate report", default=dict, blank=True,
        help_text="What the publish gate measured: recall@5 before and after, the cases the version breaks "
                  "(expected chunk, new rank), off-topic questions it answers, the decision.",
    )
    duplicates = models.JSONField(
        "duplicates", default=list, blank=True,
        help_text="Chunks of this version that (nearly) duplicate active chunks of other documents.",
    )
    created_at = models.DateTimeField("created at", default=timezone.now, editable=False)
    published_at = models.DateTimeField("published at", null=True, blank=True,
                                        help_text="When this version last became active.")

    objects = DocumentVersionQuerySet.as_manager()

    class Meta:
        verbose_name = "document version"
        verbose_name_plural = "document versions"
        ordering = ["document_id", "-number"]
        permissions = [("publish_version", "Can publish or discard a held document version")]
        constraints = [
            models.UniqueConstraint(fields=["document", "number"], name="am_docversion_document_number_uniq"),
        ]

    def __str__(self) -> str:
        return f"{self.document} v{self.number}"


class Chunk(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        ACTIVE = "active", "active"
        DEPRECATED = "deprecated", "deprecated"

    # No index of its own on knowledge_base, version or content_hash: the composite indexes below lead
    # with them. Every chunk row is written three times by an import (insert, vectors, publish); each
    # index less is less work taken from the embedder (migration 0014).
    knowledge_base = models.ForeignKey(
        KnowledgeBase, on_delete=models.CASCADE, related_name="chunks", verbose_name="knowledge base",
        db_index=False, help_text="Denormalised from the document, for filtering searches.",
    )
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks",
                                 verbose_name="document", help_text="Document of the chunk.")
    version = models.ForeignKey(DocumentVersion, on_delete=models.CASCADE, related_name="chunks", db_index=False,
                                verbose_name="version", help_text="Document version the chunk was cut from.")
    position = models.PositiveIntegerField("position", help_text="Order of the chunk in its version, from 0.")
    heading_path = models.TextField("heading path", blank=True, default="",
                                    help_text='Headings above the chunk, e.g. "产品手册 > 参数说明".')
    char_start = models.PositiveIntegerField("start offset", help_text="Offset of the chunk's first character in the version's source text.")
    char_end = models.PositiveIntegerField("end offset", help_text="Offset after the chunk's last character.")
    text = models.TextField("text", help_text="Displayed text (source_text[char_start:char_end]).")
    content_hash = models.CharField("content hash", max_length=64,
                                    help_text="SHA-256 of heading path and text; equal hashes reuse the embedding.")
    token_count = models.PositiveIntegerField("token count", default=0, help_text="Approximate LLM tokens of the text.")
    language = models.CharField("language", max_length=8, blank=True, default="", db_default="",
                                help_text='"zh" or "en": the language the text is written in (cross-lingual search).')
    status = models.CharField("status", max_length=16, choices=Status.choices, default=Status.PENDING,
                              help_text="Only active chunks are searched.")
    embedding = embedding_field(verbose_name="embedding", help_text="Passage vector of heading path + text.")
    embedding_model = models.CharField("embedding model", max_length=200, blank=True, default="",
                                       help_text="Model that produced the embedding.")
    search_vector = SearchVectorField("search vector", null=True, blank=True, editable=False,
                                      help_text="Keyword index of heading path + text (jieba/English tokens).")
    term_count = models.PositiveIntegerField("term count", default=0,
                                             help_text="Number of keyword tokens (BM25 document length).")
    duplicate_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_index=False,
        verbose_name="duplicate of",
        help_text="The active chunk of another document this one (nearly) repeats, found at import; the base's "
                  "duplicate policy says which of the two search serves.",
    )
    created_at = models.DateTimeField("created at", default=timezone.now, editable=False)

    objects = ChunkQuerySet.as_manager()

    class Meta:
        verbose_name = "chunk"
        verbose_name_plural = "chunks"
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


class ImportJob(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        SUCCEEDED = "succeeded", "succeeded"
        FAILED = "failed", "failed"

    class Kind(models.TextChoices):
        INGEST = "ingest", "ingest document"
        REEMBED = "reembed", "re-embed knowledge base"

    knowledge_base = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="import_jobs",
                                       verbose_name="knowledge base", help_text="Target knowledge base.")
    kind = models.CharField("kind", max_length=16, choices=Kind.choices, default=Kind.INGEST,
                            help_text="What the job does.")
    external_id = models.CharField("external id", max_length=255, blank=True, default="",
                                   help_text="Document external id (ingest jobs).")
    title = models.CharField("title", max_length=500, blank=True, default="", help_text="Document title (ingest jobs).")
    format = models.CharField("format", max_length=16, blank=True, default="", help_text="Source format (ingest jobs).")
    source_text = models.TextField("source text", blank=True, default="",
                                   help_text="Extracted text to import, kept until the job succeeds so a retry "
                                             "needs no re-upload.")
    structure = models.JSONField("structure", default=dict, blank=True,
                                 help_text="Headings and unbreakable blocks found by the parser.")
    metadata = models.JSONField("metadata", default=dict, blank=True, help_text="Document metadata to set.")
    status = models.CharField("status", max_length=16, choices=Status.choices, default=Status.QUEUED,
                              help_text="queued, running, succeeded or failed.")
    progress = models.PositiveIntegerField("progress", default=0, help_text="Items done (chunks embedded).")
    total = models.PositiveIntegerField("total", default=0, help_text="Items to do.")
    result = models.JSONField("result", default=dict, blank=True, help_text="Outcome (document, version, counts).")
    error = models.TextField("error", blank=True, default="", help_text="Why the job failed.")
    requested_by = models.CharField("requested by", max_length=200, blank=True, default="",
                                    help_text="Actor who asked for the job (api_key:NAME, admin:USER, command:...).")
    created_at = models.DateTimeField("created at", default=timezone.now, editable=False)
    started_at = models.DateTimeField("started at", null=True, blank=True, help_text="When a worker picked it up.")
    finished_at = models.DateTimeField("finished at", null=True, blank=True, help_text="When it finished.")

    objects = ImportJobQuerySet.as_manager()

    class Meta:
        verbose_name = "import job"
        verbose_name_plural = "import jobs"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"


class HeldVersion(DocumentVersion):
    """The review queue: document versions the publish gate held (admin: publish or discard)."""

    class Meta:
        proxy = True
        verbose_name = "held version"
        verbose_name_plural = "review queue (held versions)"
