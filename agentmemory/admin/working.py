"""Admin of working memory: sessions with their turns, and read-only extraction runs."""
from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from ..models import ExtractionRun, Session, Turn
from ..redact import redact
from ..tasks.working import enqueue_extraction, enqueue_summary
from ..working.sessions import end_session
from .audit import ReadOnlyAdmin
from .backlog import BacklogWarningMixin


class TurnInline(admin.TabularInline):
    model = Turn
    extra = 0
    fields = ["anchored_seq", "role", "redacted_content", "high_priority", "token_count", "created_at"]
    readonly_fields = fields
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=_("seq"))
    def anchored_seq(self, obj: Turn) -> str:
        # Memories link to their source turn as session/#turn-N.
        return format_html('<span id="turn-{}">{}</span>', obj.seq, obj.seq)

    @admin.display(description=_("content (PII masked)"))
    def redacted_content(self, obj: Turn) -> str:
        return redact(obj.content)


class ExtractionRunInline(admin.TabularInline):
    model = ExtractionRun
    extra = 0
    fields = ["kind", "trigger", "first_seq", "last_seq", "status", "attempts", "error", "finished_at"]
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = ["id", "user_id", "agent_id", "status", "turn_count", "extracted_up_to", "last_activity_at",
                    "ended_at"]
    list_filter = ["status"]
    search_fields = ["id", "user_id", "agent_id"]
    date_hierarchy = "last_activity_at"
    readonly_fields = ["id", "user_id", "agent_id", "status", "started_at", "last_activity_at", "ended_at",
                       "archived_at", "turn_count", "redacted_summary", "summary_covers_seq", "summary_updated_at",
                       "extracted_up_to", "metadata", "task_state"]
    # The summary is shown once, PII-masked (redacted_summary), not also as the raw model field.
    exclude = ["summary"]
    inlines = [TurnInline, ExtractionRunInline]
    actions = ["end_and_extract", "refresh_summary"]

    def has_add_permission(self, request) -> bool:
        return False  # sessions are started by agents through the API

    @admin.display(description=_("rolling summary (PII masked)"))
    def redacted_summary(self, obj: Session) -> str:
        return redact(obj.summary) or "-"

    @admin.action(description=_("End selected sessions and extract their memories"), permissions=["change"])
    def end_and_extract(self, request, queryset):
        queued = 0
        for session in queryset:
            run = end_session(session)
            if run is not None and run.status != run.Status.SUCCEEDED:
                enqueue_extraction(run.pk)
                queued += 1
        self.message_user(request, _("Ended %(count)s session(s); queued %(queued)s extraction(s).") % {"count": queryset.count(), "queued": queued})

    @admin.action(description=_("Fold older turns into the rolling summary"), permissions=["change"])
    def refresh_summary(self, request, queryset):
        for session in queryset:
            enqueue_summary(session.pk)
        self.message_user(request, _("Queued a summary update for %(count)s session(s).") % {"count": queryset.count()})


@admin.register(ExtractionRun)
class ExtractionRunAdmin(BacklogWarningMixin, ReadOnlyAdmin):
    def has_retry_permission(self, request) -> bool:
        return request.user.has_perm("agentmemory.change_session")

    list_display = ["id", "session", "user_id", "kind", "trigger", "first_seq", "last_seq", "status", "attempts",
                    "created_at"]
    list_filter = ["status", "kind", "trigger"]
    search_fields = ["user_id", "session__id"]
    list_select_related = ["session"]
    readonly_fields = ["session", "user_id", "kind", "trigger", "first_seq", "last_seq", "status", "extractor",
                       "attempts", "error", "decisions", "created_at", "started_at", "finished_at"]

    @admin.display(description=_("decisions"))
    def decisions(self, obj: ExtractionRun) -> str:
        """Each extracted item with what was done with it and why (stored, merged, superseded, rejected)."""
        results = {row.get("item"): row for row in obj.results or []}
        rows = []
        for index, item in enumerate(obj.items or []):
            row = results.get(index, {})
            memory = row.get("memory_id")
            link = format_html('<a href="{}">#{}</a>', reverse("admin:agentmemory_memoryitem_change", args=[memory]),
                               memory) if memory else "-"
            rows.append((index, item.get("type", ""), item.get("key", ""), redact(item.get("content", "")),
                         row.get("action", "pending"), row.get("reason", ""), link))
        if not rows:
            return "-"
        return format_html(
            "<table><tr><th>#</th><th>type</th><th>key</th><th>content</th><th>decision</th><th>reason</th>"
            "<th>memory</th></tr>{}</table>",
            format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                                 "</tr>", rows))
    actions = ["retry_runs"]

    @admin.action(description=_("Retry selected runs (failed or interrupted)"), permissions=["retry"])
    def retry_runs(self, request, queryset):
        ids = list(queryset.exclude(status=ExtractionRun.Status.SUCCEEDED).values_list("pk", flat=True))
        for run_id in ids:
            enqueue_extraction(run_id)
        self.message_user(request, _("Queued %(count)s extraction run(s).") % {"count": len(ids)})
