"""Context API: the agent's context for one message, (with a chat model) an answer from it, and the ledger."""
from __future__ import annotations

import datetime as dt

from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from ..context.answer import answer_question
from ..context.assemble import assemble_context
from ..context.feedback import give_feedback
from ..context.ledger import daily_usage
from ..exceptions import InvalidInput, NotFound
from ..models import ContextRecord
from ..validation import validate_user_id
from .access import context_arguments, principal_of, read, require_agent, require_user, write
from .base import AgentMemoryAPIView
from .context_serializers import (
    AnswerResponseSerializer,
    ContextFeedbackSerializer,
    ContextRecordSerializer,
    ContextRequestSerializer,
    ContextResponseSerializer,
    FeedbackRequestSerializer,
    TokenUsageSerializer,
    bundle_as_dict,
)
from .params import page_param
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


def _since(request):
    raw = request.query_params.get("since")
    if not raw:
        return None
    value = parse_datetime(raw) or (parse_date(raw) and dt.datetime.combine(parse_date(raw), dt.time.min))
    if value is None:
        raise InvalidInput("since must be an ISO date or date-time, e.g. 2026-12-04 or 2026-12-04T08:00:00Z",
                           field="since")
    return value if timezone.is_aware(value) else timezone.make_aware(value, dt.UTC)


def _user_param(request) -> str:
    """``?user_id=``: required, valid, and a user the caller may act for."""
    user_id = request.query_params.get("user_id", "")
    if not user_id:
        raise InvalidInput("user_id is required", field="user_id")
    validate_user_id(user_id)
    require_user(request, user_id)
    return user_id


class ContextRecordListView(AgentMemoryAPIView):
    """The context ledger of one user, newest first: ``?user_id=`` (required), ``agent_id``, ``since``."""

    rules = {"GET": read("agentmemory.view_contextrecord")}

    @extend_schema(parameters=[OpenApiParameter("user_id", str, required=True), OpenApiParameter("agent_id", str),
                               OpenApiParameter("since", str, description="ISO date or date-time"),
                               OpenApiParameter("limit", int), OpenApiParameter("offset", int)],
                   responses={200: ContextRecordSerializer(many=True)})
    def get(self, request):
        user_id = _user_param(request)
        rows = ContextRecord.objects.for_user(user_id)
        principal = principal_of(request)
        if principal.agent_limit is not None:  # an agent-limited key sees its agents' contexts only
            allowed = [*principal.agent_limit, *([""] if principal.may_use_agent(None) else [])]
            rows = rows.filter(agent_id__in=allowed)
        if "agent_id" in request.query_params:
            rows = rows.filter(agent_id=request.query_params["agent_id"])
        since = _since(request)
        if since is not None:
            rows = rows.filter(created_at__gte=since)
        rows = rows.order_by("-created_at", "-id").prefetch_related("feedback")
        page = page_param(request, default_limit=50, max_limit=500).of(rows)
        return Response(ContextRecordSerializer(page, many=True).data)


def _record(request, pk: int) -> ContextRecord:
    """The recorded context ``pk`` if the caller may act for its user (404 otherwise: existence is not told)."""
    row = ContextRecord.objects.filter(pk=pk).prefetch_related("feedback").first()
    if row is None:
        raise NotFound(f"Context {pk} does not exist.")
    require_user(request, row.user_id, not_found=f"Context {pk} does not exist.")
    if row.agent_id:  # an agent's context is that agent's (an agent-limited key sees only its own)
        require_agent(request, row.agent_id, not_found=f"Context {pk} does not exist.")
    return row


class ContextRecordDetailView(AgentMemoryAPIView):
    """One recorded context, with the feedback given on it."""

    rules = {"GET": read("agentmemory.view_contextrecord")}

    @extend_schema(responses={200: ContextRecordSerializer})
    def get(self, request, pk: int):
        return Response(ContextRecordSerializer(_record(request, pk)).data)


class ContextFeedbackView(AgentMemoryAPIView):
    """Feedback on a recorded context by the agent or the user (self-service): a rating of the context or of the
    items it names ("M2", "K1"), an optional comment and correction; see context/feedback.py for the effects."""

    rules = {"POST": write("agentmemory.add_contextfeedback")}

    @extend_schema(request=FeedbackRequestSerializer, responses={201: ContextFeedbackSerializer})
    def post(self, request, pk: int):
        record = _record(request, pk)
        data = request.data if isinstance(request.data, dict) else {}
        if "rating" not in data:
            raise InvalidInput("rating is required (1 or -1).", field="rating")
        row = give_feedback(record, rating=data.get("rating"), items=data.get("items"), comment=data.get("comment"),
                            correction=data.get("correction"), actor=principal_of(request).actor)
        return Response(ContextFeedbackSerializer(row).data, status=201)


class TokenUsageView(AgentMemoryAPIView):
    """One user's contexts and tokens per UTC day, with the LLM tokens their jobs spent: ``?user_id=``, ``since``."""

    rules = {"GET": read("agentmemory.view_contextrecord")}

    @extend_schema(parameters=[OpenApiParameter("user_id", str, required=True),
                               OpenApiParameter("since", str, description="ISO date or date-time")],
                   responses={200: TokenUsageSerializer(many=True)})
    def get(self, request):
        user_id = _user_param(request)
        return Response(TokenUsageSerializer(daily_usage(user_id=user_id, since=_since(request)), many=True).data)
