"""The end user's page: what is remembered about them, to correct, delete, export, or forget entirely.

Plain Django views under the host's own login (``login_required`` sends to the host's LOGIN_URL). The
caller is resolved as in the API's permission model: a non-staff user sees only their own memory user
(USER_ID_RESOLVER); staff need the model permissions of each action. Templates are the app's
(``agentmemory/remembered.html``, ...); a host overrides them by name in its own template folders.
"""
from __future__ import annotations

import json
from collections import OrderedDict

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import get_language, gettext, pgettext
from django.views.decorators.http import require_http_methods

from ..api.access import Principal, Rule, denial, principal_of, read, write
from ..api.access import admin as admin_rule
from ..audit import audit_context
from ..exceptions import AgentMemoryError
from ..memory.export import export_user
from ..memory.forget import delete_memory, forget_user
from ..memory.profile import get_profile
from ..memory.write import update_memory
from ..models import MemoryItem
from ..validation import validate_user_id
from .voice import second_person

#: The page's languages (?lang=), each with the Django language whose message catalogue it reads.
LANGUAGES = {"zh": "zh-hans", "en": "en"}


def page_labels(lang: str) -> dict:
    """What the page says, from the message catalogues (agentmemory/locale), in ``lang`` ("zh" or "en")."""
    with translation.override(LANGUAGES[lang]):
        return {
            "title": gettext("What I remember about you"), "summary": gettext("Summary"),
            "no_summary": gettext("No summary yet."), "empty": gettext("Nothing is remembered yet."),
            "types": {"fact": gettext("Facts"), "preference": gettext("Preferences"),
                      "decision": gettext("Decisions"), "event": gettext("Events"),
                      "feedback": gettext("Feedback"), "episode": gettext("What you told me")},
            "sources": {"user_stated": gettext("you said"), "model_inferred": gettext("inferred"),
                        "system_log": gettext("system log")},
            "correct": gettext("Correct"), "delete": gettext("Delete"), "save": gettext("Save correction"),
            "export": gettext("Export everything (JSON)"), "forget": gettext("Forget me"),
            "forget_title": gettext("Forget everything about you"), "forget_confirm": gettext("Yes, forget me"),
            "forget_text": gettext("This permanently deletes everything remembered about you:"),
            "cancel": gettext("Cancel"), "receipt_title": gettext("Forgotten"),
            "receipt_text": gettext("Everything about you has been deleted. Receipt:"),
            "superseded": gettext("corrected"),
            # after a number ("3 memories"; Chinese adds its measure word: "3 条记忆")
            "counts": {"memoryitem": pgettext("count", "memories"), "session": pgettext("count", "conversations"),
                       "turn": pgettext("count", "messages"), "memoryprofile": pgettext("count", "profiles")},
            "deleted": gettext("Deleted."), "corrected": gettext("Corrected: a new version replaces the old one."),
            # the link to the other language, written in that language
            "lang": "English" if lang == "zh" else "中文",
        }


_VIEW: Rule = read("agentmemory.view_memoryitem")


def _language(request) -> str:
    """?lang= (remembered in the session), else the host's language for this request: its LANGUAGE_CODE, or
    what its LocaleMiddleware chose (the browser's Accept-Language, the user's language cookie)."""
    wanted = request.GET.get("lang") or request.session.get("agentmemory_lang")
    if wanted in LANGUAGES:
        request.session["agentmemory_lang"] = wanted
        return wanted
    return "zh" if (get_language() or "").lower().startswith("zh") else "en"


def _render(request, lang: str, template: str, context: dict):
    """The page rendered in its language (templates' {% translate %} read the same catalogue)."""
    with translation.override(LANGUAGES[lang]):
        return render(request, template, context)


def _html_lang(lang: str) -> str:
    return "zh-Hans" if lang == "zh" else "en"


def _allowed(request, user_id: str, rule: Rule) -> Principal:
    """The principal, if it may do ``rule`` for ``user_id``: 404 for another user's page, 403 otherwise."""
    principal = principal_of(request)
    try:
        validate_user_id(user_id)
    except AgentMemoryError:
        raise Http404("No such user.") from None
    if not principal.may_act_for(user_id):
        raise Http404("No such user.")  # another user's page does not reveal whether it exists
    if denial(principal, rule):
        raise PermissionDenied(denial(principal, rule))
    return principal


