"""Views of the knowledge API: thin over agentmemory.knowledge services (ingest, publish, re-embed)."""
from __future__ import annotations

from django.db import transaction
from django.db.models import Count, Q
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import generics, status
from rest_framework.response import Response

from ..audit import audit_context, record_event
from ..conf import app_settings
from ..exceptions import EmbeddingError, InvalidInput, NotFound
from ..knowledge.ingest import create_import_job, default_title, prepare_document, run_import_job
from ..knowledge.parse import TEXT_FORMATS, DocumentTooLarge, UnsupportedFormat, check_format, detect_format
from ..knowledge.publish import delete_document, get_document, rollback_document
from ..knowledge.reembed import create_reembed_job, run_reembed_job
from ..models import Chunk, Document, ImportJob, KnowledgeBase
from ..tasks.dispatch import enqueue_on_commit
from ..tasks.knowledge import enqueue_import
from ..tasks.knowledge import ingest_document as ingest_task
from ..tasks.knowledge import reembed_knowledge_base as reembed_task
from .access import admin, principal_of, read
from .base import AgentMemoryAPIView
from .errors import error_response
from .knowledge_serializers import (
    ChunkPreviewSerializer,
    DocumentDetailSerializer,
    DocumentInputSerializer,
    DocumentSerializer,
    DocumentUploadSerializer,
    ImportJobSerializer,
    KnowledgeBaseSerializer,
    VersionSerializer,
)
from .params import MAX_INT_PARAM, int_param
from .schema import extend_schema


def actor_of(request) -> str:
    return principal_of(request).actor


# Knowledge is shared: every principal may read it (non-staff users too); writing it is an admin act.
_READ_KB = read("agentmemory.view_knowledgebase")
_READ_DOCS = read("agentmemory.view_document")


def runs_eagerly() -> bool:
    """True when Celery has no broker (tasks run in-process): imports then answer with their result."""
    return bool(ingest_task.app.conf.task_always_eager)


def get_knowledge_base(slug: str) -> KnowledgeBase:
    kb = KnowledgeBase.objects.by_slug(slug).first()
    if kb is None:
        raise NotFound(f"Knowledge base {slug!r} does not exist.")
    return kb


def _waiting(job: ImportJob) -> Response:
    """202: the embedding backend is down; the job is kept, queued, and retried (task retries, beat sweep)."""
    job.refresh_from_db()
    return Response({**ImportJobSerializer(job).data,
                     "detail": "The embedding backend is unavailable: the job is queued and will be retried; "
                               "poll it at import-jobs/{id}/."}, status=status.HTTP_202_ACCEPTED)


class KnowledgeBaseListView(AgentMemoryAPIView, generics.ListCreateAPIView):
    """List knowledge bases, or create one: ``{slug, name, description?, chunking?, user_dictionary?}``."""

    rules = {"GET": _READ_KB, "POST": admin("agentmemory.add_knowledgebase")}

    serializer_class = KnowledgeBaseSerializer

    def get_queryset(self):
        return KnowledgeBase.objects.annotate(
            document_count=Count("documents", filter=Q(documents__status=Document.Status.ACTIVE)),
        ).order_by("slug")

    def perform_create(self, serializer):
        with transaction.atomic(), audit_context(actor_of(self.request)):
            kb = serializer.save()
            record_event("knowledge_base.create", object_type="knowledge_base", object_id=kb.pk,
                         after={"slug": kb.slug, "chunk_size": kb.chunk_size, "chunk_overlap": kb.chunk_overlap})


class KnowledgeBaseDetailView(AgentMemoryAPIView, generics.RetrieveUpdateAPIView):
    """Read a knowledge base, or change its name, description, chunking or user dictionary."""

    rules = {"GET": _READ_KB, "PATCH": admin("agentmemory.change_knowledgebase")}

    serializer_class = KnowledgeBaseSerializer
    http_method_names = ["get", "patch", "head", "options"]

    def get_object(self):
        return get_knowledge_base(self.kwargs["slug"])

    def perform_update(self, serializer):
        with transaction.atomic(), audit_context(actor_of(self.request)):
            kb = serializer.save()
            record_event("knowledge_base.update", object_type="knowledge_base", object_id=kb.pk,
                         after={"chunk_size": kb.chunk_size, "chunk_overlap": kb.chunk_overlap,
                                "user_dictionary": kb.user_dictionary})


