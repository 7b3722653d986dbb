"""Admin of long-term memory: items with their history (edits go through the write service), receipts read-only."""
from __future__ import annotations

import hashlib

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.utils.html import format_html, format_html_join

from ..audit import audit_context
from ..memory.forget import delete_memory
from ..memory.profile import set_profile_summary
from ..memory.quality import assess_quality
from ..memory.write import update_memory, write_memory
from ..models import AuditEvent, DeletionReceipt, MemoryItem, MemoryProfile
from ..types import MemoryDraft
from .audit import ReadOnlyAdmin

_EDITABLE = ["user_id", "agent_id", "type", "key", "content", "value", "source", "confidence", "status", "tags",
             "valid_from", "valid_to"]


def _actor(request) -> str:
    return f"admin:{request.user.get_username()}"


class MemoryItemForm(forms.ModelForm):
    class Meta:
        model = MemoryItem
        fields = _EDITABLE

    def clean(self):
        data = super().clean()
        if self.instance.pk is None:
            if data.get("source") != MemoryItem.Source.SYSTEM_LOG and data.get("content"):
                verdict = assess_quality(data["content"])
                if not verdict.passed:
                    raise forms.ValidationError(f"Rejected by the quality gate: {verdict.reason}")
        elif data.get("status") not in (MemoryItem.Status.ACTIVE, MemoryItem.Status.COLD):
            self.add_error("status", "Set active or cold; delete the item to delete it.")
        return data


@admin.register(MemoryItem)
class MemoryItemAdmin(admin.ModelAdmin):
    form = MemoryItemForm
    list_display = ["id", "user_id", "agent_id", "type", "key", "short_content", "source", "confidence", "status",
                    "access_count", "created_at"]
    list_filter = ["status", "type", "source"]
    search_fields = ["=user_id", "key", "content"]
    date_hierarchy = "created_at"
    list_per_page = 50
    readonly_fields = ["history", "provenance", "session_id", "turn_id", "excerpt", "supersedes_link",
                       "superseded_at", "created_at", "updated_at", "access_count", "last_accessed_at",
                       "embedding_model"]
    actions = ["mark_cold"]

    def get_queryset(self, request):
        # Staff see every user's memories here; vectors are never loaded or rendered.
        return MemoryItem.objects.get_queryset().defer("embedding", "search_vector")

    def get_fields(self, request, obj=None):
        if obj is None:
            return [f for f in _EDITABLE if f not in ("status", "valid_to")]
        return [*_EDITABLE, *self.readonly_fields]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        return ["user_id", *self.readonly_fields]

    def has_change_permission(self, request, obj=None) -> bool:
        if obj is not None and obj.status in (MemoryItem.Status.SUPERSEDED, MemoryItem.Status.DELETED):
            return False  # history is read-only: edit the current version
        return super().has_change_permission(request, obj)

    @admin.display(description="content")
    def short_content(self, obj: MemoryItem) -> str:
        return obj.content if len(obj.content) <= 80 else obj.content[:79] + "…"

    @admin.display(description="supersedes")
    def supersedes_link(self, obj: MemoryItem) -> str:
        if not obj.supersedes_id:
            return "-"
        return format_html('<a href="../../{}/change/">#{}</a>', obj.supersedes_id, obj.supersedes_id)

    @admin.display(description="history")
    def history(self, obj: MemoryItem) -> str:
        scope = MemoryItem.objects.for_user(obj.user_id)
        ids = scope.chain_ids(obj.pk)
        versions = scope.filter(pk__in=ids).only("id", "status", "content", "source", "created_at")
        by_id = {v.pk: v for v in versions}
        version_rows = format_html_join(
            "", "<tr><td>#{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((i, by_id[i].status, by_id[i].source, by_id[i].content, f"{by_id[i].created_at:%Y-%m-%d %H:%M}")
             for i in ids if i in by_id),
        )
        events = (AuditEvent.objects.for_user(obj.user_id)
                  .filter(object_type="memory", object_id__in=[str(i) for i in ids]).order_by("created_at", "id"))
        event_rows = format_html_join(
            "", "<tr><td>{}</td><td>#{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((f"{e.created_at:%Y-%m-%d %H:%M:%S}", e.object_id, e.action, e.actor, e.reason) for e in events),
        )
        return format_html(
            "<table><tr><th>version</th><th>status</th><th>source</th><th>content</th><th>created</th></tr>{}"
            "</table><table><tr><th>when</th><th>item</th><th>action</th><th>actor</th><th>reason</th></tr>{}"
            "</table>", version_rows, event_rows,
        )

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        with audit_context(_actor(request), "admin"):
            if not change:
                result = write_memory(data["user_id"], MemoryDraft(
                    content=data["content"], type=data["type"], source=data["source"], key=data.get("key") or "",
                    value=data.get("value"), confidence=data["confidence"], agent_id=data.get("agent_id") or "",
                    tags=data.get("tags") or {}, valid_from=data.get("valid_from"),
                ))
            else:
                changes = {name: data[name] for name in form.changed_data if name in _EDITABLE and name != "user_id"}
                result = update_memory(obj.user_id, obj.pk, changes=changes, reason="admin edit")
        if result.memory_id is None:
            messages.error(request, f"Not stored: {result.reason}")
            return
        obj.pk = result.memory_id
        obj.refresh_from_db()
        messages.info(request, f"{result.action}: {result.reason}" if result.reason else result.action)

    def delete_model(self, request, obj):
        with audit_context(_actor(request), "admin delete"):
            delete_memory(obj.user_id, obj.pk, reason="admin delete")

    def delete_queryset(self, request, queryset):
        for pk, user_id in queryset.exclude(status=MemoryItem.Status.DELETED).values_list("pk", "user_id"):
            if MemoryItem.objects.for_user(user_id).filter(pk=pk).exclude(status=MemoryItem.Status.DELETED).exists():
                self.delete_model(request, MemoryItem(pk=pk, user_id=user_id))

    @admin.action(description="Mark selected memories cold")
    def mark_cold(self, request, queryset):
        count = 0
        with audit_context(_actor(request), "admin action"):
            for pk, user_id in queryset.filter(status=MemoryItem.Status.ACTIVE).values_list("pk", "user_id"):
                update_memory(user_id, pk, changes={"status": MemoryItem.Status.COLD}, reason="admin action")
                count += 1
        self.message_user(request, f"Marked {count} memory item(s) cold.")


