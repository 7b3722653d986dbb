"""Long-term memory API: user scope in the path; thin views over agentmemory.memory services.

The base view checks the path's user_id against the caller before any handler runs.
"""
from __future__ import annotations

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from ..audit import audit_reason
from ..exceptions import InvalidInput
from ..memory.distill import distill_profile
from ..memory.forget import delete_memory, forget_user
from ..memory.profile import get_profile, set_profile_summary
from ..memory.recall import recall_memories
from ..memory.write import update_memory, write_memory
from ..models import AuditEvent, MemoryItem
from ..types import MemoryDraft
from .access import admin as admin_rule
from .access import (
    principal_of,
    read,
    require_agent,
    require_every_agent,
    single_agent,
    visible_memory,
    write,
)
from .base import AgentMemoryAPIView
from .memory_serializers import (
    DeletionReceiptSerializer,
    MemoryCreateSerializer,
    MemoryItemSerializer,
    MemoryListQuerySerializer,
    MemoryPageSerializer,
    MemoryPatchSerializer,
    MemorySearchSerializer,
    WriteResultSerializer,
)
from .params import Page
from .schema import extend_schema


def _is_end_user(request) -> bool:
    """A logged-in, non-staff Django user acting for themself (the base view checked the path's user)."""
    return principal_of(request).kind == "user"


def _key_agents(request) -> list[str] | None:
    """The agents the request's API key is limited to; None when it is not limited."""
    return principal_of(request).agent_limit


def _get_item(request, user_id: str, memory_id: int) -> MemoryItem:
    return visible_memory(principal_of(request), memory_id, user_id=user_id)


_VIEW = "agentmemory.view_memoryitem"


class MemoryListView(AgentMemoryAPIView):
    """List a user's memories (filters: status, type, source, key, agent_id, tag) or write a new one."""

    rules = {"GET": read(_VIEW), "POST": write("agentmemory.add_memoryitem")}

    @extend_schema(operation_id="users_memories_list", parameters=[MemoryListQuerySerializer],
                   responses={200: MemoryPageSerializer})
    def get(self, request, user_id: str):
        params = MemoryListQuerySerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        qs = MemoryItem.objects.for_user(user_id).defer("embedding", "search_vector")
        qs = qs.filter(status=data["status"]) if "status" in data else qs.exclude(status=MemoryItem.Status.DELETED)
        for name in ("type", "source", "key"):
            if name in data:
                qs = qs.filter(**{name: data[name]})
        for pair in data.get("tag") or []:
            tag_name, tag_value = pair.split(":", 1)
            qs = qs.filter(tags__contains={tag_name: tag_value})
        agents = _key_agents(request)
        if "agent_id" in data:
            if agents is not None:
                require_agent(request, data["agent_id"])
            qs = qs.visible_to_agent(data["agent_id"])
        elif agents is not None:
            qs = qs.visible_to_agents(agents)
        total = qs.count()
        page = Page(data["offset"], data["limit"]).of(qs.order_by("-created_at", "-id"))
        return Response({"count": total, "results": MemoryItemSerializer(page, many=True).data})

    @extend_schema(request=MemoryCreateSerializer, responses={200: WriteResultSerializer, 201: WriteResultSerializer})
    def post(self, request, user_id: str):
        serializer = MemoryCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        data["agent_id"] = principal_of(request).default_agent(data["agent_id"]) or ""
        require_agent(request, data["agent_id"])
        if _is_end_user(request):
            # What the user says about themselves is, by definition, user_stated.
            data["source"] = MemoryItem.Source.USER_STATED
        draft = MemoryDraft(**data)
        with audit_reason("api"):
            result = write_memory(user_id, draft)
        return _write_response(user_id, result)


def _write_response(user_id: str, result) -> Response:
    item = None
    if result.memory_id is not None:
        item = MemoryItem.objects.for_user(user_id).defer("embedding", "search_vector").get(pk=result.memory_id)
    body = {"action": result.action, "reason": result.reason, "superseded_ids": list(result.superseded_ids),
            "memory": MemoryItemSerializer(item).data if item is not None else None}
    created = result.action in ("created", "superseded_previous")
    return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class MemoryDetailView(AgentMemoryAPIView):
    """One memory: read it, correct it (a new version supersedes it), or delete it (returns a receipt)."""

    rules = {"GET": read(_VIEW), "PATCH": write("agentmemory.change_memoryitem"),
             "DELETE": write("agentmemory.delete_memoryitem")}

    @extend_schema(responses={200: MemoryItemSerializer})
    def get(self, request, user_id: str, memory_id: int):
        return Response(MemoryItemSerializer(_get_item(request, user_id, memory_id)).data)

    @extend_schema(request=MemoryPatchSerializer, responses={200: WriteResultSerializer})
    def patch(self, request, user_id: str, memory_id: int):
        item = _get_item(request, user_id, memory_id)
        serializer = MemoryPatchSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        changes = dict(serializer.validated_data)
        reason = changes.pop("reason", "")
        if "agent_id" in changes:
            require_agent(request, changes["agent_id"])
        if _is_end_user(request):
            # What the user says about themselves is, by definition, user_stated.
            changes["source"] = MemoryItem.Source.USER_STATED
            changes.pop("agent_id", None)
        with audit_reason(reason or "api"):
            result = update_memory(user_id, item.pk, changes=changes, reason=reason)
        body = _write_response(user_id, result)
        body.status_code = status.HTTP_200_OK
        return body

    @extend_schema(responses={200: DeletionReceiptSerializer})
    def delete(self, request, user_id: str, memory_id: int):
        item = _get_item(request, user_id, memory_id)
        reason = str(request.query_params.get("reason", ""))[:500]
        with audit_reason(reason or "api"):
            receipt = delete_memory(user_id, item.pk, reason=reason)
        return Response(DeletionReceiptSerializer(receipt).data)


