"""Read-only audit screen."""
from __future__ import annotations

from django.contrib import admin

from ..models import AuditEvent


class ReadOnlyAdmin(admin.ModelAdmin):
    """Base for screens that only show history."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "action", "object_type", "object_id", "user_id", "actor", "reason"]
    list_filter = ["action", "object_type"]
    search_fields = ["object_id", "user_id", "actor", "reason"]
    date_hierarchy = "created_at"