class MemoryProfileForm(forms.ModelForm):
    class Meta:
        model = MemoryProfile
        fields = ["user_id", "summary"]


@admin.register(MemoryProfile)
class MemoryProfileAdmin(admin.ModelAdmin):
    form = MemoryProfileForm
    list_display = ["user_id", "updated_at"]
    search_fields = ["=user_id"]

    def get_readonly_fields(self, request, obj=None):
        return ["user_id", "updated_at"] if obj is not None else ["updated_at"]

    def save_model(self, request, obj, form, change):
        with audit_context(_actor(request), "admin"), transaction.atomic():
            row = set_profile_summary(obj.user_id, form.cleaned_data["summary"], reason="admin edit")
        obj.pk = row.pk
        obj.refresh_from_db()


@admin.register(DeletionReceipt)
class DeletionReceiptAdmin(ReadOnlyAdmin):
    list_display = ["id", "kind", "created_at", "actor", "reason", "counts"]
    list_filter = ["kind"]
    search_fields = ["subject_digest", "reason"]
    date_hierarchy = "created_at"

    def get_search_results(self, request, queryset, search_term):
        # Receipts never hold the user id: a search for one looks for its digest.
        if search_term:
            digest = hashlib.sha256(search_term.strip().encode("utf-8")).hexdigest()
            queryset, _dup = super().get_search_results(request, queryset, search_term)
            return queryset | DeletionReceipt.objects.filter(subject_digest=digest), False
        return super().get_search_results(request, queryset, search_term)