class MemoryHistoryView(AgentMemoryAPIView):
    """The supersession chain of a memory (oldest first) and the audit events of its versions."""

    rules = {"GET": read(_VIEW)}

    @extend_schema(responses={200: dict})
    def get(self, request, user_id: str, memory_id: int):
        item = _get_item(request, user_id, memory_id)
        scope = MemoryItem.objects.for_user(user_id)
        ids = scope.chain_ids(item.pk)
        versions = {m.pk: m for m in scope.filter(pk__in=ids).defer("embedding", "search_vector")}
        events = (AuditEvent.objects.for_user(user_id)
                  .filter(object_type="memory", object_id__in=[str(i) for i in ids]).order_by("created_at", "id"))
        return Response({
            "memory_id": item.pk,
            "current_id": ids[-1] if ids else item.pk,
            "versions": MemoryItemSerializer([versions[i] for i in ids if i in versions], many=True).data,
            "events": [
                {"id": e.pk, "created_at": e.created_at, "action": e.action, "actor": e.actor, "reason": e.reason,
                 "memory_id": int(e.object_id), "before": e.before, "after": e.after}
                for e in events
            ],
        })


class MemorySearchView(AgentMemoryAPIView):
    """Hybrid search in the user's memories, each hit with its score breakdown."""

    rules = {"POST": read(_VIEW)}

    @extend_schema(request=MemorySearchSerializer, responses={200: dict})
    def post(self, request, user_id: str):
        serializer = MemorySearchSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        agents = _key_agents(request)
        agent_id = data["agent_id"]
        if agent_id is not None:
            require_agent(request, agent_id)
        results = recall_memories(
            user_id, data["query"], top_k=data["top_k"], agent_id=agent_id,
            agent_ids=agents if agent_id is None else None, include_cold=data["include_cold"],
            include_inferred=data["include_inferred"], as_of=data["as_of"], tags=data["tags"],
        )
        return Response({
            "mode": results.mode,
            "degraded_reason": results.degraded_reason,
            "results": [
                {**MemoryItemSerializer(r.memory).data, "scores": r.as_dict()["scores"]} for r in results
            ],
        })


class ProfileView(AgentMemoryAPIView):
    """The user's summary and one current value per key of high-confidence active memories."""

    rules = {"GET": read(_VIEW)}

    @extend_schema(responses={200: dict})
    def get(self, request, user_id: str):
        agent_id = single_agent(request, request.query_params.get("agent_id"))
        return Response(get_profile(user_id, agent_id=agent_id))


class ProfileSummaryView(AgentMemoryAPIView):
    """PUT ``{"summary"}``: set the profile summary by hand. POST: regenerate it from the current memories."""

    rules = {"PUT": write("agentmemory.change_memoryprofile"), "POST": write("agentmemory.change_memoryprofile")}

    @extend_schema(request=inline_serializer("ProfileSummary", {"summary": serializers.CharField(allow_blank=True)}),
                   responses={200: dict})
    def put(self, request, user_id: str):
        summary = request.data.get("summary") if isinstance(request.data, dict) else None
        if not isinstance(summary, str) or len(summary) > 10_000:
            raise InvalidInput("summary (a text of at most 10,000 characters) is required.", field="summary")
        require_every_agent(request, "write the profile summary, which every agent of the user reads")
        set_profile_summary(user_id, summary, reason="set through the API")
        return Response(get_profile(user_id))

    @extend_schema(request=None, responses={200: dict})
    def post(self, request, user_id: str):
        require_every_agent(request, "rewrite the profile summary, which every agent of the user reads")
        result = distill_profile(user_id)
        return Response({"action": result.action, "method": result.method, "sources": result.sources,
                         "profile": get_profile(user_id)})


class UserForgetView(AgentMemoryAPIView):
    """Forget a user: every memory, history content, session, turn, profile and cache entry.

    Needs the admin scope (keys) or ``agentmemory.forget_user`` (staff); a non-staff user may forget
    themself.
    """

    rules = {"DELETE": admin_rule("agentmemory.forget_user", self_service=True)}

    @extend_schema(responses={200: DeletionReceiptSerializer})
    def delete(self, request, user_id: str):
        require_every_agent(request, "forget a user")
        reason = str(request.query_params.get("reason", ""))[:500]
        with audit_reason(reason or "api"):
            receipt = forget_user(user_id, reason=reason)
        return Response(DeletionReceiptSerializer(receipt).data)
