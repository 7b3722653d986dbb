"""mem0-familiar REST verbs under ``v1/memories/``: add, search, get_all, get, update, delete, delete_all,
history. Shapes follow mem0's (``{"results": [...]}``, ``memory``, ``event``); agentmemory's own fields
(type, key, source, confidence, status, provenance) ride along. docs/clients.md maps one to the other.
"""
from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers, status
from rest_framework.response import Response

from ..exceptions import InvalidInput
from ..memory.forget import delete_memory
from ..memory.recall import recall_memories
from ..memory.write import update_memory
from ..models import AuditEvent, MemoryItem
from ..validation import validate_user_id
from ..working.add import add_messages
from .access import (
    principal_of,
    read,
    require_agent,
    require_every_agent,
    require_user,
    visible_memory,
    write,
)
from .base import AgentMemoryAPIView
from .schema import extend_schema

_USER_PARAM = OpenApiParameter("user_id", str, required=True, description="The end user.")
EVENTS = {"created": "ADD", "superseded_previous": "UPDATE", "merged": "NONE", "unchanged": "NONE",
          "quarantined": "NONE"}
_VIEW = "agentmemory.view_memoryitem"


def mem0_memory(item: MemoryItem, score: float | None = None) -> dict[str, Any]:
    body = {
        "id": item.pk, "memory": item.content, "user_id": item.user_id, "agent_id": item.agent_id or None,
        "metadata": item.tags or {}, "categories": [item.type], "created_at": item.created_at,
        "updated_at": item.updated_at,
        # agentmemory's own
        "type": item.type, "key": item.key, "value": item.value, "source": item.source,
        "confidence": item.confidence, "status": item.status, "supersedes": item.supersedes_id,
        "provenance": {"session_id": item.session_id or None, "turn_id": item.turn_id, "excerpt": item.excerpt},
    }
    if score is not None:
        body["score"] = score
    return body


class AddSerializer(serializers.Serializer):
    messages = serializers.JSONField(help_text="[{role, content}, ...] or one string (a user message).")
    user_id = serializers.CharField(max_length=255)
    agent_id = serializers.CharField(max_length=255, required=False, allow_null=True, allow_blank=True, default="")
    metadata = serializers.DictField(required=False, allow_null=True, default=None,
                                     help_text="Stored as the memories' context tags.")
    infer = serializers.BooleanField(default=True, help_text="Extract through the session pipeline; false: "
                                                             "store each user message as given.")
    async_mode = serializers.BooleanField(default=False, help_text="With infer: queue the extraction (202).")


class SearchSerializer(serializers.Serializer):
    query = serializers.CharField(max_length=2000)
    user_id = serializers.CharField(max_length=255)
    agent_id = serializers.CharField(max_length=255, required=False, allow_null=True, default=None)
    top_k = serializers.IntegerField(min_value=1, max_value=50, default=10)
    limit = serializers.IntegerField(min_value=1, max_value=50, required=False, help_text="mem0's name for top_k.")
    filters = serializers.DictField(required=False, default=dict,
                                    help_text='{"type": .., "key": .., "source": .., "categories": [..], '
                                              '"metadata": {context tags}}')


class UpdateSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=2000, help_text="The corrected memory; a new version supersedes it.")


def _filtered(items, filters: dict) -> list:
    wanted_types = set(filters.get("categories") or []) | ({filters["type"]} if filters.get("type") else set())
    out = []
    for item in items:
        memory = getattr(item, "memory", item)
        if wanted_types and memory.type not in wanted_types:
            continue
        if any(filters.get(name) and getattr(memory, name) != filters[name] for name in ("key", "source")):
            continue
        out.append(item)
    return out


def _user_request(request, serializer_class: type[serializers.Serializer]) -> tuple[dict, str]:
    """The validated body and its ``user_id``, which the caller must be allowed to act for."""
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    data = serializer.validated_data
    user_id = validate_user_id(data["user_id"])
    require_user(request, user_id)
    return data, user_id


def _item_for(request, memory_id: int) -> MemoryItem:
    """The memory ``memory_id`` if the caller may see it (404 otherwise: existence is not told)."""
    return visible_memory(principal_of(request), memory_id)


