"""Serializers of the knowledge API (knowledge bases, documents, versions, chunk previews, import jobs)."""
from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from ..conf import app_settings
from ..models import Chunk, Document, DocumentVersion, ImportJob, KnowledgeBase


class ChunkingSerializer(serializers.Serializer):
    chunk_size = serializers.IntegerField(min_value=50, max_value=20000, required=False,
                                         help_text="Target chunk length in characters.")
    chunk_overlap = serializers.IntegerField(min_value=0, max_value=5000, required=False,
                                             help_text="Overlap between consecutive chunks of a section.")


class KnowledgeBaseSerializer(serializers.ModelSerializer):
    chunking = ChunkingSerializer(required=False, write_only=True,
                                  help_text="{chunk_size, chunk_overlap}; defaults from AGENTMEMORY settings.")
    document_count = serializers.SerializerMethodField()

    class Meta:
        model = KnowledgeBase
        fields = ["id", "slug", "name", "description", "chunking", "chunk_size", "chunk_overlap",
                  "user_dictionary", "publish_gate", "publish_gate_margin", "duplicate_policy", "propose_checks",
                  "embedding_model", "document_count", "created_at", "updated_at"]
        extra_kwargs = {"publish_gate_margin": {"min_value": 0.0, "max_value": 1.0}}
        read_only_fields = ["id", "chunk_size", "chunk_overlap", "embedding_model", "created_at", "updated_at"]

    def get_document_count(self, obj: KnowledgeBase) -> int:
        count = getattr(obj, "document_count", None)
        return count if count is not None else obj.documents.active().count()

    def validate_user_dictionary(self, value):
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise serializers.ValidationError("A list of non-empty strings (domain terms).")
        return [v.strip() for v in value]

    def validate(self, attrs):
        chunking = attrs.pop("chunking", None) or {}
        size = chunking.get("chunk_size", self.instance.chunk_size if self.instance else app_settings.CHUNK_SIZE)
        overlap = chunking.get("chunk_overlap",
                               self.instance.chunk_overlap if self.instance else app_settings.CHUNK_OVERLAP)
        if overlap * 2 > size:
            raise serializers.ValidationError({"chunking": "chunk_overlap must be at most half of chunk_size."})
        attrs["chunk_size"], attrs["chunk_overlap"] = size, overlap
        return attrs


class DocumentInputSerializer(serializers.Serializer):
    """JSON import: text content in one of the text formats."""

    external_id = serializers.CharField(max_length=255, required=False, allow_blank=True,
                                        help_text="Your id of the document; re-posting it creates a new version.")
    title = serializers.CharField(max_length=500, required=False, allow_blank=True)
    content = serializers.CharField(trim_whitespace=False, allow_blank=True,
                                    help_text="The document text (Markdown, plain text or HTML).")
    format = serializers.CharField(required=False, default="markdown", help_text="markdown | text | html")
    metadata = serializers.JSONField(required=False, help_text="Free-form JSON object.")
    propose_checks = serializers.BooleanField(required=False, allow_null=True, default=None,
                                              help_text="Propose evaluation cases from this document's content "
                                                        "(default: the knowledge base's propose_checks).")

    def validate_metadata(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("A JSON object.")
        return value


class DocumentUploadSerializer(serializers.Serializer):
    """Multipart import: a file (format from its extension, or ``format``)."""

    file = serializers.FileField()
    external_id = serializers.CharField(max_length=255, required=False, allow_blank=True)
    title = serializers.CharField(max_length=500, required=False, allow_blank=True)
    format = serializers.CharField(required=False, allow_blank=True)
    metadata = serializers.JSONField(required=False, help_text="JSON object (as a string in multipart).")
    propose_checks = serializers.BooleanField(required=False, allow_null=True, default=None)

    def validate_metadata(self, value):
        if isinstance(value, str):
            import json

            try:
                value = json.loads(value) if value.strip() else {}
            except ValueError as exc:
                raise serializers.ValidationError(f"Not valid JSON: {exc}") from exc
        if not isinstance(value, dict):
            raise serializers.ValidationError("A JSON object.")
        return value


class VersionSerializer(serializers.ModelSerializer):
    chunk_count = serializers.SerializerMethodField()

    class Meta:
        model = DocumentVersion
        fields = ["number", "status", "content_hash", "error", "chunk_count", "gate_report", "duplicates",
                  "created_at", "published_at"]

    def get_chunk_count(self, obj: DocumentVersion) -> int:
        count = getattr(obj, "chunk_count", None)
        return count if count is not None else obj.chunks.count()


class DocumentSerializer(serializers.ModelSerializer):
    knowledge_base = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    active_version = serializers.SerializerMethodField()
    publication = serializers.SerializerMethodField(
        help_text="published (its latest version serves), held (the latest waits in the review queue) or pending.")

    class Meta:
        model = Document
        fields = ["id", "knowledge_base", "external_id", "title", "format", "metadata", "status",
                  "active_version", "publication", "created_at", "updated_at"]

    def get_active_version(self, obj: Document) -> int | None:
        return obj.active_version.number if obj.active_version_id and obj.active_version else None

    def get_publication(self, obj: Document) -> str:
        latest = getattr(obj, "latest_version_status", None)
        if latest is None:
            latest = (obj.versions.order_by("-number").values_list("status", flat=True).first() or "")
        if latest in (DocumentVersion.Status.HELD, DocumentVersion.Status.PENDING):
            return latest
        return "published" if obj.active_version_id else latest or "pending"


class DocumentDetailSerializer(DocumentSerializer):
    versions = VersionSerializer(many=True, read_only=True)

    class Meta(DocumentSerializer.Meta):
        fields = [*DocumentSerializer.Meta.fields, "versions"]


class ChunkPreviewSerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(source="version.number", read_only=True)

    class Meta:
        model = Chunk
        fields = ["id", "version", "position", "heading_path", "char_start", "char_end", "text", "token_count",
                  "status", "embedding_model", "content_hash"]


class ImportJobSerializer(serializers.ModelSerializer):
    knowledge_base = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    url = serializers.SerializerMethodField()
    publication = serializers.SerializerMethodField(
        help_text="What became of the imported version: pending (not done), published, or held by the gate.")

    class Meta:
        model = ImportJob
        fields = ["id", "url", "kind", "knowledge_base", "external_id", "title", "format", "status", "publication",
                  "progress", "total", "result", "error", "created_at", "started_at", "finished_at"]

    def get_publication(self, obj: ImportJob) -> str | None:
        if obj.kind != ImportJob.Kind.INGEST:
            return None
        if obj.status != ImportJob.Status.SUCCEEDED:
            return "pending"
        return (obj.result or {}).get("publication", "published")

    def get_url(self, obj: ImportJob) -> str:
        return reverse("agentmemory:import-job-detail", kwargs={"pk": obj.pk})
