"""Serializers of the long-term memory API (validation at the edge; the services validate again)."""
from __future__ import annotations

from rest_framework import serializers

from ..models import DeletionReceipt, MemoryItem


class MemoryItemSerializer(serializers.ModelSerializer):
    supersedes = serializers.PrimaryKeyRelatedField(source="supersedes_id", read_only=True)

    class Meta:
        model = MemoryItem
        fields = [
            "id", "user_id", "agent_id", "type", "key", "content", "value", "source", "confidence", "status",
            "valid_from", "valid_to", "created_at", "updated_at", "superseded_at", "supersedes", "session_id",
            "turn_id", "excerpt", "tags", "provenance", "access_count", "last_accessed_at", "embedding_model",
        ]
        read_only_fields = fields


class _Tags(serializers.DictField):
    child = serializers.CharField(max_length=200, allow_blank=True)


class MemoryCreateSerializer(serializers.Serializer):
    content = serializers.CharField(trim_whitespace=True)
    type = serializers.ChoiceField(choices=MemoryItem.Type.choices)
    key = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
    value = serializers.JSONField(required=False, allow_null=True, default=None)
    source = serializers.ChoiceField(choices=MemoryItem.Source.choices)
    confidence = serializers.FloatField(min_value=0.0, max_value=1.0, required=False, default=0.8)
    quality = serializers.FloatField(min_value=0.0, max_value=1.0, required=False, allow_null=True, default=None)
    agent_id = serializers.CharField(max_length=255, required=False, allow_blank=True, default="")
    session_id = serializers.CharField(max_length=255, required=False, allow_blank=True, default="")
    turn_id = serializers.IntegerField(required=False, allow_null=True, default=None)
    excerpt = serializers.CharField(required=False, allow_blank=True, default="", trim_whitespace=False)
    tags = _Tags(required=False, default=dict)
    valid_from = serializers.DateTimeField(required=False, allow_null=True, default=None)


class MemoryPatchSerializer(serializers.Serializer):
    content = serializers.CharField(required=False, trim_whitespace=True)
    type = serializers.ChoiceField(choices=MemoryItem.Type.choices, required=False)
    key = serializers.CharField(max_length=100, required=False, allow_blank=True)
    value = serializers.JSONField(required=False, allow_null=True)
    source = serializers.ChoiceField(choices=MemoryItem.Source.choices, required=False)
    confidence = serializers.FloatField(min_value=0.0, max_value=1.0, required=False)
    status = serializers.ChoiceField(choices=[("active", "active"), ("cold", "cold")], required=False)
    agent_id = serializers.CharField(max_length=255, required=False, allow_blank=True)
    tags = _Tags(required=False)
    valid_from = serializers.DateTimeField(required=False, allow_null=True)
    valid_to = serializers.DateTimeField(required=False, allow_null=True)
    reason = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")

    def validate(self, attrs):
        unknown = set(self.initial_data) - set(self.fields)
        if unknown:
            raise serializers.ValidationError({name: "unknown or read-only field" for name in sorted(unknown)})
        return attrs


class MemoryListQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=MemoryItem.Status.choices, required=False)
    type = serializers.ChoiceField(choices=MemoryItem.Type.choices, required=False)
    source = serializers.ChoiceField(choices=MemoryItem.Source.choices, required=False)
    key = serializers.CharField(max_length=100, required=False)
    agent_id = serializers.CharField(max_length=255, required=False, allow_blank=True)
    tag = serializers.ListField(child=serializers.RegexField(r"^[^:]{1,100}:.{1,200}$"), required=False,
                                help_text="Context tag NAME:VALUE (repeatable), e.g. project:java-billing.")
    limit = serializers.IntegerField(min_value=1, max_value=500, required=False, default=100)
    offset = serializers.IntegerField(min_value=0, max_value=2**31 - 1, required=False, default=0)


class MemorySearchSerializer(serializers.Serializer):
    query = serializers.CharField(trim_whitespace=True)
    top_k = serializers.IntegerField(min_value=1, max_value=100, required=False, default=5)
    agent_id = serializers.CharField(max_length=255, required=False, allow_blank=True, allow_null=True,
                                     default=None)
    include_cold = serializers.BooleanField(required=False, default=False)
    include_inferred = serializers.BooleanField(required=False, default=False)
    as_of = serializers.DateTimeField(required=False, allow_null=True, default=None)
    tags = serializers.DictField(child=serializers.CharField(max_length=200), required=False, allow_null=True,
                                 default=None, help_text='Only memories with all these context tags, e.g. '
                                                         '{"project": "java-billing"}.')


class WriteResultSerializer(serializers.Serializer):
    action = serializers.CharField()
    reason = serializers.CharField(allow_blank=True)
    superseded_ids = serializers.ListField(child=serializers.IntegerField())
    memory = MemoryItemSerializer(allow_null=True)


class DeletionReceiptSerializer(serializers.ModelSerializer):
    class Meta:
        model = DeletionReceipt
        fields = ["id", "kind", "subject_digest", "reason", "actor", "counts", "created_at"]
        read_only_fields = fields


class MemoryPageSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Memories matching the filters, over all pages.")
    results = MemoryItemSerializer(many=True)
