"""Admin of long-term memory: items with their history (edits go through the write service), receipts read-only."""
from __future__ import annotations

import hashlib

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db import transaction
from django.db.models import Count
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from ..memory.forget import delete_memory
from ..memory.profile import set_profile_summary
from ..memory.quality import assess_quality
from ..memory.review import approve_memory, reject_memory
from ..memory.write import update_memory, write_memory
from ..models import AuditEvent, DeletionReceipt, MemoryItem, MemoryProfile, MemoryTestCase, Turn
from ..types import MemoryDraft
from .audit import ActorFilter, ReadOnlyAdmin, as_operator
from .users import _truncate, forget_page, user_page

_EDITABLE = ["user_id", "agent_id", "type", "key", "content", "value", "source", "confidence", "status", "tags",
             "valid_from", "valid_to"]


class _ValueFilter(admin.SimpleListFilter):
    """A filter on one id column: the 20 most frequent values, plus the one chosen (any value works in the URL)."""

    field = ""

    def lookups(self, request, model_admin):
        rows = (MemoryItem.objects.get_queryset().exclude(**{self.field: ""}).values_list(self.field)
                .annotate(n=Count("id")).order_by("-n")[:20])
        values = [value for value, _n in rows]
        if self.value() and self.value() not in values:
            values.append(self.value())
        return [(v, v) for v in values]

    def queryset(self, request, queryset):
        return queryset.filter(**{self.field: self.value()}) if self.value() else queryset


class UserFilter(_ValueFilter):
    title, parameter_name, field = _("user"), "user_id", "user_id"


class AgentFilter(_ValueFilter):
    title, parameter_name, field = _("agent"), "agent_id", "agent_id"


class ConfidenceFilter(admin.SimpleListFilter):
    title, parameter_name = _("confidence"), "confidence"
    RANGES = {"low": (0.0, 0.5), "medium": (0.5, 0.8), "high": (0.8, 1.01)}

    def lookups(self, request, model_admin):
        return [("low", _("below 0.5")), ("medium", _("0.5 to 0.8")), ("high", _("0.8 and above"))]

    def queryset(self, request, queryset):
        if self.value() in self.RANGES:
            low, high = self.RANGES[self.value()]
            return queryset.filter(confidence__gte=low, confidence__lt=high)
        return queryset


class PiiMaskedFilter(admin.SimpleListFilter):
    title, parameter_name = _("PII masked"), "pii"

    def lookups(self, request, model_admin):
        return [("yes", _("has masked PII")), ("no", _("no masked PII"))]

    def queryset(self, request, queryset):
        # The redaction keeps a few characters and masks the rest with asterisks (138****5678, a***@x.com).
        if self.value() == "yes":
            return queryset.filter(content__contains="***")
        if self.value() == "no":
            return queryset.exclude(content__contains="***")
        return queryset