class DocumentListView(AgentMemoryAPIView):
    """List the documents of a knowledge base, or import one (JSON text or a multipart ``file``)."""

    rules = {"GET": _READ_DOCS, "POST": admin("agentmemory.add_document")}


    @extend_schema(
        parameters=[OpenApiParameter("status", str, description="active (default) | deleted | all"),
                    OpenApiParameter("external_id", str),
                    OpenApiParameter("limit", int, description="default 100, at most 1000"),
                    OpenApiParameter("offset", int)],
        responses=DocumentSerializer(many=True),
    )
    def get(self, request, slug: str):
        kb = get_knowledge_base(slug)
        documents = Document.objects.in_knowledge_base(kb).select_related("active_version", "knowledge_base")
        wanted = request.query_params.get("status", "active")
        if wanted != "all":
            documents = documents.filter(status=wanted)
        if request.query_params.get("external_id"):
            documents = documents.filter(external_id=request.query_params["external_id"])
        limit = int_param(request, "limit", 100, minimum=1, maximum=1000, clamp=True)
        offset = int_param(request, "offset", 0)
        page = documents.order_by("external_id")[offset:offset + limit]
        return Response(DocumentSerializer(page, many=True).data)

    @extend_schema(
        request={"application/json": DocumentInputSerializer, "multipart/form-data": DocumentUploadSerializer},
        responses={201: dict, 200: dict, 202: ImportJobSerializer,
                   413: OpenApiResponse(description="Document over the size limit"),
                   415: OpenApiResponse(description="Unsupported format or parser not installed")},
    )
    def post(self, request, slug: str):
        kb = get_knowledge_base(slug)
        try:
            with audit_context(actor_of(request)):
                job = self._create_job(request, kb)
        except UnsupportedFormat as exc:
            return error_response("unsupported_media_type", exc.detail, 415, field=exc.field)
        except DocumentTooLarge as exc:
            return error_response("too_large", exc.detail, 413, field=exc.field)
        if not runs_eagerly() or len(job.source_text) > int(app_settings.IMPORT_INLINE_MAX_CHARS):
            # A worker, or (no worker, too long for a request) a background thread imports it; poll the job.
            enqueue_import(job.pk, size=len(job.source_text))
            return Response(ImportJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)
        try:
            with audit_context(actor_of(request)):
                result = run_import_job(job.pk)
        except EmbeddingError:
            return _waiting(job)
        document = Document.objects.select_related("active_version", "knowledge_base").get(pk=result["document_id"])
        body = {**result, "job": job.pk, "document": DocumentSerializer(document).data}
        code = status.HTTP_200_OK if result["action"] == "unchanged" else status.HTTP_201_CREATED
        return Response(body, status=code)

    def _create_job(self, request, kb: KnowledgeBase) -> ImportJob:
        if "file" in request.FILES or request.content_type.startswith("multipart/"):
            serializer = DocumentUploadSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = serializer.validated_data
            upload = data["file"]
            fmt = check_format(data["format"]) if data.get("format") else detect_format(
                upload.name, getattr(upload, "content_type", ""))
            if upload.size > int(app_settings.MAX_UPLOAD_BYTES):
                raise DocumentTooLarge(
                    f"The file has {upload.size} bytes, over the limit of {app_settings.MAX_UPLOAD_BYTES} "
                    f"(AGENTMEMORY['MAX_UPLOAD_BYTES']).", field="file")
            if upload.size == 0:
                raise InvalidInput("The file is empty.", field="file")
            parsed = prepare_document(fmt=fmt, content=upload.read())
            stem = upload.name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            title = data.get("title") or default_title(parsed, stem)
            external_id = data.get("external_id") or ""
        else:
            serializer = DocumentInputSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = serializer.validated_data
            fmt = check_format(data.get("format") or "markdown")
            if fmt not in TEXT_FORMATS:
                raise InvalidInput(f"{fmt.upper()} documents must be uploaded as a multipart 'file'.", field="format")
            parsed = prepare_document(fmt=fmt, content=data["content"])
            title = data.get("title") or default_title(parsed)
            external_id = data.get("external_id") or ""
        return create_import_job(knowledge_base=kb, parsed=parsed, title=title, fmt=fmt,
                                 external_id=external_id, metadata=data.get("metadata"))


