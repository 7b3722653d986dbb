"""Admin of the context ledger: every recorded context per user with the feedback on each item, a sampling view
for spot checks (a random N of a period, by route, with empty knowledge, degraded), token usage per user and
day (contexts and LLM jobs), and the feedback and LLM usage lists."""
from __future__ import annotations

import datetime as dt

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from ..context.ledger import daily_usage
from ..models import ContextFeedback, ContextRecord, LLMUsage
from .audit import ReadOnlyAdmin

SAMPLE_MAX = 200


@admin.register(ContextRecord)
class ContextRecordAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "user_id", "agent_id", "via", "route", "total_tokens", "degraded",
                    "knowledge_empty", "feedback_marks", "short_query"]
    list_filter = ["route", "via", "degraded", "knowledge_empty", "language"]
    search_fields = ["=user_id", "=agent_id", "=session_id"]
    date_hierarchy = "created_at"
    fields = ["created_at", "user_id", "agent_id", "session_id", "via", "route", "language", "query", "carried",
              "left_out", "token_counts", "total_tokens", "timings_ms", "degraded", "knowledge_empty", "prompt",
              "answer", "feedback_given"]
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("feedback")

    @admin.display(description=_("feedback"))
    def feedback_marks(self, obj) -> str:
        ratings = [f.rating for f in obj.feedback.all()]
        return " ".join(f"{'+' if r > 0 else '−'}{ratings.count(r)}" for r in (1, -1) if r in ratings) or "—"

    @admin.display(description=_("feedback"))
    def feedback_given(self, obj):
        return format_html_join("", "<div>{} {} · {} · {} · {}</div>", (
            ("+1" if f.rating > 0 else "−1", ", ".join(f.items) or _("whole context"), f.comment or "—",
             f.correction or "—", "; ".join(str(e.get("action", "")) for e in f.effects))
            for f in obj.feedback.all())) or "—"

    @admin.display(description=_("query"))
    def short_query(self, obj) -> str:
        return obj.query if len(obj.query) <= 60 else obj.query[:59] + "…"

    @admin.display(description=_("items"))
    def carried(self, obj):
        marks: dict[str, list[str]] = {}
        for feedback in obj.feedback.all():
            for marker in feedback.items:
                marks.setdefault(marker, []).append("👍" if feedback.rating > 0 else "👎")
        return format_html_join("", "<div>{} {} · {} · {} · {} {}</div>", (
            (item.get("marker") or "-", item.get("section"), item.get("key"), item.get("score"),
             item.get("citation") or item.get("ref", {}).get("source", ""),
             "".join(marks.get(item.get("marker") or "", []))) for item in obj.items)) or "—"

    @admin.display(description=_("dropped"))
    def left_out(self, obj):
        return format_html_join("", "<div>{} · {} · {}</div>", (
            (d.get("key"), d.get("reason"), d.get("detail", "")) for d in obj.dropped[:50])) or "—"

    def get_urls(self):
        return [path("sample/", self.admin_site.admin_view(self.sample_view), name="agentmemory_contextrecord_sample"),
                path("usage/", self.admin_site.admin_view(self.usage_view), name="agentmemory_contextrecord_usage"),
                *super().get_urls()]

    def changelist_view(self, request, extra_context=None):
        extra = {**(extra_context or {}), "title": format_html(
            '{} · <a href="{}">{}</a> · <a href="{}">{}</a>', ContextRecord._meta.verbose_name_plural,
            reverse("admin:agentmemory_contextrecord_sample"), _("sample for review"),
            reverse("admin:agentmemory_contextrecord_usage"), _("token usage"))}
        return super().changelist_view(request, extra)

    def usage_view(self, request):
        """Contexts and tokens per user and day, with the LLM tokens the user's jobs spent (``?user_id=``, ``days``)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            days = max(1, min(3650, int(request.GET.get("days") or 30)))
        except ValueError:
            days = 30
        user_id = (request.GET.get("user_id") or "").strip() or None
        rows = daily_usage(user_id=user_id, since=timezone.now() - dt.timedelta(days=days))
        totals = {key: sum(r[key] for r in rows) for key in ("contexts", "context_tokens", "llm_calls",
                                                             "llm_prompt_tokens", "llm_completion_tokens")}
        return TemplateResponse(request, "agentmemory/admin/token_usage.html", {
            **self.admin_site.each_context(request), "opts": self.model._meta, "title": _("Token usage"),
            "rows": rows, "totals": totals, "days": days, "user_id": user_id or ""})

    def sample_view(self, request):
        """A random sample of a period's contexts, for reading one by one (the seeds' spot check)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            size = max(1, min(SAMPLE_MAX, int(request.GET.get("n") or 20)))
            days = max(1, min(3650, int(request.GET.get("days") or 7)))
        except ValueError:
            size, days = 20, 7
        rows = ContextRecord.objects.filter(created_at__gte=timezone.now() - dt.timedelta(days=days))
        if request.GET.get("route"):
            rows = rows.filter(route=request.GET["route"])
        for flag in ("degraded", "knowledge_empty"):
            if request.GET.get(flag) in ("1", "true", "yes"):
                rows = rows.filter(**{flag: True})
        sample = list(rows.order_by("?")[:size])
        return TemplateResponse(request, "agentmemory/admin/context_sample.html", {
            **self.admin_site.each_context(request), "opts": self.model._meta, "title": _("Sample of contexts"),
            "rows": sample, "size": size, "days": days, "total": rows.count(),
            "route": request.GET.get("route", ""), "routes": ["knowledge", "personal", "continuation", "mixed"],
            "degraded": request.GET.get("degraded", ""), "knowledge_empty": request.GET.get("knowledge_empty", "")})


@admin.register(ContextFeedback)
class ContextFeedbackAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "user_id", "context_link", "rating", "items", "comment", "actor", "actions_taken"]
    list_filter = ["rating"]
    search_fields = ["=user_id", "=context__id"]
    fields = ["created_at", "user_id", "context", "rating", "items", "comment", "correction", "actor", "effects"]
    readonly_fields = fields

    @admin.display(description=_("context"))
    def context_link(self, obj):
        return format_html('<a href="{}">#{}</a>', reverse("admin:agentmemory_contextrecord_change",
                                                           args=[obj.context_id]), obj.context_id)

    @admin.display(description=_("effects"))
    def actions_taken(self, obj) -> str:
        return "; ".join(f"{e.get('marker', '')} {e.get('action', '')}".strip() for e in obj.effects) or "—"


@admin.register(LLMUsage)
class LLMUsageAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "user_id", "purpose", "job", "model", "calls", "prompt_tokens", "completion_tokens"]
    list_filter = ["purpose", "model"]
    search_fields = ["=user_id", "job"]
    date_hierarchy = "created_at"
