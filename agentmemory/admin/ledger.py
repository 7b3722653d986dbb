"""Admin of the context ledger: every recorded context per user, and a sampling view for spot checks
(a random N of a period, by route, with empty knowledge, degraded)."""
from __future__ import annotations

import datetime as dt

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from ..models import ContextRecord
from .audit import ReadOnlyAdmin

SAMPLE_MAX = 200


@admin.register(ContextRecord)
class ContextRecordAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "user_id", "agent_id", "via", "route", "tokens", "degraded", "knowledge_empty",
                    "short_query"]
    list_filter = ["route", "via", "degraded", "knowledge_empty", "language"]
    search_fields = ["=user_id", "=agent_id", "=session_id"]
    date_hierarchy = "created_at"
    fields = ["created_at", "user_id", "agent_id", "session_id", "via", "route", "language", "query", "carried",
              "left_out", "token_counts", "timings_ms", "degraded", "knowledge_empty", "prompt", "answer"]
    readonly_fields = fields

    @admin.display(description=_("tokens"))
    def tokens(self, obj) -> int:
        return int((obj.token_counts or {}).get("total", 0))

    @admin.display(description=_("query"))
    def short_query(self, obj) -> str:
        return obj.query if len(obj.query) <= 60 else obj.query[:59] + "…"

    @admin.display(description=_("items"))
    def carried(self, obj):
        return format_html_join("", "<div>{} {} · {} · {} · {}</div>", (
            (item.get("marker") or "-", item.get("section"), item.get("key"), item.get("score"),
             item.get("citation") or item.get("ref", {}).get("source", "")) for item in obj.items)) or "—"

    @admin.display(description=_("dropped"))
    def left_out(self, obj):
        return format_html_join("", "<div>{} · {} · {}</div>", (
            (d.get("key"), d.get("reason"), d.get("detail", "")) for d in obj.dropped[:50])) or "—"

    def get_urls(self):
        return [path("sample/", self.admin_site.admin_view(self.sample_view), name="agentmemory_contextrecord_sample"),
                *super().get_urls()]

    def changelist_view(self, request, extra_context=None):
        extra = {**(extra_context or {}), "title": format_html(
            '{} · <a href="{}">{}</a>', ContextRecord._meta.verbose_name_plural,
            reverse("admin:agentmemory_contextrecord_sample"), _("sample for review"))}
        return super().changelist_view(request, extra)

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
