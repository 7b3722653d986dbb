"""Admin for API keys: a new key is shown once, on creation; keys are revoked, never edited."""
from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.utils import timezone

from ..api_keys import create_api_key, revoke_api_key
from ..models import ApiKey


class ApiKeyCreateForm(forms.ModelForm):
    class Meta:
        model = ApiKey
        fields = ["name", "agent_ids"]


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ["name", "prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "prefix"]
    readonly_fields = ["prefix", "created_at", "last_used_at", "revoked_at"]
    actions = ["revoke_keys"]

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = ApiKeyCreateForm
        return super().get_form(request, obj, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        if obj is not None:
            return [*self.readonly_fields, "name"]
        return []

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["name", "agent_ids"]
        return ["name", "prefix", "agent_ids", "created_at", "last_used_at", "revoked_at"]

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        key, raw = create_api_key(form.cleaned_data["name"], agent_ids=form.cleaned_data.get("agent_ids") or [])
        obj.pk = key.pk
        obj.refresh_from_db()
        messages.warning(request, f"New API key for {key.name} (copy it now, it is not shown again): {raw}")

    @admin.action(description="Revoke selected API keys")
    def revoke_keys(self, request, queryset):
        count = 0
        for key in queryset.filter(revoked_at__isnull=True):
            revoke_api_key(key)
            count += 1
        self.message_user(request, f"Revoked {count} key(s) at {timezone.now():%Y-%m-%d %H:%M}.")