class DocumentDetailView(AgentMemoryAPIView):
    """One document with its versions; DELETE deprecates it (``?purge=true`` removes its rows)."""

    rules = {"GET": _READ_DOCS, "DELETE": admin("agentmemory.delete_document")}

    @extend_schema(responses=DocumentDetailSerializer)
    def get(self, request, slug: str, pk: str):
        document = get_document(get_knowledge_base(slug), pk)
        versions = document.versions.annotate(chunk_count=Count("chunks")).order_by("-number")
        data = DocumentSerializer(document).data
        data["versions"] = VersionSerializer(versions, many=True).data
        return Response(data)

    @extend_schema(parameters=[OpenApiParameter("purge", bool)], responses={200: dict})
    def delete(self, request, slug: str, pk: str):
        document = get_document(get_knowledge_base(slug), pk)
        purge = request.query_params.get("purge", "").lower() in ("1", "true", "yes")
        with audit_context(actor_of(request)):
            result = delete_document(document, purge=purge)
        return Response({"document_id": result.document_id, "purged": purge,
                         "deprecated_chunks": result.deprecated}, status=status.HTTP_200_OK)


class DocumentChunksView(AgentMemoryAPIView):
    """Chunk preview of a version (default: the active one): how the document was cut."""

    rules = {"GET": _READ_DOCS}

    @extend_schema(parameters=[OpenApiParameter("version", int)], responses=ChunkPreviewSerializer(many=True))
    def get(self, request, slug: str, pk: str):
        document = get_document(get_knowledge_base(slug), pk)
        number = int_param(request, "version", 0, minimum=1)
        if number:
            version = document.versions.filter(number=number).first()
            if version is None:
                raise NotFound(f"Document {document.pk} has no version {number}.")
        else:
            version = document.active_version or document.versions.order_by("-number").first()
            if version is None:
                return Response([])
        chunks = Chunk.objects.for_version(version).without_vectors().select_related("version")
        return Response(ChunkPreviewSerializer(chunks, many=True).data)


class DocumentRollbackView(AgentMemoryAPIView):
    """Make an earlier version active again: ``{"version": N}``."""

    rules = {"POST": admin("agentmemory.change_document")}

    @extend_schema(request=dict, responses={200: dict})
    def post(self, request, slug: str, pk: str):
        document = get_document(get_knowledge_base(slug), pk)
        raw = request.data.get("version") if hasattr(request.data, "get") else None
        if (isinstance(raw, bool) or not isinstance(raw, int | str) or not str(raw).strip().isdigit()
                or not 0 < int(raw) <= MAX_INT_PARAM):
            raise InvalidInput("version (a positive integer) is required.", field="version")
        with audit_context(actor_of(request)):
            result = rollback_document(document, version_number=int(raw))
        return Response(result.as_dict())


class KnowledgeBaseReembedView(AgentMemoryAPIView):
    """Re-embed a knowledge base with the configured embedder (202 + job when a broker is configured)."""

    rules = {"POST": admin("agentmemory.change_knowledgebase")}

    @extend_schema(request=None, responses={200: dict, 202: ImportJobSerializer})
    def post(self, request, slug: str):
        kb = get_knowledge_base(slug)
        with audit_context(actor_of(request)):
            job = create_reembed_job(kb)
        if not runs_eagerly():
            enqueue_on_commit(reembed_task, job.pk)
            return Response(ImportJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)
        try:
            with audit_context(actor_of(request)):
                result = run_reembed_job(job.pk)
        except EmbeddingError:
            return _waiting(job)
        return Response({**result, "job": job.pk})


class ImportJobDetailView(AgentMemoryAPIView, generics.RetrieveAPIView):
    """Status and progress of an import or re-embed job (API keys and staff: jobs are operators' business)."""

    rules = {"GET": read("agentmemory.view_importjob", self_service=False)}

    serializer_class = ImportJobSerializer
    queryset = ImportJob.objects.select_related("knowledge_base").defer("source_text", "structure")
