"""Views of the knowledge API: thin over agentmemory.knowledge services (ingest, publish, re-embed)."""
from __future__ import annotations

from django.db.models import Count, OuterRef, Q, Subquery
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import generics, status
from rest_framework.response import Response

from ..exceptions import InvalidInput, NotFound
from ..knowledge.bases import create_knowledge_base, update_knowledge_base
from ..knowledge.gate import discard_version, held_version, publish_held
from ..knowledge.imports import import_document
from ..knowledge.publish import delete_document, get_document, rollback_document
from ..knowledge.reembed import create_reembed_job
from ..models import Chunk, Document, DocumentVersion, ImportJob, KnowledgeBase
from ..tasks.knowledge import Submitted, submit_import, submit_reembed
from .access import admin, read
from .base import AgentMemoryAPIView
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
from .params import MAX_INT_PARAM, int_param, page_param
from .schema import extend_schema

# Knowledge is shared: every principal may read it (non-staff users too); writing it is an admin act.
_READ_KB = read("agentmemory.view_knowledgebase")
_READ_DOCS = read("agentmemory.view_document")


def get_knowledge_base(slug: str) -> KnowledgeBase:
    kb = KnowledgeBase.objects.by_slug(slug).first()
    if kb is None:
        raise NotFound(f"Knowledge base {slug!r} does not exist.")
    return kb


def _not_run_here(submitted: Submitted) -> Response | None:
    """202 with the job to poll when it was queued, or waits for the embedding backend; None when it ran."""
    if submitted.result is not None:
        return None
    body = ImportJobSerializer(submitted.job).data
    if submitted.waiting:  # kept, queued, and retried (task retries, beat sweep)
        body = {**body, "detail": "The embedding backend is unavailable: the job is queued and will be retried; "
                                  "poll it at import-jobs/{id}/."}
    return Response(body, status=status.HTTP_202_ACCEPTED)


class KnowledgeBaseListView(AgentMemoryAPIView, generics.ListCreateAPIView):
    """List knowledge bases, or create one: ``{slug, name, description?, chunking?, user_dictionary?}``."""

    rules = {"GET": _READ_KB, "POST": admin("agentmemory.add_knowledgebase")}

    serializer_class = KnowledgeBaseSerializer

    def get_queryset(self):
        return KnowledgeBase.objects.annotate(
            document_count=Count("documents", filter=Q(documents__status=Document.Status.ACTIVE)),
        ).order_by("slug")

    def perform_create(self, serializer):
        serializer.instance = create_knowledge_base(**serializer.validated_data)


