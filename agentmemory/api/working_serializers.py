"""Serializers of the sessions API: request shapes only; rules live in agentmemory.working."""
from __future__ import annotations

import datetime as dt

from rest_framework import serializers

from ..backends.summarizers.base import SummaryFields
from ..models import ExtractionRun, Session, Turn


class SessionCreateSerializer(serializers.Serializer):
    user_id = serializers.CharField(max_length=255)
    agent_id = serializers.CharField(max_length=255, required=False, allow_blank=True, default="")
    metadata = serializers.DictField(required=False, default=dict)


class TurnCreateSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Turn.Role.choices)
    # Length and emptiness are checked by the service (MAX_TURN_CHARS), with one clear message.
    content = serializers.CharField(trim_whitespace=False, allow_blank=True)
    metadata = serializers.DictField(required=False, default=dict)
    said_at = serializers.DateTimeField(
        required=False, allow_null=True, default=None,
        help_text="When the message was said, for a conversation imported after the fact (never in the future); "
                  "default now. Memories extracted from it hold that time as when they became true.")

    def validate_said_at(self, value):
        from django.utils import timezone

        if value is not None and value > timezone.now() + dt.timedelta(minutes=5):
            raise serializers.ValidationError("said_at is in the future.")
        return value


class SessionPatchSerializer(serializers.Serializer):
    task_state = serializers.DictField(help_text="Merged key by key into the task state; a null value removes a key.")
    replace = serializers.BooleanField(required=False, default=False,
                                       help_text="Replace the whole task state instead of merging.")


class TurnSerializer(serializers.ModelSerializer):
    class Meta:
        model = Turn
        fields = ["id", "seq", "role", "content", "created_at", "token_count", "high_priority", "metadata"]


class SessionSerializer(serializers.ModelSerializer):
    id = serializers.CharField(read_only=True)
    summary_fields = serializers.SerializerMethodField(
        help_text='The summary as fields: {"goal": "...", "confirmed": [...], "open": [...]}; "summary" is its text.')

    class Meta:
        model = Session
        fields = ["id", "user_id", "agent_id", "status", "metadata", "started_at", "last_activity_at", "ended_at",
                  "archived_at", "turn_count", "summary", "summary_fields", "summary_covers_seq", "summary_updated_at",
                  "task_state", "extracted_up_to"]


    def get_summary_fields(self, obj: Session) -> dict:
        return SummaryFields.from_session(obj.summary_fields, obj.summary).as_dict()


class ExtractionRunSerializer(serializers.ModelSerializer):
    counts = serializers.SerializerMethodField()

    class Meta:
        model = ExtractionRun
        fields = ["id", "kind", "trigger", "first_seq", "last_seq", "status", "attempts", "error", "extractor",
                  "counts", "created_at", "started_at", "finished_at"]

    def get_counts(self, run: ExtractionRun) -> dict:
        return run.counts()


class SessionListSerializer(serializers.Serializer):
    results = SessionSerializer(many=True)
