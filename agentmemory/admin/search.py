"""Admin of retrieval: hit testing ("召回测试") per knowledge base, evaluation cases and runs.

The hit-testing page calls the same ``search_knowledge`` as the API and the agent context, so what
it shows is what production retrieves: each hit with its keyword (BM25, matched terms), vector
(cosine) and rerank scores side by side, the RRF contributions, and the trace (terms with df/idf,
what each threshold removed, timings, degradations). Chosen hits can be saved as an evaluation case.
"""
from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _

from ..audit import record_event
from ..exceptions import AgentMemoryError, InvalidInput, NotFound
from ..knowledge.evaluate import create_case
from ..knowledge.floor import base_size, floors_for
from ..knowledge.search import MAX_TOP_K, MODES, search_knowledge
from ..models import EvaluationCase, EvaluationRun, KnowledgeBaseRetrieval
from ..tasks.dispatch import enqueue_on_commit
from .audit import as_operator


def _latest_run(kb) -> EvaluationRun | None:
    return EvaluationRun.objects.for_knowledge_base(kb).finished().order_by("-started_at", "-id").first()


def _float_or_none(value: str | None) -> float | None:
    value = (value or "").strip()
    if value == "":
        return None
    try:
        return float(value)
    except ValueError:
        raise InvalidInput(f"threshold {value!r} is not a number", field="thresholds") from None


@admin.register(KnowledgeBaseRetrieval)
class KnowledgeBaseRetrievalAdmin(admin.ModelAdmin):
    def has_evaluate_permission(self, request) -> bool:
        return request.user.has_perm("agentmemory.add_evaluationrun")

    """One row per knowledge base: statistics, last evaluation, recall flag, and the hit-testing page."""

    list_display = ["slug", "name", "active_chunks", "last_recall_at_5", "recall_flag", "hit_test_link"]
    search_fields = ["slug", "name"]
    list_select_related = ["retrieval_stats"]
    actions = ["evaluate_now"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False  # nothing here is edited; the page is hit testing, guarded by the view permission

    def has_save_case_permission(self, request) -> bool:
        return request.user.has_perm("agentmemory.add_evaluationcase")

    @admin.display(description=_("active chunks"))
    def active_chunks(self, obj):
        stats = getattr(obj, "retrieval_stats", None)
        return stats.chunk_count if stats else 0

    @admin.display(description=_("hybrid recall@5"))
    def last_recall_at_5(self, obj):
        run = _latest_run(obj)
        return "—" if run is None or run.hybrid_recall_at_5 is None else f"{run.hybrid_recall_at_5:.3f}"

    @admin.display(description=_("recall"))
    def recall_flag(self, obj):
        run = _latest_run(obj)
        if run is not None and run.recall_dropped:
            return format_html('<strong style="color:#ba2121">⚠ recall@5 dropped {} → {}</strong>',
                               f"{run.previous_recall_at_5:.3f}", f"{run.hybrid_recall_at_5:.3f}")
        return "ok" if run is not None else "—"

    @admin.display(description=_("hit testing"))
    def hit_test_link(self, obj):
        return format_html('<a href="{}">召回测试 / hit test</a>', reverse("admin:agentmemory_hit_test", args=[obj.pk]))

    @admin.action(description=_("Evaluate the saved cases now"), permissions=["evaluate"])
    def evaluate_now(self, request, queryset):
        from ..tasks.search import evaluate_knowledge_base

        ids = list(queryset.values_list("pk", flat=True))
        for kb_id in ids:
            enqueue_on_commit(evaluate_knowledge_base, kb_id, "admin")
        self.message_user(request, _("Evaluation queued for %(count)s knowledge base(s).") % {"count": len(ids)}, messages.SUCCESS)

    def get_urls(self):
        custom = [
            path("<int:object_id>/hit-test/", self.admin_site.admin_view(self.hit_test_view),
                 name="agentmemory_hit_test"),
        ]
        return custom + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        return redirect("admin:agentmemory_hit_test", object_id=object_id)

    def hit_test_view(self, request, object_id: int):
        # Chunk text is what the page shows: the proxy's view permission ("Can view knowledge base
        # retrieval (hit testing)"), as for any admin page; saving a case needs add_evaluationcase.
        if not self.has_view_permission(request):
            raise PermissionDenied("You lack the permission agentmemory.view_knowledgebaseretrieval.")
        kb = get_object_or_404(KnowledgeBaseRetrieval, pk=object_id)
        data = request.POST if request.method == "POST" else request.GET
        if request.method == "POST" and data.get("action") == "save_case":
            if not self.has_save_case_permission(request):
                raise PermissionDenied("You lack the permission agentmemory.add_evaluationcase.")
            return self._save_case(request, kb, data)
        form = {
            "query": data.get("query", ""),
            "mode": data.get("mode", "hybrid"),
            "top_k": data.get("top_k", "5"),
            "cosine": data.get("cosine", ""),
            "bm25": data.get("bm25", ""),
            "rerank_threshold": data.get("rerank_threshold", ""),
            "rerank": data.get("rerank", ""),
            "rewrite": data.get("rewrite", ""),
            "floor": data.get("floor", "on") or "on",
        }
        result = None
        error = None
        if form["query"].strip():
            try:
                try:
                    top_k = int(form["top_k"])
                except ValueError:
                    raise InvalidInput("top_k must be an integer", field="top_k") from None
                thresholds = {"cosine": _float_or_none(form["cosine"]), "bm25": _float_or_none(form["bm25"]),
                              "rerank": _float_or_none(form["rerank_threshold"])}
                thresholds = {k: v for k, v in thresholds.items() if v is not None}
                rerank = {"on": True, "off": False}.get(form["rerank"])
                result = search_knowledge(form["query"], knowledge_bases=[kb.slug], top_k=top_k, mode=form["mode"],
                                          thresholds=thresholds or None, rerank=rerank,
                                          rewrite=form["rewrite"] == "on", floor=form["floor"] != "off")
            except (InvalidInput, NotFound) as exc:
                # The message itself, never a list repr like "['top_k must be an integer']".
                error = getattr(exc, "detail", None) or "; ".join(getattr(exc, "messages", [])) or str(exc)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Hit testing: %(kb)s") % {"kb": kb},
            "kb": kb,
            "form": form,
            "modes": MODES,
            "max_top_k": MAX_TOP_K,
            "result": result,
            "error": error,
            "can_save_case": self.has_save_case_permission(request),
            "cases": EvaluationCase.objects.for_knowledge_base(kb).order_by("-id")[:10],
            "case_count": EvaluationCase.objects.for_knowledge_base(kb).count(),
            "latest_run": _latest_run(kb),
            "floors": floors_for(kb, base_size(kb)),  # as a search applies them: moved for the base's size
        }
        return TemplateResponse(request, "agentmemory/admin/hit_test.html", context)

    def _save_case(self, request, kb, data):
        query = data.get("query", "")
        chunk_ids = [int(v) for v in data.getlist("expected_chunk") if v.isdigit()]
        try:
            case = create_case(knowledge_base=kb, query=query, expected_chunk_ids=chunk_ids, source="admin",
                               note=f"saved by {request.user.get_username()}")
        except AgentMemoryError as exc:
            self.message_user(request, _("Not saved: %(error)s") % {"error": exc}, messages.ERROR)
        else:
            self.message_user(request, _("Saved evaluation case #%(case)s with %(count)s expected chunk(s).") % {"case": case.pk, "count": len(chunk_ids)},
                              messages.SUCCESS)
        keep = {k: data.get(k, "") for k in ("query", "mode", "top_k", "cosine", "bm25", "rerank_threshold",
                                              "rerank", "rewrite")}
        return redirect(reverse("admin:agentmemory_hit_test", args=[kb.pk]) + "?" + urlencode(keep))


