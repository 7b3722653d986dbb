"""Serializers of the search API: request shape only; the search service validates the meaning."""
from __future__ import annotations

from rest_framework import serializers

from ..knowledge.search import MAX_TOP_K, MODES


class SearchRequestSerializer(serializers.Serializer):
    query = serializers.CharField(allow_blank=True, trim_whitespace=False,
                                  help_text="The question or keywords (at most MAX_QUERY_CHARS characters).")
    top_k = serializers.IntegerField(default=5, min_value=1, max_value=MAX_TOP_K, help_text="Results to return.")
    mode = serializers.ChoiceField(choices=MODES, default="hybrid", help_text="hybrid, vector or keyword.")
    thresholds = serializers.DictField(required=False, allow_null=True, child=serializers.FloatField(allow_null=True),
                                       help_text='Per-channel minimums: {"cosine": 0.8, "bm25": 1.5, "rerank": 0}.')
    rerank = serializers.BooleanField(required=False, allow_null=True, default=None,
                                      help_text="Rerank the fused list (default: when a reranker is configured).")
    rewrite = serializers.BooleanField(default=False, help_text="Rewrite the query with the LLM first.")
    floor = serializers.BooleanField(default=True, help_text="Apply the relevance floor (the base's, or the "
                                                             "default): false shows every fused hit.")
    filters = serializers.DictField(required=False, allow_null=True,
                                    help_text='{"document_ids": [..], "external_ids": [..], "metadata": {..}}.')


class MultiSearchRequestSerializer(SearchRequestSerializer):
    knowledge_bases = serializers.ListField(child=serializers.CharField(), required=False, allow_null=True,
                                            allow_empty=False,
                                            help_text="Slugs of the knowledge bases to search (default: all).")


class SearchHitSerializer(serializers.Serializer):
    chunk_id = serializers.IntegerField()
    document_id = serializers.IntegerField()
    document_external_id = serializers.CharField()
    document_title = serializers.CharField()
    knowledge_base = serializers.CharField()
    version = serializers.IntegerField()
    version_id = serializers.IntegerField()
    position = serializers.IntegerField()
    heading_path = serializers.CharField()
    text = serializers.CharField()
    citation = serializers.CharField()
    score = serializers.FloatField()
    score_kind = serializers.CharField()
    channels = serializers.DictField()
    explanation = serializers.CharField()
    duplicates = serializers.ListField(child=serializers.DictField(),
                                       help_text="Other documents' copies of this text, cited, not repeated as hits.")


class SearchResponseSerializer(serializers.Serializer):
    query = serializers.CharField()
    mode = serializers.CharField()
    hits = SearchHitSerializer(many=True)
    trace = serializers.DictField()


class EvaluationCaseSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    query = serializers.CharField(max_length=2000, help_text="The question as a user would ask it.")
    expected_chunk_ids = serializers.ListField(child=serializers.IntegerField(min_value=1), required=False,
                                               default=list, help_text="Chunks a good answer comes from.")
    expected_document_ids = serializers.ListField(child=serializers.IntegerField(min_value=1), required=False,
                                                  default=list, help_text="Or whole documents.")
    rejected_chunk_ids = serializers.ListField(child=serializers.IntegerField(), read_only=True,
                                               help_text="Chunks a user marked as not answering it (feedback).")
    note = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")
    source = serializers.CharField(read_only=True)
    accepted = serializers.BooleanField(read_only=True, help_text="False for a proposal not yet accepted.")
    created_at = serializers.DateTimeField(read_only=True)


class EvaluationRunSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    trigger = serializers.CharField(read_only=True)
    status = serializers.CharField(read_only=True)
    case_count = serializers.IntegerField(read_only=True)
    metrics = serializers.DictField(read_only=True, help_text='Per mode: {"hybrid": {"recall@5": ..}, ...}.')
    hybrid_recall_at_5 = serializers.FloatField(read_only=True, allow_null=True)
    previous_recall_at_5 = serializers.FloatField(read_only=True, allow_null=True)
    recall_dropped = serializers.BooleanField(read_only=True)
    error = serializers.CharField(read_only=True)
    started_at = serializers.DateTimeField(read_only=True)
    finished_at = serializers.DateTimeField(read_only=True, allow_null=True)
