"""Admin of the knowledge base: knowledge bases, documents with a chunk preview, versions, the review queue
of held versions, chunks, jobs.

Vectors are never rendered. Version switches (rollback, delete) go through the publish services, so
they are atomic and audited like API writes; re-embedding and imports are enqueued as Celery tasks.
"""
from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import Count, Q
from django.template.response import TemplateResponse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from ..exceptions import AgentMemoryError, InvalidInput
from ..knowledge.bases import add_knowledge_base, delete_knowledge_base, update_knowledge_base
from ..knowledge.gate import discard_version, publish_held
from ..knowledge.imports import prepare_text, prepare_upload
from ..knowledge.ingest import content_hash
from ..knowledge.jobs import create_import_job
from ..knowledge.publish import delete_document, rollback_document
from ..knowledge.reembed import create_reembed_job
from ..models import Chunk, Document, DocumentVersion, HeldVersion, ImportJob, KnowledgeBase
from ..tasks.dispatch import enqueue_on_commit
from .audit import ReadOnlyAdmin, as_operator
from .backlog import BacklogWarningMixin

PREVIEW_LIMIT = 200


def chunk_preview_table(chunks) -> str:
    """An HTML table of chunks (position, heading path, offsets, text, status, model); no vectors."""
    rows = format_html_join(
        "\n",
        '<tr><td>{}</td><td>{}</td><td>{}–{}</td><td style="white-space:pre-wrap;max-width:60em">{}</td>'
        "<td>{}</td><td>{}</td><td>{}</td></tr>",
        ((c.position, c.heading_path or "—", c.char_start, c.char_end, c.text, c.token_count, c.status,
          c.embedding_model or "(not embedded)") for c in chunks),
    )
    return format_html(
        '<table class="am-chunk-preview"><thead><tr><th>#</th><th>heading path</th><th>offsets</th><th>text</th>'
        "<th>tokens</th><th>status</th><th>embedding model</th></tr></thead><tbody>{}</tbody></table>",
        rows,
    )


def _enqueue_import(job) -> None:
    from ..tasks.knowledge import enqueue_import

    # robust: without a broker the task runs at commit (a long document in a background thread), and a
    # failure is recorded on the job, not a 500.
    enqueue_import(job.pk, size=len(job.source_text))


def _enqueue_reembed(job_id: int) -> None:
    from ..tasks.knowledge import reembed_knowledge_base

    enqueue_on_commit(reembed_knowledge_base, job_id)


