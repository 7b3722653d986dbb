"""Serializers of the context API: the request, and the ContextBundle as JSON."""
from __future__ import annotations

from typing import Any

from rest_framework import serializers

from ..context.route import ROUTES
from ..models import ContextFeedback, ContextRecord
from ..timestamps import iso
from ..types import ContextBundle, ContextItem


class ContextRequestSerializer(serializers.Serializer):
    user_id = serializers.CharField(max_length=255, help_text="The end user the agent is talking to.")
    agent_id = serializers.CharField(max_length=255, required=False, allow_null=True, default=None,
                                     help_text="The agent asking; its own memories are added to the shared ones.")
    session_id = serializers.CharField(max_length=64, required=False, allow_null=True, allow_blank=True,
                                       default=None, help_text="The current session (working memory).")
    query = serializers.CharField(trim_whitespace=False, help_text="The user's current message.")
    knowledge_bases = serializers.ListField(child=serializers.CharField(max_length=100), required=False,
                                            allow_null=True, default=None, allow_empty=False,
                                            help_text="Knowledge base slugs to search (default: all).")
    token_budget = serializers.IntegerField(min_value=1, max_value=1_000_000, required=False, allow_null=True,
                                            default=None, help_text="Token budget of the prompt (default 4000).")
    route = serializers.ChoiceField(choices=ROUTES, required=False, allow_null=True, default=None,
                                    help_text="Force a route instead of the rules' or classifier's choice.")
    language = serializers.ChoiceField(choices=["zh", "en"], required=False, allow_null=True, default=None,
                                       help_text="Language of the prompt's labels and instructions (default: the "
                                                 "query's, else AGENTMEMORY['LANGUAGE']).")
    record = serializers.BooleanField(required=False, default=True,
                                      help_text="Record this context in the ledger (contexts/); default true "
                                                "(AGENTMEMORY['CONTEXT_LEDGER']).")


class FeedbackRequestSerializer(serializers.Serializer):
    """Body of POST contexts/{id}/feedback/ (validated again by context/feedback.give_feedback)."""

    rating = serializers.IntegerField(help_text="1 (helpful) or -1 (not helpful).")
    items = serializers.ListField(child=serializers.CharField(max_length=8), required=False, default=list,
                                  help_text='Markers of the items it is about, e.g. ["M2", "K1"]; empty: the context.')
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000)
    correction = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=2000,
        help_text="What is true instead (rating -1): becomes a user-stated memory superseding the marked one.")


class ContextFeedbackSerializer(serializers.ModelSerializer):
    """One feedback on a context, with what it changed."""

    class Meta:
        model = ContextFeedback
        fields = ["id", "context", "rating", "items", "comment", "correction", "actor", "effects", "created_at"]


class ContextRecordSerializer(serializers.ModelSerializer):
    """One row of the context ledger (contexts/), with the feedback given on it."""

    feedback = ContextFeedbackSerializer(many=True, read_only=True)

    class Meta:
        model = ContextRecord
        fields = ["id", "user_id", "agent_id", "session_id", "via", "route", "language", "query", "items", "dropped",
                  "token_counts", "total_tokens", "timings_ms", "degraded", "knowledge_empty", "prompt", "answer",
                  "feedback", "created_at"]


class TokenUsageSerializer(serializers.Serializer):
    """One user's contexts and tokens on one UTC day (contexts/usage/)."""

    day = serializers.DateField()
    contexts = serializers.IntegerField()
    context_tokens = serializers.IntegerField(help_text="Sum of the contexts' token_counts.total.")
    llm_calls = serializers.IntegerField()
    llm_prompt_tokens = serializers.IntegerField()
    llm_completion_tokens = serializers.IntegerField()


class ContextItemSerializer(serializers.Serializer):
    layer = serializers.CharField()
    kind = serializers.CharField()
    label = serializers.CharField(help_text="Citation marker in the prompt ([K#], [M#]) when it has one.")
    text = serializers.CharField()
    source = serializers.CharField(help_text="Source label: citation, memory source, turn role.")
    timestamp = serializers.DateTimeField(allow_null=True)
    score = serializers.FloatField()
    relevance = serializers.FloatField()
    decay = serializers.FloatField()
    weight = serializers.FloatField()
    tokens = serializers.IntegerField()
    ref = serializers.DictField(help_text="Ids (memory_id, chunk_id, document_id, seq...) and citation.")


class ContextSectionsSerializer(serializers.Serializer):
    profile = ContextItemSerializer(many=True)
    long_term_memory = ContextItemSerializer(many=True)
    knowledge = ContextItemSerializer(many=True)
    working_memory = ContextItemSerializer(many=True)
    current_message = ContextItemSerializer()


class ContextResponseSerializer(serializers.Serializer):
    route = serializers.ChoiceField(choices=ROUTES)
    sections = ContextSectionsSerializer()
    prompt = serializers.CharField()
    token_counts = serializers.DictField(child=serializers.IntegerField())
    trace = serializers.DictField()


class AnswerResponseSerializer(serializers.Serializer):
    answer = serializers.CharField()
    citations = serializers.ListField(child=serializers.DictField())
    model = serializers.CharField()
    context = ContextResponseSerializer()


_SOURCE_LABELS = {"user_stated": "user_stated", "model_inferred": "model_inferred", "system_log": "system_log"}


def item_as_dict(item: ContextItem) -> dict[str, Any]:
    ref = {k: v for k, v in item.ref.items() if k != "raw"}
    source = item.source or _SOURCE_LABELS.get(str(item.ref.get("source", "")), "") or str(item.ref.get("role", ""))
    return {
        "layer": item.layer, "kind": item.kind, "label": item.label, "text": item.text, "source": source,
        "timestamp": iso(item.timestamp),
        "score": item.score, "relevance": round(item.relevance, 6), "decay": round(item.decay, 6),
        "weight": item.weight, "tokens": item.tokens, "ref": ref,
    }


def bundle_as_dict(bundle: ContextBundle) -> dict[str, Any]:
    sections: dict[str, Any] = {name: [item_as_dict(it) for it in bundle.sections.get(name, [])]
                                for name in ("profile", "long_term_memory", "knowledge", "working_memory")}
    current = bundle.sections.get("current_message") or []
    sections["current_message"] = item_as_dict(current[0]) if current else None
    return {"context_id": bundle.context_id, "route": bundle.route, "sections": sections, "prompt": bundle.prompt,
            "token_counts": bundle.token_counts, "trace": bundle.trace}
