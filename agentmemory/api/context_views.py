"""Context API: the agent's context for one message, and (with a chat model) an answer from it."""
from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.response import Response

from ..context.answer import answer_question
from ..context.assemble import assemble_context
from ..models.working import Session
from .access import principal_of, read, require_agent, require_user
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
    data = dict(serializer.validated_data)
    require_user(request, data["user_id"])
    data["agent_id"] = principal_of(request).default_agent(data.get("agent_id"))
    require_agent(request, data.get("agent_id"))
    session_id = data.get("session_id")
    if session_id and principal_of(request).agent_limit is not None:
        # A key limited to some agents does not see the sessions of the others (as in the sessions API).
        try:
            agent_ids = list(Session.objects.for_user(data["user_id"]).filter(pk=session_id)
                             .values_list("agent_id", flat=True))
        except (DjangoValidationError, ValueError):
            agent_ids = []  # not a session id at all: the service says so
        if agent_ids:
            require_agent(request, agent_ids[0] or None,
                          not_found=f"No session {session_id} for user {data['user_id']!r}")
    return data


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