@admin.register(KnowledgeBase)
class KnowledgeBaseAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "chunk_size", "chunk_overlap", "embedding_model", "active_documents", "created_at"]
    search_fields = ["slug", "name"]
    readonly_fields = ["embedding_model", "floor_calibration", "created_at", "updated_at"]
    fields = ["slug", "name", "description", "chunk_size", "chunk_overlap", "user_dictionary", "publish_gate",
              "publish_gate_margin", "duplicate_policy", "propose_checks", "floor_cosine", "floor_bm25",
              "floor_bm25_min_cosine", "floor_margin", *readonly_fields]
    actions = ["reembed"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(
            _documents=Count("documents", filter=Q(documents__status=Document.Status.ACTIVE)),
        )

    @admin.display(description=_("documents"), ordering="_documents")
    def active_documents(self, obj) -> int:
        return obj._documents

    def save_model(self, request, obj, form, change):
        with as_operator(request):
            if change:
                update_knowledge_base(obj)
            else:
                add_knowledge_base(obj)

    def delete_model(self, request, obj):
        with as_operator(request):
            delete_knowledge_base(obj)

    def delete_queryset(self, request, queryset):
        with as_operator(request):
            for kb in queryset:
                delete_knowledge_base(kb)

    @admin.action(description=_("Re-embed with the configured embedder (enqueue)"), permissions=["change"])
    def reembed(self, request, queryset):
        jobs = []
        for kb in queryset:
            with as_operator(request):
                job = create_reembed_job(kb)
            _enqueue_reembed(job.pk)
            jobs.append(str(job.pk))
        self.message_user(request, _("Queued re-embed job(s) %(jobs)s; follow them under Import jobs.") % {"jobs": ", ".join(jobs)})


class VersionInline(admin.TabularInline):
    model = DocumentVersion
    fields = ["number", "status", "content_hash", "error", "created_at", "published_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ["-number"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class DocumentUploadForm(forms.ModelForm):
    """Import from the admin: a file, or pasted text; the import itself runs as a task."""

    file = forms.FileField(required=False, help_text="Markdown, text, HTML, PDF or DOCX.")
    content = forms.CharField(widget=forms.Textarea, required=False, help_text="Or paste the text here.")

    class Meta:
        model = Document
        fields = ["knowledge_base", "external_id", "title", "format", "metadata"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("external_id", "title", "format"):
            self.fields[name].required = False

    def clean(self):
        data = super().clean()
        upload, fmt, title = data.get("file"), data.get("format") or "", data.get("title") or ""
        try:
            if upload:
                prepared = prepare_upload(upload, fmt=fmt, title=title)
            else:
                prepared = prepare_text(data.get("content") or "", fmt=fmt, title=title)
        except InvalidInput as exc:
            raise forms.ValidationError(exc.detail) from exc
        data["parsed"], data["fmt"], data["format"] = prepared.parsed, prepared.fmt, prepared.fmt
        data["title"] = prepared.title
        data["external_id"] = data.get("external_id") or f"sha256:{content_hash(prepared.parsed.text)[:16]}"
        return data

    def _post_clean(self):
        # No model validation: the form never saves the model (the import service does), and
        # re-importing an existing external id is a new version, not a uniqueness error.
        pass


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["title", "external_id", "knowledge_base", "format", "status", "active_version_number", "updated_at"]
    list_filter = ["status", "format", "knowledge_base"]
    search_fields = ["title", "external_id"]
    list_select_related = ["knowledge_base", "active_version"]
    autocomplete_fields = ["knowledge_base"]
    readonly_fields = ["knowledge_base", "external_id", "title", "format", "metadata", "status", "active_version",
                       "created_at", "updated_at", "chunk_preview"]
    inlines = [VersionInline]
    actions = ["deprecate_documents"]

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = DocumentUploadForm
        return super().get_form(request, obj, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["knowledge_base", "external_id", "title", "format", "metadata", "file", "content"]
        return self.readonly_fields

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj is not None else []

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # deletion goes through the action, which deprecates atomically

    def save_model(self, request, obj, form, change):
        if change:
            return
        data = form.cleaned_data
        with as_operator(request):
            job = create_import_job(knowledge_base=data["knowledge_base"], parsed=data["parsed"], title=data["title"],
                                    fmt=data["fmt"], external_id=data.get("external_id") or "",
                                    metadata=data.get("metadata") or None)
        _enqueue_import(job)
        request._agentmemory_import_job = job  # the admin instance is shared across requests

    def save_related(self, request, form, formsets, change):
        if change:
            super().save_related(request, form, formsets, change)

    def response_add(self, request, obj, post_url_continue=None):
        from django.http import HttpResponseRedirect
        from django.urls import reverse

        job = getattr(request, "_agentmemory_import_job", None)
        self.message_user(request, _("Import job %(job)s queued (it runs at once without a broker).") % {"job": job.pk if job else "?"})
        if job is not None:
            return HttpResponseRedirect(reverse("admin:agentmemory_importjob_change", args=[job.pk]))
        return HttpResponseRedirect(reverse("admin:agentmemory_document_changelist"))

    def log_addition(self, request, obj, message):
        return None  # the document is written by the import task, not by this form

    @admin.display(description=_("active version"), ordering="active_version__number")
    def active_version_number(self, obj):
        return obj.active_version.number if obj.active_version else "—"

    @admin.display(description=_("chunk preview (active version)"))
    def chunk_preview(self, obj):
        version = obj.active_version or obj.versions.order_by("-number").first()
        if version is None:
            return "—"
        chunks = Chunk.objects.for_version(version).without_vectors()[:PREVIEW_LIMIT]
        return format_html("<p>Version {} ({})</p>{}", version.number, version.status, chunk_preview_table(chunks))

    @admin.action(description=_("Delete selected documents (deprecate their chunks; kept for history)"),
                  permissions=["delete"])
    def deprecate_documents(self, request, queryset):
        count = 0
        with as_operator(request):
            for document in queryset.filter(status=Document.Status.ACTIVE):
                delete_document(document)
                count += 1
        self.message_user(request, _("Deprecated %(count)s document(s).") % {"count": count})


@admin.register(DocumentVersion)
class DocumentVersionAdmin(ReadOnlyAdmin):
    list_display = ["document", "number", "status", "chunk_count", "created_at", "published_at"]
    list_filter = ["status", "document__knowledge_base"]
    search_fields = ["document__title", "document__external_id", "content_hash"]
    list_select_related = ["document"]
    fields = ["document", "number", "status", "content_hash", "error", "created_at", "published_at", "report",
              "chunk_preview"]
    readonly_fields = fields
    actions = ["make_active"]

    @admin.display(description=_("gate report"))
    def report(self, obj):
        return gate_report_html(obj.gate_report)

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_chunks=Count("chunks"))

    @admin.display(description=_("chunks"), ordering="_chunks")
    def chunk_count(self, obj) -> int:
        return obj._chunks

    @admin.display(description=_("chunk preview"))
    def chunk_preview(self, obj):
        return chunk_preview_table(Chunk.objects.for_version(obj).without_vectors()[:PREVIEW_LIMIT])

    def has_rollback_permission(self, request) -> bool:
        return request.user.has_perm("agentmemory.change_document")

    @admin.action(description=_("Make the selected version active (rollback)"), permissions=["rollback"])
    def make_active(self, request, queryset):
        if queryset.count() != 1:
            self.message_user(request, _("Select exactly one version."), level=messages.ERROR)
            return None
        version = queryset.select_related("document", "document__active_version").get()
        if "confirm" not in request.POST:
            return TemplateResponse(request, "agentmemory/admin/rollback_confirm.html", {
                **self.admin_site.each_context(request), "title": _("Roll back %(document)s?") % {"document": version.document},
                "version": version, "active": version.document.active_version, "opts": self.model._meta,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                "chunks": Chunk.objects.for_version(version).count()})
        try:
            with as_operator(request):
                result = rollback_document(version.document, version_number=version.number)
        except AgentMemoryError as exc:
            self.message_user(request, str(getattr(exc, "detail", exc)), level=messages.ERROR)
            return None
        self.message_user(request, _("%(document)s: version %(version)s is active (was %(previous)s).") % {
            "document": version.document, "version": result.version, "previous": result.previous_version})
        return None


def gate_report_html(report: dict) -> str:
    """A held (or gated) version's report: decision, recall before and after, the cases it breaks."""
    if not report:
        return "—"
    rows = format_html_join(
        "", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        ((case["query"], "; ".join(e.get("heading_path") or f"document {e.get('document_id')}"
                                   for e in case["expected"]),
          case["rank_before"] or "—", case["rank_after"] or _("not in the top 10"), " | ".join(case["top_after"]))
         for case in report.get("broken", [])))
    head = format_html(
        "<p><strong>{}</strong> — recall@5 {} → {} over {} case(s), margin {}</p>{}{}",
        report.get("decision", ""), report.get("recall_before"), report.get("recall_after"), report.get("cases"),
        report.get("margin"),
        format_html_join("", "<p>{}</p>", ((r,) for r in report.get("reasons", []) + report.get("warnings", []))),
        format_html("<p>{}</p>", report["note"]) if report.get("note") else "")
    if not report.get("broken"):
        return head
    return format_html(
        '{}<table class="am-gate"><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead>'
        "<tbody>{}</tbody></table>", head, _("case"), _("expected chunk"), _("rank before"), _("rank with this version"),
        _("first now"), rows)


@admin.register(HeldVersion)
class HeldVersionAdmin(ReadOnlyAdmin):
    """The review queue: versions the publish gate held, with why; publish or discard them."""

    list_display = ["document", "number", "knowledge_base", "reasons", "created_at"]
    list_filter = ["document__knowledge_base"]
    search_fields = ["document__title", "document__external_id"]
    list_select_related = ["document", "document__knowledge_base"]
    fields = ["document", "number", "status", "created_at", "report", "duplicate_list", "chunk_preview"]
    readonly_fields = fields
    actions = ["publish", "discard"]

    def get_queryset(self, request):
        return super().get_queryset(request).filter(status=DocumentVersion.Status.HELD).defer("source_text",
                                                                                             "structure")

    @admin.display(description=_("knowledge base"), ordering="document__knowledge_base__slug")
    def knowledge_base(self, obj) -> str:
        return obj.document.knowledge_base.slug

    @admin.display(description=_("why held"))
    def reasons(self, obj) -> str:
        return "; ".join((obj.gate_report or {}).get("reasons", [])) or "—"

    @admin.display(description=_("gate report"))
    def report(self, obj):
        return gate_report_html(obj.gate_report)

    @admin.display(description=_("duplicates"))
    def duplicate_list(self, obj):
        return format_html_join("", "<p>#{} {} 《{}》 ({}, cosine {})</p>", (
            (d["position"] + 1, _("repeats"), d["document_title"], d["kind"], d["cosine"]) for d in obj.duplicates
        )) or "—"

    @admin.display(description=_("chunk preview"))
    def chunk_preview(self, obj):
        return chunk_preview_table(Chunk.objects.for_version(obj).without_vectors()[:PREVIEW_LIMIT])

    def has_publish_permission(self, request) -> bool:
        return request.user.has_perm("agentmemory.publish_version")

    def _decide(self, request, queryset, decide, verb: str) -> None:
        done = 0
        for version in queryset.select_related("document"):
            try:
                with as_operator(request):
                    decide(version)
            except AgentMemoryError as exc:
                self.message_user(request, f"{version}: {getattr(exc, 'detail', exc)}", level=messages.ERROR)
            else:
                done += 1
        if done:
            self.message_user(request, _("%(count)s version(s) %(verb)s.") % {"count": done, "verb": verb})

    @admin.action(description=_("Publish the selected versions"), permissions=["publish"])
    def publish(self, request, queryset):
        self._decide(request, queryset, publish_held, _("published"))

    @admin.action(description=_("Discard the selected versions"), permissions=["publish"])
    def discard(self, request, queryset):
        self._decide(request, queryset, discard_version, _("discarded"))


@admin.register(Chunk)
class ChunkAdmin(ReadOnlyAdmin):
    list_display = ["document", "version_number", "position", "heading_path", "short_text", "status", "embedding_model"]
    list_filter = ["status", "knowledge_base", "embedding_model"]
    search_fields = ["text", "heading_path", "document__title", "document__external_id"]
    list_select_related = ["document", "version"]
    fields = ["knowledge_base", "document", "version", "position", "heading_path", "char_start", "char_end", "text",
              "content_hash", "token_count", "term_count", "status", "embedding_model", "sentence_vectors",
              "created_at"]
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).defer("embedding", "search_vector")

    @admin.display(description=_("sentence vectors"))
    def sentence_vectors(self, obj) -> int:
        """How many of the chunk's sentences have a vector (ChunkSentence; hybrid search's sentence channel)."""
        return obj.sentences.count()

    @admin.display(description=_("version"), ordering="version__number")
    def version_number(self, obj) -> int:
        return obj.version.number

    @admin.display(description=_("text"))
    def short_text(self, obj) -> str:
        return obj.text[:80] + ("…" if len(obj.text) > 80 else "")


@admin.register(ImportJob)
class ImportJobAdmin(BacklogWarningMixin, ReadOnlyAdmin):
    def has_retry_permission(self, request) -> bool:
        return request.user.has_perm("agentmemory.change_importjob")

    list_display = ["id", "kind", "knowledge_base", "external_id", "status", "progress", "total", "created_at",
                    "finished_at"]
    list_filter = ["status", "kind", "knowledge_base"]
    search_fields = ["external_id", "title", "error"]
    list_select_related = ["knowledge_base"]
    fields = ["kind", "knowledge_base", "external_id", "title", "format", "status", "progress", "total", "result",
              "error", "created_at", "started_at", "finished_at"]
    readonly_fields = fields
    actions = ["retry_jobs"]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("source_text", "structure")

    @admin.action(description=_("Retry the selected failed jobs (they resume where they stopped)"),
                  permissions=["retry"])
    def retry_jobs(self, request, queryset):
        count = 0
        for job in queryset.filter(status=ImportJob.Status.FAILED):
            if job.kind == ImportJob.Kind.INGEST:
                _enqueue_import(job)
            else:
                _enqueue_reembed(job.pk)
            count += 1
        self.message_user(request, _("Queued %(count)s job(s) again.") % {"count": count})
