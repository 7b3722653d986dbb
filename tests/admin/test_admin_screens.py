"""Every agentmemory admin screen renders for a superuser (list, add where allowed, search)."""
from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import reverse

pytestmark = pytest.mark.django_db


def _agentmemory_models():
    return [m for m in admin.site._registry if m._meta.app_label == "agentmemory"]


def test_all_models_have_an_admin():
    from django.apps import apps

    registered = {m.__name__ for m in _agentmemory_models()}
    missing = {m.__name__ for m in apps.get_app_config("agentmemory").get_models()} - registered
    # Term statistics and postings are internal bookkeeping of the keyword index (the hit-test page
    # shows what they give), and so are recall's memory postings (kept by a trigger) and the chunks' sentence
    # vectors (counted on the chunk's page); turns are shown inline on their session.
    assert missing <= {"KnowledgeTermStat", "KnowledgeBaseStats", "KeywordPosting", "MemoryTerm", "Turn",
                       "ChunkSentence"}


@pytest.mark.parametrize("model", _agentmemory_models(), ids=lambda m: m.__name__)
def test_changelist_and_add_pages_render(admin_client, admin_user, rf, model):
    opts = model._meta
    changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
    assert admin_client.get(changelist).status_code == 200
    assert admin_client.get(changelist, {"q": "母婴 test"}).status_code == 200
    model_admin = admin.site._registry[model]
    request = rf.get(changelist)
    request.user = admin_user
    if model_admin.has_add_permission(request):
        add = reverse(f"admin:{opts.app_label}_{opts.model_name}_add")
        assert admin_client.get(add).status_code == 200