class CorrectForm(forms.Form):
    content = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 80}), label="corrected content")
    reason = forms.CharField(max_length=500, label="reason", help_text="Why (kept in the history).")


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
    # Status early: at common widths the last columns scroll out of view, and a superseded row must not look current.
    list_display = ["id", "user_link", "status", "type", "key", "short_content", "source", "confidence", "agent_id",
                    "access_count", "created_at"]
    list_filter = [UserFilter, AgentFilter, "status", "type", "source", ConfidenceFilter, PiiMaskedFilter]
    search_fields = ["=user_id", "key", "content"]
    search_help_text = _("A user id (exact, or =alice), a key, or words of the content.")
    date_hierarchy = "created_at"
    list_per_page = 50
    readonly_fields = ["history", "source_turn", "provenance", "session_id", "turn_id", "excerpt", "supersedes_link",
                       "superseded_at", "created_at", "updated_at", "access_count", "last_accessed_at",
                       "embedding_model"]
    actions = ["confirm", "correct", "mark_cold", "reactivate", "approve_quarantined", "reject_quarantined",
               "rerun_extraction"]

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
        if obj is not None and obj.status in (MemoryItem.Status.SUPERSEDED, MemoryItem.Status.DELETED,
                                              MemoryItem.Status.QUARANTINED):
            return False  # history is read-only: edit the current version
        return super().has_change_permission(request, obj)

    def get_search_results(self, request, queryset, search_term):
        term = search_term.strip()
        if term.startswith("=") or term.startswith("user:"):
            # "=alice" (or "user:alice"): exactly that user, as operators type it.
            return queryset.filter(user_id=term.split(":", 1)[-1].lstrip("=").strip()), False
        return super().get_search_results(request, queryset, search_term)

    @admin.display(description=_("user"), ordering="user_id")
    def user_link(self, obj: MemoryItem) -> str:
        return format_html('<a href="{}">{}</a>', reverse("admin:agentmemory_user", args=[obj.user_id]), obj.user_id)

    @admin.display(description=_("content"))
    def short_content(self, obj: MemoryItem) -> str:
        return obj.content if len(obj.content) <= 80 else obj.content[:79] + "…"

    @admin.display(description=_("supersedes"))
    def supersedes_link(self, obj: MemoryItem) -> str:
        if not obj.supersedes_id:
            return "-"
        return format_html('<a href="../../{}/change/">#{}</a>', obj.supersedes_id, obj.supersedes_id)

    @admin.display(description=_("source turn"))
    def source_turn(self, obj: MemoryItem) -> str:
        if not obj.session_id:
            return "-"
        url = reverse("admin:agentmemory_session_change", args=[obj.session_id])
        turn = Turn.objects.filter(pk=obj.turn_id).only("seq", "role", "content").first() if obj.turn_id else None
        if turn is None:
            return format_html('<a href="{}">session {}</a>', url, obj.session_id)
        return format_html('<a href="{}#turn-{}">session {}, turn {}</a> ({}): {}', url, turn.seq, obj.session_id,
                           turn.seq, turn.role, _truncate(turn.content, 200))

    @admin.display(description=_("history"))
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
        with as_operator(request, "admin"):
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
        if result.action == "unchanged":
            request._agentmemory_unchanged = True
            messages.info(request, "Nothing changed: the memory was left as it was.")
        elif result.action != "created":
            messages.info(request, f"{result.action.replace('_', ' ')}: {result.reason}" if result.reason
                          else result.action.replace("_", " "))

    def delete_model(self, request, obj):
        with as_operator(request, "admin delete"):
            delete_memory(obj.user_id, obj.pk, reason="admin delete")

    def _update_each(self, request, queryset, changes: dict, reason: str) -> int:
        count = 0
        with as_operator(request, reason):
            for pk, user_id in queryset.values_list("pk", "user_id"):
                update_memory(user_id, pk, changes=changes, reason=reason)
                count += 1
        return count

    @admin.action(description=_("Mark selected memories cold"), permissions=["change"])
    def mark_cold(self, request, queryset):
        count = self._update_each(request, queryset.filter(status=MemoryItem.Status.ACTIVE),
                                  {"status": MemoryItem.Status.COLD}, "marked cold by an operator")
        self.message_user(request, _("Marked %(count)s memory item(s) cold.") % {"count": count})

    @admin.action(description=_("Reactivate selected cold memories"), permissions=["change"])
    def reactivate(self, request, queryset):
        count = self._update_each(request, queryset.filter(status=MemoryItem.Status.COLD),
                                  {"status": MemoryItem.Status.ACTIVE}, "reactivated by an operator")
        self.message_user(request, _("Reactivated %(count)s memory item(s).") % {"count": count})

    def has_review_permission(self, request) -> bool:
        return request.user.has_perm("agentmemory.review_memoryitem")

    def _review_each(self, request, queryset, review, reason: str) -> int:
        count = 0
        with as_operator(request, reason):
            for pk, user_id in queryset.filter(status=MemoryItem.Status.QUARANTINED).values_list("pk", "user_id"):
                review(user_id, pk, reason=f"{reason} by an operator")
                count += 1
        return count

    @admin.action(description=_("Approve selected quarantined memories (kept quoted as the user's words)"),
                  permissions=["review"])
    def approve_quarantined(self, request, queryset):
        count = self._review_each(request, queryset, approve_memory, "approved in review")
        self.message_user(request, _("Approved %(count)s quarantined memory item(s): active, quoted as the user's words.") % {"count": count})

    @admin.action(description=_("Reject selected quarantined memories (deleted with a receipt)"),
                  permissions=["review"])
    def reject_quarantined(self, request, queryset):
        count = self._review_each(request, queryset, reject_memory, "rejected in review")
        self.message_user(request, _("Rejected %(count)s quarantined memory item(s).") % {"count": count})

    @admin.action(description=_("Confirm selected inferred memories (the user confirmed them)"), permissions=["change"])
    def confirm(self, request, queryset):
        inferred = queryset.filter(source=MemoryItem.Source.MODEL_INFERRED).exclude(
            status__in=[MemoryItem.Status.SUPERSEDED, MemoryItem.Status.DELETED])
        count = 0
        with as_operator(request, "confirmed by the user (operator)"):
            for pk, user_id, confidence in inferred.values_list("pk", "user_id", "confidence"):
                update_memory(user_id, pk, changes={"source": MemoryItem.Source.USER_STATED,
                                                    "confidence": max(confidence, 0.9)},
                              reason="confirmed by the user")
                count += 1
        self.message_user(request, _("Confirmed %(count)s inferred memory item(s): now user-stated.") % {"count": count})

    @admin.action(description=_("Correct the selected memory (a new version supersedes it)"), permissions=["change"])
    def correct(self, request, queryset):
        current = queryset.exclude(status__in=[MemoryItem.Status.SUPERSEDED, MemoryItem.Status.DELETED])
        if current.count() != 1:
            self.message_user(request, _("Select exactly one current memory to correct."), messages.WARNING)
            return None
        item = current.get()
        form = CorrectForm(request.POST if "apply" in request.POST else None, initial={"content": item.content})
        if "apply" in request.POST and form.is_valid():
            with as_operator(request, form.cleaned_data["reason"]):
                result = update_memory(item.user_id, item.pk, changes={"content": form.cleaned_data["content"]},
                                       reason=form.cleaned_data["reason"])
            self.message_user(request, _("Corrected: memory #%(new)s supersedes #%(old)s.") % {"new": result.memory_id, "old": item.pk})
            return HttpResponseRedirect(reverse("admin:agentmemory_memoryitem_change", args=[result.memory_id]))
        return TemplateResponse(request, "agentmemory/admin/correct_memory.html", {
            **self.admin_site.each_context(request), "title": _("Correct memory #%(id)s") % {"id": item.pk}, "item": item,
            "form": form, "opts": self.model._meta, "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        })

    @admin.action(description=_("Re-run extraction for the selected memories' source sessions"), permissions=["change"])
    def rerun_extraction(self, request, queryset):
        from ..models import ExtractionRun, Session
        from ..tasks.working import enqueue_extraction
        from ..working.extract import start_extraction

        session_ids = {sid for sid in queryset.values_list("session_id", flat=True) if sid}
        queued, done = 0, 0
        with as_operator(request, "extraction re-run by an operator"):
            for session in Session.objects.filter(pk__in=session_ids):
                # New turns get a new run; a failed or interrupted run is run again; a succeeded one
                # has nothing left to extract (its writes are idempotent anyway).
                run = start_extraction(session, trigger=ExtractionRun.Trigger.MANUAL)
                failed = ExtractionRun.objects.for_session(session).exclude(status=ExtractionRun.Status.SUCCEEDED)
                for pk in {*([run.pk] if run is not None and run.status != ExtractionRun.Status.SUCCEEDED else []),
                           *failed.values_list("pk", flat=True)}:
                    enqueue_extraction(pk)
                    queued += 1
                done += run is None or run.status == ExtractionRun.Status.SUCCEEDED
        self.message_user(request, _("Queued %(queued)s extraction run(s) for %(sessions)s source session(s); %(done)s had nothing new "
                                     "to extract.") % {"queued": queued, "sessions": len(session_ids), "done": done})

    def delete_queryset(self, request, queryset):
        """The bulk delete: one receipt per memory (its chain's history content scrubbed)."""
        receipts = []
        for pk, user_id in queryset.exclude(status=MemoryItem.Status.DELETED).values_list("pk", "user_id"):
            if MemoryItem.objects.for_user(user_id).filter(pk=pk).exclude(status=MemoryItem.Status.DELETED).exists():
                with as_operator(request, "admin delete"):
                    receipts.append(delete_memory(user_id, pk, reason="admin delete").pk)
        if receipts:
            self.message_user(request, _("Deletion receipts: %(receipts)s.") % {"receipts": ", ".join(f"#{r}" for r in receipts)})

    def response_change(self, request, obj):
        if getattr(request, "_agentmemory_unchanged", False):
            # Nothing was saved: say so once, not also Django's "changed successfully".
            return HttpResponseRedirect(request.path)
        return super().response_change(request, obj)

    # --- the per-user page ---------------------------------------------------------------------

    def get_urls(self):
        urls = super().get_urls()
        own = [
            path("users/<str:user_id>/", self.admin_site.admin_view(self.user_view), name="agentmemory_user"),
            path("users/<str:user_id>/forget/", self.admin_site.admin_view(self.forget_view),
                 name="agentmemory_user_forget"),
        ]
        return own + urls

    def user_view(self, request, user_id: str):
        return user_page(self, request, user_id)

    def forget_view(self, request, user_id: str):
        return forget_page(self, request, user_id)


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
        with as_operator(request, "admin"), transaction.atomic():
            row = set_profile_summary(obj.user_id, form.cleaned_data["summary"], reason="admin edit")
        obj.pk = row.pk
        obj.refresh_from_db()


@admin.register(DeletionReceipt)
class DeletionReceiptAdmin(ReadOnlyAdmin):
    list_display = ["id", "kind", "created_at", "actor", "reason", "counts"]
    list_filter = ["kind", ActorFilter]
    search_fields = ["subject_digest", "reason"]
    date_hierarchy = "created_at"

    def get_search_results(self, request, queryset, search_term):
        # Receipts never hold the user id: a search for one looks for its digest.
        if search_term:
            digest = hashlib.sha256(search_term.strip().encode("utf-8")).hexdigest()
            queryset, _dup = super().get_search_results(request, queryset, search_term)
            return queryset | DeletionReceipt.objects.filter(subject_digest=digest), False
        return super().get_search_results(request, queryset, search_term)


@admin.register(MemoryTestCase)
class MemoryTestCaseAdmin(admin.ModelAdmin):
    """An operator's phrasings, each with the question the memory must answer later; run from here or with
    ``manage.py agentmemory_memory_tests``. The result says where a miss happened."""

    list_display = ["name", "question", "last_outcome", "last_run_at"]
    list_filter = ["last_outcome"]
    search_fields = ["name", "question"]
    readonly_fields = ["last_outcome", "last_run_at", "why"]
    actions = ["run_selected"]

    @admin.display(description=_("why"))
    def why(self, obj):
        result = obj.last_result or {}
        if not result:
            return "—"
        return format_html("<p><strong>{}</strong></p><p>shown: {}</p><p>stored: {}</p>", result.get("outcome", ""),
                           result.get("shown") or "—", "; ".join(result.get("memories") or []) or "—")

    @admin.action(description=_("Run the selected memory test cases"), permissions=["change"])
    def run_selected(self, request, queryset):
        from ..context.memory_tests import run_memory_test

        outcomes: dict[str, int] = {}
        with as_operator(request, "memory test cases run"):
            for case in queryset:
                outcome = run_memory_test(case).outcome
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
        self.message_user(request, _("Ran %(count)s case(s): %(outcomes)s.") % {
            "count": sum(outcomes.values()), "outcomes": ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))})
