"""Context API: the agent's context for one message, and (with a chat model) an answer from it."""
from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from ..context.answer import answer_question
from ..context.assemble import assemble_context
from ..exceptions import NotFound
from ..models.conversation import Session
from .context_serializers import (
    AnswerResponseSerializer,
    ContextRequestSerializer,
    ContextResponseSerializer,
    bundle_as_dict,
)
from .permissions import api_key_of, check_agent_allowed


def _arguments(request) -> dict:
    serializer = ContextRequestSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    data = dict(serializer.validated_data)
    if not check_agent_allowed(request, data.get("agent_id")):
        raise PermissionDenied(f"This API key may not act for agent {data.get('agent_id')!r}.")
    session_id = data.get("session_id")
    if session_id and api_key_of(request) is not None:
        # A key limited to some agents does not see the sessions of the others (as in the sessions API).
        try:
            agent_ids = list(Session.objects.for_user(data["user_id"]).filter(pk=session_id)
                             .values_list("agent_id", flat=True))
        except (DjangoValidationError, ValueError):
            agent_ids = []  # not a session id at all: the service says so
        if agent_ids and not check_agent_allowed(request, agent_ids[0] or None):
            raise NotFound(f"No session {session_id} for user {data['user_id']!r}")
    return data


class ContextView(APIView):
    """What the agent should know to answer a user's message: memory, knowledge, history, in budget."""

    @extend_schema(request=ContextRequestSerializer, responses={200: ContextResponseSerializer})
    def post(self, request):
        bundle = assemble_context(**_arguments(request))
        return Response(bundle_as_dict(bundle))


class ContextAnswerView(APIView):
    """The configured chat model's answer from the assembled context, with its citations."""

    @extend_schema(request=ContextRequestSerializer, responses={200: AnswerResponseSerializer})
    def post(self, request):
        result = answer_question(**_arguments(request))
        return Response({"answer": result.answer, "citations": result.citations, "model": result.model,
                         "dropped_citations": result.dropped_citations, "context": bundle_as_dict(result.bundle)})
