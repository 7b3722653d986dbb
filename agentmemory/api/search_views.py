"""Search endpoints (one knowledge base, or several fused per base with RRF) and evaluation: saved cases
and runs of a knowledge base. Thin over search_knowledge and agentmemory.knowledge.evaluate."""
from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import status
from rest_framework.response import Response

from ..audit import record_event
from ..exceptions import InvalidInput, NotFound
from ..knowledge.evaluate import create_case, set_expected
from ..knowledge.propose import accept_cases, propose_for_documents
from ..knowledge.search import search_knowledge
from ..models import EvaluationCase, EvaluationRun
from ..tasks.search import submit_evaluation
from .access import admin, read
from .base import AgentMemoryAPIView
from .knowledge_views import get_knowledge_base
from .schema import extend_schema
from .search_serializers import (
    EvaluationCaseSerializer,
    EvaluationRunSerializer,
    MultiSearchRequestSerializer,
    SearchRequestSerializer,
    SearchResponseSerializer,
)


def _search(data: dict, knowledge_bases: list[str] | None) -> Response:
    result = search_knowledge(
        data["query"], knowledge_bases=knowledge_bases, top_k=data["top_k"], mode=data["mode"],
        thresholds=data.get("thresholds"), rerank=data.get("rerank"), rewrite=data.get("rewrite", False),
        filters=data.get("filters"), floor=data.get("floor", True),
    )
    return Response(result.as_dict())


class KnowledgeBaseSearchView(AgentMemoryAPIView):
    """Search one knowledge base: hybrid (BM25 + vector, RRF), vector or keyword; cited hits and a trace."""

    rules = {"POST": read("agentmemory.view_knowledgebase")}

    @extend_schema(request=SearchRequestSerializer, responses={200: SearchResponseSerializer})
    def post(self, request, slug: str):
        serializer = SearchRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return _search(serializer.validated_data, [slug])


class SearchView(AgentMemoryAPIView):
    """Search several knowledge bases (all by default); each base is fused on its own, then across bases."""

    rules = {"POST": read("agentmemory.view_knowledgebase")}

    @extend_schema(request=MultiSearchRequestSerializer, responses={200: SearchResponseSerializer})
    def post(self, request):
        serializer = MultiSearchRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return _search(serializer.validated_data, serializer.validated_data.get("knowledge_bases"))


class EvaluationCaseListView(AgentMemoryAPIView):
    """The saved evaluation cases of a knowledge base (GET), or save one (POST, as the hit-testing page does)."""

    rules = {"GET": read("agentmemory.view_evaluationcase", self_service=False),
             "POST": admin("agentmemory.add_evaluationcase")}

    @extend_schema(parameters=[OpenApiParameter("status", str, description="all (default) | accepted | proposed")],
                   responses={200: EvaluationCaseSerializer(many=True)})
    def get(self, request, slug: str):
        kb = get_knowledge_base(slug)
        cases = EvaluationCase.objects.filter(knowledge_base=kb)
        wanted = request.query_params.get("status", "all")
        if wanted not in ("all", "accepted", "proposed"):
            raise InvalidInput("status must be all, accepted or proposed", field="status")
        if wanted != "all":
            cases = cases.accepted() if wanted == "accepted" else cases.proposed()
        return Response(EvaluationCaseSerializer(cases.order_by("id")[:1000], many=True).data)

    @extend_schema(request=EvaluationCaseSerializer, responses={201: EvaluationCaseSerializer})
    def post(self, request, slug: str):
        kb = get_knowledge_base(slug)
        serializer = EvaluationCaseSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        case = create_case(knowledge_base=kb, query=data["query"], expected_chunk_ids=data["expected_chunk_ids"],
                           expected_document_ids=data["expected_document_ids"], source="api", note=data["note"])
        return Response(EvaluationCaseSerializer(case).data, status=status.HTTP_201_CREATED)


