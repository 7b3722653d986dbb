"""Search endpoints: one knowledge base, or several fused per base with RRF. Thin over search_knowledge."""
from __future__ import annotations

from rest_framework.response import Response

from ..knowledge.search import search_knowledge
from .access import read
from .base import AgentMemoryAPIView
from .retrieval_serializers import (
    MultiSearchRequestSerializer,
    SearchRequestSerializer,
    SearchResponseSerializer,
)
from .schema import extend_schema


def _search(data: dict, knowledge_bases: list[str] | None) -> Response:
    result = search_knowledge(
        data["query"], knowledge_bases=knowledge_bases, top_k=data["top_k"], mode=data["mode"],
        thresholds=data.get("thresholds"), rerank=data.get("rerank"), rewrite=data.get("rewrite", False),
        filters=data.get("filters"),
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
