"""Working-memory API (the sessions/ endpoints): create, add turns, read the working context, patch task state, end,
extraction report."""
from __future__ import annotations

from django.core.exceptions import RequestDataTooBig
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter
from rest_framework import exceptions, status
from rest_framework.response import Response

from ..exceptions import InvalidInput
from ..models import Session, Turn
from ..tasks.working import enqueue_extraction, enqueue_summary
from ..validation import validate_user_id
from ..working import sessions as service
from ..working.extract import extraction_report, run_summary
from ..working.window import get_working_context
from .access import read, require_agent, require_user, write
from .base import AgentMemoryAPIView
from .params import int_param
from .schema import extend_schema
from .working_serializers import (
    SessionCreateSerializer,
    SessionListSerializer,
    SessionPatchSerializer,
    SessionSerializer,
    TurnCreateSerializer,
    TurnSerializer,
)


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "too_large"


def _payload(request):
    """request.data, with a body over DATA_UPLOAD_MAX_MEMORY_SIZE answered 413 instead of crashing."""
    try:
        return request.data
    except RequestDataTooBig as exc:
        raise PayloadTooLarge("The request body is larger than the server accepts; a turn holds at most "
                              "MAX_TURN_CHARS characters.") from exc


def _load(request, session_id) -> Session:
    """The session, if the caller may act for its user and agent (otherwise it does not exist for it)."""
    session = service.get_session(session_id)
    hidden = f"Session {session_id} does not exist."
    require_user(request, session.user_id, not_found=hidden)
    require_agent(request, session.agent_id or None, not_found=hidden)
    return session


_VIEW = "agentmemory.view_session"


def _detail(session: Session) -> dict:
    context = get_working_context(session)
    return {**SessionSerializer(session).data, "window": context["turns"],
            "pinned_turns": context["pinned_turns"], "covered_up_to": context["covered_up_to"]}


class SessionListCreateView(AgentMemoryAPIView):
    """POST: start a session. GET ?user_id=: a user's sessions, newest activity first."""

    rules = {"GET": read(_VIEW), "POST": write("agentmemory.add_session")}

    @extend_schema(request=SessionCreateSerializer, responses={201: SessionSerializer})
    def post(self, request):
        data = SessionCreateSerializer(data=_payload(request))
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        require_user(request, values["user_id"])
        values["agent_id"] = self.principal.default_agent(values.get("agent_id")) or ""
        require_agent(request, values["agent_id"] or None)
        session = service.create_session(**values)
        return Response(_detail(session), status=status.HTTP_201_CREATED)

    @extend_schema(operation_id="sessions_list", parameters=[OpenApiParameter("user_id", str, required=True),
                               OpenApiParameter("status", str, required=False)],
                   responses={200: SessionListSerializer})
    def get(self, request):
        user_id = request.query_params.get("user_id", "").strip()
        if not user_id:
            raise InvalidInput("user_id is required.", field="user_id")
        validate_user_id(user_id)
        require_user(request, user_id)
        qs = Session.objects.for_user(user_id)
        if request.query_params.get("status"):
            qs = qs.filter(status=request.query_params["status"])
        agents = self.principal.agent_limit
        if agents is not None:
            qs = qs.filter(agent_id__in=agents)
        sessions = list(qs[:200])
        return Response({"results": SessionSerializer(sessions, many=True).data})


class SessionDetailView(AgentMemoryAPIView):
    """GET: the working context (window, summary, task state, status). PATCH: the task state."""

    rules = {"GET": read(_VIEW), "PATCH": write("agentmemory.change_session")}

    @extend_schema(responses={200: dict})
    def get(self, request, session_id):
        return Response(_detail(_load(request, session_id)))

    @extend_schema(request=SessionPatchSerializer, responses={200: dict})
    def patch(self, request, session_id):
        session = _load(request, session_id)
        payload = _payload(request)
        if not isinstance(payload, dict) or "task_state" not in payload:
            raise InvalidInput("task_state is required.", field="task_state")
        data = SessionPatchSerializer(data=payload)
        data.is_valid(raise_exception=True)
        session = service.update_task_state(session, task_state=data.validated_data["task_state"],
                                            replace=data.validated_data["replace"])
        return Response(_detail(session))


class TurnListCreateView(AgentMemoryAPIView):
    """POST: append a turn (memories written at once for a remember intent). GET: turns, paged by ?after=."""

    rules = {"GET": read(_VIEW), "POST": write("agentmemory.add_turn")}

    @extend_schema(request=TurnCreateSerializer, responses={201: dict})
    def post(self, request, session_id):
        session = _load(request, session_id)
        data = TurnCreateSerializer(data=_payload(request))
        data.is_valid(raise_exception=True)
        arguments = dict(data.validated_data)
        result = service.append_turn(session, now=arguments.pop("said_at"), **arguments)
        if result.summary_due:
            enqueue_summary(session.pk)
        return Response({"turn": TurnSerializer(result.turn).data, "memories": result.memories,
                         "session": {"id": str(session.pk), "turn_count": result.session.turn_count,
                                     "status": result.session.status}},
                        status=status.HTTP_201_CREATED)

    @extend_schema(parameters=[OpenApiParameter("after", int, required=False),
                               OpenApiParameter("limit", int, required=False)], responses={200: dict})
    def get(self, request, session_id):
        session = _load(request, session_id)
        # Paged by position (?after=seq, not an offset), so a page stays right while turns are appended.
        after = int_param(request, "after", 0)
        limit = int_param(request, "limit", 100, minimum=1, maximum=500, clamp=True)
        turns = Turn.objects.in_session(session).filter(seq__gt=after)[:limit]
        return Response({"results": TurnSerializer(turns, many=True).data})


class SessionEndView(AgentMemoryAPIView):
    """End the session: 202 and the extraction job to poll at .../extraction/."""

    rules = {"POST": write("agentmemory.change_session")}

    @extend_schema(request=None, responses={202: dict})
    def post(self, request, session_id):
        session = _load(request, session_id)
        run = service.end_session(session)
        if run is not None and run.status != run.Status.SUCCEEDED:
            enqueue_extraction(run.pk)
        body = {"session": SessionSerializer(session).data,
                "extraction": run_summary(run) if run else None,
                "poll": reverse("agentmemory:session-extraction", args=[session.pk])}
        return Response(body, status=status.HTTP_202_ACCEPTED)


class SessionExtractionView(AgentMemoryAPIView):
    """What extraction did: runs, and memories created, merged, superseded and rejected with reasons."""

    rules = {"GET": read(_VIEW)}

    @extend_schema(responses={200: dict})
    def get(self, request, session_id):
        session = _load(request, session_id)
        return Response(extraction_report(session))
