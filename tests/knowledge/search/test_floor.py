"""The relevance floor: calibrated per knowledge base from its own cases, applied to search, the context
and the hit-testing page, every decision explained."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse

from agentmemory.knowledge.evaluate import Case, save_cases
from agentmemory.knowledge.search import search_knowledge
from agentmemory.models import AuditEvent, KnowledgeBase

pytestmark = pytest.mark.django_db
IN_DOMAIN = [("X-200 的额定功率是多少", "x200"), ("绿茶用多少度的水冲泡", "tea"), ("什么是大语言模型", "llm"),
             ("X-300 支持远程控制吗", "x300")]
OFF_TOPIC = "今天天气怎么样"


def _calibrated(seed_kb) -> str:
    docs = {d.external_id: d.pk for d in seed_kb.documents.all()}
    save_cases(seed_kb, [Case(query=q, document_ids={docs[ext]}) for q, ext in IN_DOMAIN])
    out = io.StringIO()
    call_command("agentmemory_calibrate_floor", "--kb", "seed", "--save", stdout=out, stderr=io.StringIO())
    seed_kb.refresh_from_db()
    return out.getvalue()


def test_without_any_floor_configured_every_fused_hit_is_kept(seed_kb, no_floor):
    result = search_knowledge(OFF_TOPIC, knowledge_bases=["seed"], top_k=5)
    assert len(result.hits) == 4 and result.trace["floor"]["removed"] == 0
    assert result.trace["floor"]["knowledge_bases"]["seed"]["source"] == "default"
    assert {h.channels["floor"]["by"] for h in result.hits} == {"off"}


def test_calibration_chooses_floors_that_keep_the_cases_and_drop_off_topic_questions(seed_kb):
    out = _calibrated(seed_kb)
    assert "| 0.99 (chosen) |" in out and "Saved on the knowledge base." in out
    assert "Per question language (the base's chunks: 4 zh)" in out and "| zh | 4 | 4 |" in out
    assert {row["language"] for row in seed_kb.floor_calibration["by_language"]} >= {"zh"}
    assert seed_kb.floor_cosine is not None or seed_kb.floor_bm25 is not None
    assert seed_kb.floor_calibration["cases"] == len(IN_DOMAIN)
    assert seed_kb.floor_calibration["chunks"] == 4  # its size: the floors move from there if the base grows
    assert seed_kb.floor_calibration["choice"]["recall_kept"] >= 0.99
    event = AuditEvent.objects.get(action="floor.calibrate")
    assert event.actor == "command:agentmemory_calibrate_floor"
    for query, ext in IN_DOMAIN:  # every case keeps its document
        hits = search_knowledge(query, knowledge_bases=["seed"], top_k=5).hits
        assert ext in [h.document_external_id for h in hits], query
        assert all(h.channels["floor"]["passed"] and h.channels["floor"]["by"] in ("cosine", "bm25", "margin")
                   for h in hits)
    off = search_knowledge(OFF_TOPIC, knowledge_bases=["seed"], top_k=5)
    assert off.hits == []
    floor = off.trace["floor"]
    assert floor["knowledge_bases"]["seed"]["source"] == "knowledge_base" and floor["removed"] == 4
    assert all("cosine" in d["reason"] and "bm25_norm" in d["reason"] for d in floor["removed_hits"])
    # Turned off for one search (hit testing, calibration): everything again, with the evidence shown.
    unfloored = search_knowledge(OFF_TOPIC, knowledge_bases=["seed"], top_k=5, floor=False)
    assert len(unfloored.hits) == 4 and all(h.channels["floor"]["cosine"] for h in unfloored.hits)


def test_the_default_floor_setting_applies_to_bases_without_their_own(seed_kb):
    with override_settings(AGENTMEMORY={"KNOWLEDGE_FLOOR": {"cosine": 0.9, "bm25": None}}):
        result = search_knowledge("绿茶用多少度的水冲泡", knowledge_bases=["seed"], top_k=5)
    assert [h.document_external_id for h in result.hits] == ["tea"]
    assert result.hits[0].channels["floor"]["by"] == "cosine"
    applied = result.trace["floor"]["knowledge_bases"]["seed"]
    assert {k: applied[k] for k in ("cosine", "bm25", "margin", "bm25_min_cosine", "model", "source", "chunks",
                                    "size_shift", "query_language")} == {
        "cosine": 0.9, "bm25": None, "margin": None, "bm25_min_cosine": None, "model": False, "source": "default",
        "chunks": 4, "size_shift": 0.0, "query_language": "zh"}  # no reference size given: the floor as set
    assert applied["candidates"]["zh"]["median"] == applied["median_cosine"]


def test_the_floor_is_on_by_default_and_moves_with_the_size_of_the_base(seed_kb):
    from agentmemory.conf import app_settings
    from agentmemory.knowledge.floor import size_shift

    default = app_settings.KNOWLEDGE_FLOOR
    assert default["model"] and default["cosine"] and default["bm25"] and default["reference_chunks"]
    off = search_knowledge(OFF_TOPIC, knowledge_bases=["seed"], top_k=5)
    # Search keeps recall (cmrc2018-dev R@5 within 0.002 of no floor): what an off-topic question still finds
    # in a four-chunk base is a weak match the model alone let through, which the context then leaves out.
    assert off.trace["floor"]["removed"] >= 3
    assert all(h.channels["floor"]["by"] == "model" and h.channels["floor"]["probability"] < 0.5 for h in off.hits)
    applied = off.trace["floor"]["knowledge_bases"]["seed"]
    # Four chunks, not the 1,736 it was calibrated on: both cosine floors sit lower by slope x ln(4 / 1736).
    assert applied["chunks"] == 4 and applied["size_shift"] == pytest.approx(size_shift(4, 1736, 0.0045), abs=1e-4)
    assert applied["size_shift"] < -0.02
    assert applied["cosine"] == pytest.approx(default["cosine"] + applied["size_shift"], abs=1e-4)
    assert applied["bm25_min_cosine"] == pytest.approx(default["bm25_min_cosine"] + applied["size_shift"], abs=1e-4)
    for query, ext in [("X-200 的额定功率是多少", "x200"), ("绿茶用多少度的水冲泡", "tea"), ("什么是大语言模型", "llm")]:
        assert search_knowledge(query, knowledge_bases=["seed"], top_k=5).hits[0].document_external_id == ext
    # A larger base meets more near-misses: its floor is higher; the shift is bounded both ways.
    assert size_shift(100_000, 1736, 0.0045) > 0
    assert size_shift(1, 10**9, 1.0) == -0.05 and size_shift(10**9, 1, 1.0) == 0.05
    assert size_shift(None, 1736, 0.0045) == size_shift(4, None, 0.0045) == size_shift(4, 1736, None) == 0.0


def test_the_hit_testing_page_shows_the_default_floor_moved_for_the_base(seed_kb, admin_client):
    html = admin_client.get(reverse("admin:agentmemory_hit_test", args=[seed_kb.pk]), {"query": OFF_TOPIC}).content.decode()
    assert "(default; 4 chunks: cosine floors -0.0273 for the base's size)" in html and "relevance model" in html
    assert "dropped 3 hit(s)" in html or "dropped 4 hit(s)" in html
    assert "<th>dropped chunk</th>" in html


def test_api_search_context_and_hit_testing_page_show_the_floor(seed_kb, api_client, admin_client):
    _calibrated(seed_kb)
    url = "/api/agentmemory/knowledge-bases/seed/search/"
    assert api_client.post(url, {"query": OFF_TOPIC}, format="json").json()["hits"] == []
    assert len(api_client.post(url, {"query": OFF_TOPIC, "floor": False}, format="json").json()["hits"]) == 4
    body = api_client.post("/api/agentmemory/context/", {"user_id": "floor-user", "query": OFF_TOPIC,
                                                          "knowledge_bases": ["seed"], "route": "knowledge"},
                           format="json").json()
    assert body["sections"]["knowledge"] == []
    assert {d["reason"] for d in body["trace"]["dropped"] if d["layer"] == "knowledge"} == {"floor"}
    page = admin_client.get(reverse("admin:agentmemory_hit_test", args=[seed_kb.pk]), {"query": OFF_TOPIC})
    html = page.content.decode()
    assert page.status_code == 200 and "Relevance floor" in html and "dropped 4 hit(s)" in html
    assert "(knowledge_base)" in html
    shown = admin_client.get(reverse("admin:agentmemory_hit_test", args=[seed_kb.pk]),
                             {"query": "绿茶用多少度的水冲泡", "floor": "off"}).content.decode()
    assert "off for this search" in shown and "✓ off" in shown


def test_floors_are_editable_in_the_admin(seed_kb, admin_client):
    url = reverse("admin:agentmemory_knowledgebase_change", args=[seed_kb.pk])
    form = admin_client.get(url).content.decode()
    assert 'name="floor_cosine"' in form and 'name="floor_bm25"' in form and 'name="floor_margin"' in form
    response = admin_client.post(url, {"slug": "seed", "name": "seed", "description": "", "chunk_size": seed_kb.chunk_size,
                                       "chunk_overlap": seed_kb.chunk_overlap, "user_dictionary": "[]",
                                       "floor_cosine": "0.91", "floor_bm25": "", "floor_bm25_min_cosine": "",
                                       "floor_margin": "", "duplicate_policy": "keep"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert KnowledgeBase.objects.get(pk=seed_kb.pk).floor_cosine == 0.91