class Mem0MemoriesView(AgentMemoryAPIView):
    """POST: add (mem0 ``add``). GET ?user_id=: get_all. DELETE ?user_id=: delete_all (memories only)."""

    rules = {"POST": write("agentmemory.add_memoryitem"), "GET": read(_VIEW),
             "DELETE": write("agentmemory.delete_memoryitem")}

    @extend_schema(operation_id="mem0_add", request=AddSerializer, responses={200: dict, 202: dict})
    def post(self, request):
        data, user_id = _user_request(request, AddSerializer)
        agent_id = self.principal.default_agent(data["agent_id"]) or ""
        require_agent(request, agent_id or None)
        outcome = add_messages(user_id, data["messages"], agent_id=agent_id, metadata=data["metadata"],
                               infer=data["infer"], wait=not data["async_mode"])
        if outcome.status == "queued":
            return Response({"status": "queued", "session_id": outcome.session_id, "run_id": outcome.run_id,
                             "poll": f"sessions/{outcome.session_id}/extraction/"}, status=status.HTTP_202_ACCEPTED)
        ids = [r["memory_id"] for r in outcome.results if r["memory_id"]]
        items = {m.pk: m for m in MemoryItem.objects.for_user(user_id).filter(pk__in=ids)}
        results = [{**mem0_memory(items[r["memory_id"]]), "event": EVENTS.get(r["action"], "NONE")}
                   for r in outcome.results if r["memory_id"] in items and r["action"] != "rejected"]
        rejected = [{"content": r["content"], "reason": r["reason"]} for r in outcome.results
                    if r["action"] == "rejected"]
        return Response({"results": results, "rejected": rejected, "session_id": outcome.session_id})

    def _user(self, request) -> str:
        user_id = request.query_params.get("user_id", "").strip()
        if not user_id:
            raise InvalidInput("user_id is required.", field="user_id")
        validate_user_id(user_id)
        require_user(request, user_id)
        return user_id

    @extend_schema(operation_id="mem0_get_all", parameters=[_USER_PARAM], responses={200: dict})
    def get(self, request):
        user_id = self._user(request)
        qs = MemoryItem.objects.for_user(user_id).current().defer("embedding", "search_vector")
        limit = self.principal.agent_limit
        if limit is not None:
            qs = qs.visible_to_agents(limit)
        filters = {k: request.query_params.get(k) for k in ("type", "key", "source") if request.query_params.get(k)}
        items = _filtered(qs.order_by("-created_at", "-id")[:1000], filters)
        return Response({"results": [mem0_memory(m) for m in items]})

    @extend_schema(operation_id="mem0_delete_all", parameters=[_USER_PARAM], responses={200: dict})
    def delete(self, request):
        user_id = self._user(request)
        require_every_agent(request, "delete all of a user's memories (delete them one by one)")
        ids = list(MemoryItem.objects.for_user(user_id).current().values_list("pk", flat=True))
        receipts = [delete_memory(user_id, pk, reason="delete_all").pk for pk in ids
                    if MemoryItem.objects.for_user(user_id).filter(pk=pk).exclude(
                        status=MemoryItem.Status.DELETED).exists()]
        return Response({"message": "Memories deleted successfully!", "deleted": len(receipts),
                         "receipt_ids": receipts})


class Mem0SearchView(AgentMemoryAPIView):
    """mem0 ``search``: the user's memories most relevant to a query, best first, with a score."""

    rules = {"POST": read(_VIEW)}

    @extend_schema(request=SearchSerializer, responses={200: dict})
    def post(self, request):
        data, user_id = _user_request(request, SearchSerializer)
        if data["agent_id"] is not None:
            require_agent(request, data["agent_id"])
        top_k = data.get("limit") or data["top_k"]
        filters = data["filters"]
        hits = recall_memories(user_id, data["query"], top_k=top_k * 3 if filters else top_k,
                               agent_id=data["agent_id"], tags=filters.get("metadata") or None,
                               agent_ids=self.principal.agent_limit if data["agent_id"] is None else None)
        mode = hits.mode
        hits = _filtered(hits, filters)[:top_k]
        return Response({"results": [mem0_memory(h.memory, round(h.scores.final, 6)) for h in hits], "mode": mode})


class Mem0MemoryView(AgentMemoryAPIView):
    """mem0 ``get`` / ``update`` / ``delete`` of one memory, addressed by its id alone."""

    rules = {"GET": read(_VIEW), "PUT": write("agentmemory.change_memoryitem"),
             "DELETE": write("agentmemory.delete_memoryitem")}

    @extend_schema(responses={200: dict})
    def get(self, request, memory_id: int):
        return Response(mem0_memory(_item_for(request, memory_id)))

    @extend_schema(request=UpdateSerializer, responses={200: dict})
    def put(self, request, memory_id: int):
        item = _item_for(request, memory_id)
        serializer = UpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        changes: dict[str, Any] = {"content": serializer.validated_data["text"]}
        if self.principal.kind == "user":
            changes["source"] = MemoryItem.Source.USER_STATED
        result = update_memory(item.user_id, item.pk, changes=changes, reason="update")
        new = MemoryItem.objects.for_user(item.user_id).get(pk=result.memory_id)
        return Response({**mem0_memory(new), "event": EVENTS.get(result.action, "NONE"),
                         "previous_id": item.pk if new.pk != item.pk else None})

    @extend_schema(responses={200: dict})
    def delete(self, request, memory_id: int):
        item = _item_for(request, memory_id)
        receipt = delete_memory(item.user_id, item.pk, reason=str(request.query_params.get("reason", ""))[:500])
        return Response({"message": "Memory deleted successfully!", "receipt_id": receipt.pk})


class Mem0HistoryView(AgentMemoryAPIView):
    """mem0 ``history``: how a memory changed, oldest first (ADD, UPDATE, DELETE)."""

    rules = {"GET": read(_VIEW)}

    @extend_schema(responses={200: dict})
    def get(self, request, memory_id: int):
        # A deleted memory still has a history (its DELETE); an agent-limited key sees only its agents'.
        owner = visible_memory(self.principal, memory_id, include_deleted=True).user_id
        scope = MemoryItem.objects.for_user(owner)
        ids = scope.chain_ids(memory_id)
        versions = {m.pk: m for m in scope.filter(pk__in=ids).defer("embedding", "search_vector")}
        entries = []
        previous = None
        for pk in ids:
            version = versions.get(pk)
            if version is None:
                continue
            entries.append({"id": f"{pk}:add", "memory_id": pk, "old_memory": previous, "new_memory": version.content,
                            "event": "ADD" if previous is None else "UPDATE", "created_at": version.created_at,
                            "source": version.source, "status": version.status})
            previous = version.content
        deletions = (AuditEvent.objects.for_user(owner)
                     .filter(object_type="memory", object_id__in=[str(i) for i in ids], action="delete"))
        for event in deletions.order_by("created_at", "id"):
            entries.append({"id": f"{event.object_id}:delete:{event.pk}", "memory_id": int(event.object_id),
                            "old_memory": previous, "new_memory": None, "event": "DELETE",
                            "created_at": event.created_at, "actor": event.actor})
        return Response(entries)