@admin.register(EvaluationCase)
class EvaluationCaseAdmin(admin.ModelAdmin):
    list_display = ["id", "knowledge_base", "short_query", "expected_chunk_ids", "expected_document_ids", "source",
                    "accepted", "created_at"]
    list_filter = ["knowledge_base", "source", "accepted"]
    search_fields = ["query", "note"]
    list_select_related = ["knowledge_base"]
    readonly_fields = ["created_at"]
    actions = ["accept_proposed"]

    @admin.action(description=_("Accept the selected proposed cases"), permissions=["change"])
    def accept_proposed(self, request, queryset):
        ids = list(queryset.proposed().values_list("pk", flat=True))
        with as_operator(request):
            EvaluationCase.objects.filter(pk__in=ids).update(accepted=True)
            for pk in ids:
                record_event("evaluation_case.accept", object_type="evaluation_case", object_id=pk)
        self.message_user(request, _("%(count)s case(s) accepted: they count in evaluations and the publish gate.") % {"count": len(ids)})

    @admin.display(description=_("query"), ordering="query")
    def short_query(self, obj) -> str:
        return obj.query if len(obj.query) <= 80 else obj.query[:79] + "…"


@admin.register(EvaluationRun)
class EvaluationRunAdmin(admin.ModelAdmin):
    """Runs are read-only records: metrics per mode and the configuration they ran with."""

    list_display = ["id", "knowledge_base", "trigger", "status", "case_count", "hybrid_recall_at_5",
                    "previous_recall_at_5", "recall_dropped", "started_at"]
    list_filter = ["knowledge_base", "status", "trigger", "recall_dropped"]
    list_select_related = ["knowledge_base"]
    readonly_fields = [f.name for f in EvaluationRun._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