@login_required
def my_page(request):
    """The logged-in user's own page."""
    principal = principal_of(request)
    if principal.kind != "user" or not principal.own_user_id:
        raise PermissionDenied("This page shows an end user's own memories; staff use the admin.")
    return redirect(_page_url(request, principal.own_user_id))


def _namespace(request) -> str:
    return (request.resolver_match.namespace if request.resolver_match else "") or "agentmemory_pages"


def _page_url(request, user_id: str) -> str:
    return reverse(f"{_namespace(request)}:remembered", args=[user_id])


@login_required
@require_http_methods(["GET"])
def remembered(request, user_id: str):
    _allowed(request, user_id, _VIEW)
    lang = _language(request)
    labels = page_labels(lang)
    memories = (MemoryItem.objects.for_user(user_id)
                .filter(status__in=[MemoryItem.Status.ACTIVE, MemoryItem.Status.COLD, MemoryItem.Status.SUPERSEDED])
                .defer("embedding", "search_vector").order_by("-created_at", "-id"))
    groups: OrderedDict[str, list] = OrderedDict((t, []) for t in labels["types"])
    for item in memories:
        item.shown = second_person(item.content)  # "你在腾讯工作": the page speaks to the user
        groups.setdefault(item.type, []).append(item)
    profile = get_profile(user_id)
    return _render(request, lang, "agentmemory/remembered.html", {
        "labels": labels, "lang": lang, "other_lang": "en" if lang == "zh" else "zh", "user_id": user_id,
        "ns": _namespace(request),
        "profile": profile, "summary": second_person(profile.get("summary") or ""),
        "html_lang": _html_lang(lang),
        "groups": [(labels["types"].get(t, t), items) for t, items in groups.items() if items],
        "message": request.GET.get("done", ""),
    })


@login_required
@require_http_methods(["POST"])
def correct(request, user_id: str, memory_id: int):
    principal = _allowed(request, user_id, write("agentmemory.change_memoryitem"))
    text = (request.POST.get("content") or "").strip()
    changes = {"content": text}
    if principal.kind == "user":
        changes["source"] = MemoryItem.Source.USER_STATED
    with audit_context(principal.actor, "corrected on the user's page"):
        try:
            update_memory(user_id, memory_id, changes=changes, reason="corrected by the user")
        except AgentMemoryError as exc:
            return HttpResponse(str(exc), status=400 if "not found" not in str(exc) else 404)
    return redirect(_page_url(request, user_id) + "?done=corrected")


@login_required
@require_http_methods(["POST"])
def delete(request, user_id: str, memory_id: int):
    principal = _allowed(request, user_id, write("agentmemory.delete_memoryitem"))
    if not MemoryItem.objects.for_user(user_id).filter(pk=memory_id).exclude(status=MemoryItem.Status.DELETED).exists():
        raise Http404("No such memory.")
    with audit_context(principal.actor, "deleted on the user's page"):
        delete_memory(user_id, memory_id, reason="deleted by the user")
    return redirect(_page_url(request, user_id) + "?done=deleted")


@login_required
@require_http_methods(["GET"])
def export(request, user_id: str):
    _allowed(request, user_id, _VIEW)
    body = json.dumps(export_user(user_id), ensure_ascii=False, indent=2, default=str)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="agentmemory-export.json"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def forget(request, user_id: str):
    principal = _allowed(request, user_id, admin_rule("agentmemory.forget_user", self_service=True))
    lang = _language(request)
    labels = page_labels(lang)
    if request.method == "GET":
        counts = {
            labels["counts"]["memoryitem"]: MemoryItem.objects.for_user(user_id).exclude(
                status=MemoryItem.Status.DELETED).count(),
        }
        from ..models import Session

        counts[labels["counts"]["session"]] = Session.objects.for_user(user_id).count()
        return _render(request, lang, "agentmemory/forget_confirm.html", {
            "labels": labels, "user_id": user_id, "counts": counts, "page": _page_url(request, user_id),
            "html_lang": _html_lang(lang)})
    with audit_context(principal.actor, "forgotten on the user's page"):
        receipt = forget_user(user_id, reason="requested by the user on their page")
    counts = {labels["counts"].get(k, k): v for k, v in receipt.counts.items()}
    return _render(request, lang, "agentmemory/forgotten.html", {"labels": labels, "receipt": receipt, "counts": counts,
                                                          "html_lang": _html_lang(lang)})
