"""Admin for API keys: a new key is shown once, on creation; keys are revoked, never edited."""
from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from ..api_keys import create_api_key, revoke_api_key
from ..models import ApiKey
from ..models.api_keys import SCOPES
from .audit import as_operator

_FIELDS = ["name", "scopes", "agent_ids", "user_ids", "user_id_prefix", "expires_at"]


class ApiKeyCreateForm(forms.ModelForm):
    scopes = forms.MultipleChoiceField(choices=[(s, s) for s in SCOPES], initial=list(SCOPES),
                                       widget=forms.CheckboxSelectMultiple,
                                       help_text="read: every read; write: memories and sessions; admin: "
                                                 "knowledge-base writes and forgetting a user.")

    class Meta:
        model = ApiKey
        fields = _FIELDS

    def clean_expires_at(self):
        value = self.cleaned_data.get("expires_at")
        if value is not None and value <= timezone.now():
            raise forms.ValidationError("An expiry must be in the future.")
        return value


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ["name", "prefix", "scopes", "agent_ids", "user_ids", "created_at", "expires_at", "last_used_at",
                    "revoked_at"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "prefix"]
    readonly_fields = ["prefix", "scopes", "agent_ids", "user_ids", "user_id_prefix", "expires_at", "created_at",
                       "last_used_at", "revoked_at"]
    actions = ["revoke_keys"]

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = ApiKeyCreateForm
        return super().get_form(request, obj, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        # What a key may do is fixed at creation: to change it, mint a new key and revoke this one.
        if obj is not None:
            return [*self.readonly_fields, "name"]
        return []

    def get_fields(self, request, obj=None):
        if obj is None:
            return _FIELDS
        return ["name", "prefix", *_FIELDS[1:], "created_at", "last_used_at", "revoked_at"]

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        data = form.cleaned_data
        with as_operator(request):
            key, raw = create_api_key(data["name"], scopes=data.get("scopes") or None,
                                      agent_ids=data.get("agent_ids") or [], user_ids=data.get("user_ids") or [],
                                      user_id_prefix=data.get("user_id_prefix") or "",
                                      expires_at=data.get("expires_at"))
        obj.pk = key.pk
        obj.refresh_from_db()
        messages.warning(request, f"New API key for {key.name} (copy it now, it is not shown again): {raw}")

    @admin.action(description=_("Revoke selected API keys"), permissions=["change"])
    def revoke_keys(self, request, queryset):
        count = 0
        for key in queryset.filter(revoked_at__isnull=True):
            with as_operator(request):
                revoke_api_key(key)
            count += 1
        self.message_user(request, _("Revoked %(count)s key(s) at %(at)s.") % {"count": count, "at": f"{timezone.now():%Y-%m-%d %H:%M}"})