class EvaluationCaseDetailView(AgentMemoryAPIView):
    """One saved case (GET) or remove it (DELETE: a proposal rejected, or a case no longer wanted)."""

    rules = {"GET": read("agentmemory.view_evaluationcase", self_service=False),
             "DELETE": admin("agentmemory.delete_evaluationcase")}

    def _case(self, slug: str, pk: int) -> EvaluationCase:
        case = EvaluationCase.objects.for_knowledge_base(get_knowledge_base(slug)).filter(pk=pk).first()
        if case is None:
            raise NotFound(f"Evaluation case {pk} does not exist in {slug!r}.")
        return case

    @extend_schema(responses={200: EvaluationCaseSerializer})
    def get(self, request, slug: str, pk: int):
        return Response(EvaluationCaseSerializer(self._case(slug, pk)).data)

    @extend_schema(responses={204: None})
    def delete(self, request, slug: str, pk: int):
        case = self._case(slug, pk)
        record_event("evaluation_case.delete", object_type="evaluation_case", object_id=case.pk,
                     before={"query": case.query[:200], "accepted": case.accepted})
        case.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class EvaluationCaseAcceptView(AgentMemoryAPIView):
    """Accept a proposed case: from now on it counts in evaluations and the publish gate."""

    rules = {"POST": admin("agentmemory.change_evaluationcase")}

    @extend_schema(request=dict, responses={200: EvaluationCaseSerializer})
    def post(self, request, slug: str, pk: int):
        """``{"expected_chunk_ids"?, "expected_document_ids"?}`` name what answers it (a feedback case needs it)."""
        kb = get_knowledge_base(slug)
        case = EvaluationCase.objects.for_knowledge_base(kb).filter(pk=pk).first()
        if case is None:
            raise NotFound(f"Evaluation case {pk} does not exist in {slug!r}.")
        body = request.data if isinstance(request.data, dict) else {}
        if body.get("expected_chunk_ids") or body.get("expected_document_ids"):
            set_expected(case, chunk_ids=body.get("expected_chunk_ids") or [],
                         document_ids=body.get("expected_document_ids") or [])
        if not accept_cases(kb, [pk]) and not EvaluationCase.objects.filter(pk=pk, accepted=True).exists():
            raise InvalidInput("this case names nothing that should answer it: give expected_chunk_ids or "
                               "expected_document_ids.", field="expected_chunk_ids")
        record_event("evaluation_case.accept", object_type="evaluation_case", object_id=pk)
        return Response(EvaluationCaseSerializer(EvaluationCase.objects.get(pk=pk)).data)


class EvaluationCaseProposeView(AgentMemoryAPIView):
    """Propose cases from the base's active documents (all, or ``{"document_ids": [...]}``), offline."""

    rules = {"POST": admin("agentmemory.add_evaluationcase")}

    @extend_schema(request=dict, responses={201: EvaluationCaseSerializer(many=True)})
    def post(self, request, slug: str):
        kb = get_knowledge_base(slug)
        ids = request.data.get("document_ids") if hasattr(request.data, "get") else None
        if ids is not None and (not isinstance(ids, list) or not all(
                isinstance(i, int) and not isinstance(i, bool) and i > 0 for i in ids)):
            raise InvalidInput("document_ids must be a list of document ids", field="document_ids")
        cases = propose_for_documents(kb, ids)
        return Response(EvaluationCaseSerializer(cases, many=True).data, status=status.HTTP_201_CREATED)


class EvaluationRunListView(AgentMemoryAPIView):
    """Evaluation runs of a knowledge base, newest first (GET); run its saved cases now (POST)."""

    rules = {"GET": read("agentmemory.view_evaluationrun", self_service=False),
             "POST": admin("agentmemory.add_evaluationrun")}

    @extend_schema(responses={200: EvaluationRunSerializer(many=True)})
    def get(self, request, slug: str):
        kb = get_knowledge_base(slug)
        runs = EvaluationRun.objects.for_knowledge_base(kb).order_by("-started_at", "-id")[:100]
        return Response(EvaluationRunSerializer(runs, many=True).data)

    @extend_schema(request=None, responses={201: EvaluationRunSerializer, 202: OpenApiResponse(
        description="Queued on the worker: poll the list.")})
    def post(self, request, slug: str):
        kb = get_knowledge_base(slug)
        run = submit_evaluation(kb, EvaluationRun.Trigger.API)
        if run is None:
            return Response({"queued": True, "knowledge_base": kb.slug}, status=status.HTTP_202_ACCEPTED)
        return Response(EvaluationRunSerializer(run).data, status=status.HTTP_201_CREATED)
