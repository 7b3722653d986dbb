"""Context API: the agent's context for one message, and (with a chat model) an answer from it."""
from __future__ import annotations

from rest_framework.response import Response

from ..context.answer import answer_question
from ..context.assemble import assemble_context
from .access import context_arguments, principal_of, read
from .base import AgentMemoryAPIView
from .context_serializers import (
    AnswerResponseSerializer,
    ContextRequestSerializer,
    ContextResponseSerializer,
    bundle_as_dict,
)
from .schema import extend_schema


def _arguments(request) -> dict:
    serializer = ContextRequestSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    return context_arguments(principal_of(request), dict(serializer.validated_data))


# The context reads the user's memories and sessions and the shared knowledge.
_CONTEXT = read("agentmemory.view_memoryitem", "agentmemory.view_session")


class ContextView(AgentMemoryAPIView):
    """What the agent should know to answer a user's message: memory, knowledge, history, in budget."""

    rules = {"POST": _CONTEXT}

    @extend_schema(request=ContextRequestSerializer, responses={200: ContextResponseSerializer})
    def post(self, request):
        bundle = assemble_context(**_arguments(request))
        return Response(bundle_as_dict(bundle))


class ContextAnswerView(AgentMemoryAPIView):
    """The configured chat model's answer from the assembled context, with its citations."""

    rules = {"POST": _CONTEXT}

    @extend_schema(request=ContextRequestSerializer, responses={200: AnswerResponseSerializer})
    def post(self, request):
        result = answer_question(**_arguments(request))
        return Response({"answer": result.answer, "citations": result.citations, "model": result.model,
                         "dropped_citations": result.dropped_citations, "context": bundle_as_dict(result.bundle)})