class KnowledgeBaseDetailView(AgentMemoryAPIView, generics.RetrieveUpdateAPIView):
    """Read a knowledge base, or change its name, description, chunking or user dictionary."""

    rules = {"GET": _READ_KB, "PATCH": admin("agentmemory.change_knowledgebase")}

    serializer_class = KnowledgeBaseSerializer
    http_method_names = ["get", "patch", "head", "options"]

    def get_object(self):
        return get_knowledge_base(self.kwargs["slug"])

    def perform_update(self, serializer):
        serializer.instance = update_knowledge_base(serializer.instance, **serializer.validated_data)


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
        documents = Document.objects.in_knowledge_base(kb).select_related("active_version", "knowledge_base").annotate(
            latest_version_status=Subquery(DocumentVersion.objects.filter(document=OuterRef("pk"))
                                           .order_by("-number").values("status")[:1]))
        wanted = request.query_params.get("status", "active")
        if wanted != "all":
            documents = documents.filter(status=wanted)
        if request.query_params.get("external_id"):
            documents = documents.filter(external_id=request.query_params["external_id"])
        page = page_param(request, default_limit=100, max_limit=1000).of(documents.order_by("external_id"))
        return Response(DocumentSerializer(page, many=True).data)

    @extend_schema(
        request={"application/json": DocumentInputSerializer, "multipart/form-data": DocumentUploadSerializer},
        responses={201: dict, 200: dict, 202: ImportJobSerializer,
                   413: OpenApiResponse(description="Document over the size limit"),
                   415: OpenApiResponse(description="Unsupported format or parser not installed")},
    )
    def post(self, request, slug: str):
        # A format not supported answers 415 and a document over the limits 413 (errors.exception_handler).
        job = import_document(get_knowledge_base(slug), **self._document(request))
        submitted = submit_import(job)
        queued = _not_run_here(submitted)
        if queued is not None:
            return queued
        result = submitted.result
        document = Document.objects.select_related("active_version", "knowledge_base").get(pk=result["document_id"])
        body = {**result, "job": job.pk, "document": DocumentSerializer(document).data}
        code = status.HTTP_200_OK if result["action"] == "unchanged" else status.HTTP_201_CREATED
        return Response(body, status=code)

    def _document(self, request) -> dict:
        """import_document's arguments from a multipart upload or a JSON text."""
        upload = "file" in request.FILES or request.content_type.startswith("multipart/")
        serializer = (DocumentUploadSerializer if upload else DocumentInputSerializer)(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        source = {"upload": data["file"]} if upload else {"text": data["content"]}
        return {**source, "fmt": data.get("format") or "", "title": data.get("title") or "",
                "external_id": data.get("external_id") or "", "metadata": data.get("metadata"),
                "propose_checks": data.get("propose_checks")}


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


def _version_param(request, *, required: bool = False) -> int | None:
    """The body's ``version``: a positive integer; None when absent and not ``required``."""
    raw = request.data.get("version") if hasattr(request.data, "get") else None
    if raw is None and not required:
        return None
    if (isinstance(raw, bool) or not isinstance(raw, int | str) or not str(raw).strip().isdigit()
            or not 0 < int(raw) <= MAX_INT_PARAM):
        raise InvalidInput("version (a positive integer) is required." if required
                           else "version must be a positive integer.", field="version")
    return int(raw)


class DocumentRollbackView(AgentMemoryAPIView):
    """Make an earlier version active again: ``{"version": N}``."""

    rules = {"POST": admin("agentmemory.change_document")}

    @extend_schema(request=dict, responses={200: dict})
    def post(self, request, slug: str, pk: str):
        document = get_document(get_knowledge_base(slug), pk)
        result = rollback_document(document, version_number=_version_param(request, required=True))
        return Response(result.as_dict())


class DocumentPublishView(AgentMemoryAPIView):
    """Publish a version the publish gate held: ``{"version": N}`` (default: the latest held one)."""

    rules = {"POST": admin("agentmemory.publish_version")}

    @extend_schema(request=dict, responses={200: dict})
    def post(self, request, slug: str, pk: str):
        document = get_document(get_knowledge_base(slug), pk)
        result = publish_held(held_version(document, _version_param(request)))
        return Response({**result.as_dict(), "status": "published"})


class DocumentDiscardView(AgentMemoryAPIView):
    """Discard a version the publish gate held: ``{"version": N}`` (default: the latest held one)."""

    rules = {"POST": admin("agentmemory.publish_version")}

    @extend_schema(request=dict, responses={200: dict})
    def post(self, request, slug: str, pk: str):
        document = get_document(get_knowledge_base(slug), pk)
        return Response(discard_version(held_version(document, _version_param(request))))


class HeldVersionListView(AgentMemoryAPIView):
    """The review queue of a knowledge base: versions the publish gate held, with their reports."""

    rules = {"GET": read("agentmemory.view_documentversion", self_service=False)}

    @extend_schema(responses={200: dict})
    def get(self, request, slug: str):
        kb = get_knowledge_base(slug)
        versions = (DocumentVersion.objects.filter(document__knowledge_base=kb, status=DocumentVersion.Status.HELD)
                    .select_related("document").defer("source_text", "structure").order_by("-created_at")[:200])
        return Response([{"document_id": v.document_id, "external_id": v.document.external_id,
                          "title": v.document.title, "version": v.number, "created_at": v.created_at,
                          "gate_report": v.gate_report, "duplicates": v.duplicates} for v in versions])


class KnowledgeBaseReembedView(AgentMemoryAPIView):
    """Re-embed a knowledge base with the configured embedder (202 + job when a broker is configured)."""

    rules = {"POST": admin("agentmemory.change_knowledgebase")}

    @extend_schema(request=None, responses={200: dict, 202: ImportJobSerializer})
    def post(self, request, slug: str):
        submitted = submit_reembed(create_reembed_job(get_knowledge_base(slug)))
        return _not_run_here(submitted) or Response({**submitted.result, "job": submitted.job.pk})


class ImportJobDetailView(AgentMemoryAPIView, generics.RetrieveAPIView):
    """Status and progress of an import or re-embed job (API keys and staff: jobs are operators' business)."""

    rules = {"GET": read("agentmemory.view_importjob", self_service=False)}

    serializer_class = ImportJobSerializer
    queryset = ImportJob.objects.select_related("knowledge_base").defer("source_text", "structure")
