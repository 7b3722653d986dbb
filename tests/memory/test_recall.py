"""Recall through the API and the service: breakdown, access updates, degrade, time travel, cold, profile cache."""
from __future__ import annotations

import datetime as dt
import socket

import pytest
from django.test import override_settings
from django.utils import timezone

from agentmemory.memory.decay import decay_factor, frequency_factor
from agentmemory.memory.profile import get_profile, top_memories
from agentmemory.memory.recall import recall_memories
from agentmemory.memory.write import write_memory
from agentmemory.models import MemoryItem
from agentmemory.ranking.fusion import fuse_channels as fuse
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db

BASE = "/api/agentmemory/users"


def _write(user, content, **kw):
    kw.setdefault("type", "fact")
    kw.setdefault("source", "user_stated")
    return write_memory(user, MemoryDraft(content=content, **kw))


def test_search_returns_breakdown_and_updates_access(api_client):
    hit = _write("u", "公司做跨境电商，主营母婴用品", key="company_industry").memory_id
    _write("u", "喜欢简洁的结论", type="preference", key="reply_style")
    response = api_client.post(f"{BASE}/u/memories/search/", {"query": "写一封海外营销邮件，介绍我们的母婴产品"},
                               format="json").json()
    assert response["mode"] == "hybrid"
    first = response["results"][0]
    assert first["id"] == hit
    scores = first["scores"]
    assert set(scores) == {"vector", "bm25", "vector_norm", "bm25_norm", "relevance", "context", "decay", "source_weight",
                           "confidence", "frequency", "final", "window", "window_cosine", "prior"}
    assert scores["bm25"] > 0 and scores["vector"] > 0.5
    expected = (scores["relevance"] * scores["decay"] * scores["source_weight"] * scores["confidence"]
                * scores["frequency"])
    assert scores["frequency"] == 1.0  # never used before this recall
    assert scores["final"] == pytest.approx(expected, abs=1e-5)
    item = MemoryItem.objects.for_user("u").get(pk=hit)
    assert item.access_count == 1 and item.last_accessed_at is not None


def test_recall_degrades_to_keyword_only_when_the_embedder_fails():
    _write("kw", "我们在用 PostgreSQL 数据库", key="tech_stack")
    _write("kw", "预算 5000 以内", key="budget")
    with socket.socket() as sock:  # a port nobody listens on: the HTTP embedder really fails
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with override_settings(AGENTMEMORY={
        "EMBEDDER": "agentmemory.backends.embeddings.openai.OpenAIEmbedder",
        "EMBEDDING_URL": f"http://127.0.0.1:{port}/v1", "EMBEDDING_MODEL": "e5", "EMBEDDING_TIMEOUT": 2.0,
    }):
        results = recall_memories("kw", "PostgreSQL 版本")
    assert results.mode == "keyword" and results.degraded and "embedder unavailable" in results.degraded_reason
    assert [r.memory.content for r in results] == ["我们在用 PostgreSQL 数据库"]
    assert results[0].scores.vector is None and results[0].scores.bm25 > 0


def test_as_of_finds_what_was_true_then_and_cold_items_need_asking():
    t0 = timezone.now() - dt.timedelta(days=60)
    _write("tt", "我们在用 MySQL", key="tech_stack", valid_from=t0)
    _write("tt", "已经全部迁到 PostgreSQL 了", key="tech_stack", valid_from=t0 + dt.timedelta(days=30))
    then = recall_memories("tt", "用的什么数据库", as_of=t0 + dt.timedelta(days=10), touch=False)
    assert [r.memory.content for r in then] == ["我们在用 MySQL"]
    now = recall_memories("tt", "用的什么数据库", touch=False)
    assert [r.memory.content for r in now] == ["已经全部迁到 PostgreSQL 了"]

    # A statement older than the current value is kept as history, not made current.
    late = _write("tt", "我们以前用 Oracle", key="tech_stack", valid_from=t0 - dt.timedelta(days=30))
    assert late.action == "created"
    assert MemoryItem.objects.for_user("tt").get(pk=late.memory_id).status == "superseded"
    assert MemoryItem.objects.for_user("tt").active().get().content == "已经全部迁到 PostgreSQL 了"


def test_profile_is_cached_and_dropped_on_write():
    _write("p", "公司行业是母婴用品", key="company_industry", confidence=0.9)
    _write("p", "可能喜欢安静", key="quiet", source="model_inferred", confidence=0.9)
    _write("p", "预算大概 5000", key="budget", confidence=0.5)  # too unsure for the profile
    first = get_profile("p")
    assert [(f["key"], f["content"]) for f in first["facts"]] == [("company_industry", "公司行业是母婴用品"),
                                                                  ("quiet", "可能喜欢安静")]
    assert get_profile("p") == first
    _write("p", "公司行业改为跨境电商", key="company_industry", confidence=0.95)
    assert [f["content"] for f in get_profile("p")["facts"]] == ["公司行业改为跨境电商", "可能喜欢安静"]
    assert [m["content"] for m in top_memories("p", limit=1)] == ["公司行业改为跨境电商"]


def test_pure_scoring_functions():
    now = timezone.now()
    assert decay_factor(now - dt.timedelta(days=30), now, half_life_days=30, floor=0.0) == pytest.approx(0.5)
    assert decay_factor(now - dt.timedelta(days=3000), now, half_life_days=30, floor=0.05) == 0.05
    relevance, vn, bn = fuse({1: 0.9, 2: 0.8}, {2: 5.0, 3: 1.0}, method="minmax", vector_weight=0.5)
    assert relevance == {1: 0.5, 2: 0.5, 3: 0.0} and vn[3] == 0.0 and bn[1] == 0.0
    rrf, _, _ = fuse({1: 0.9, 2: 0.8}, {2: 5.0}, method="rrf", vector_weight=0.5)
    assert max(rrf, key=rrf.get) == 2


def test_access_frequency_ranks_with_diminishing_returns():
    assert frequency_factor(0, weight=0.2, saturation=20) == 1.0
    assert frequency_factor(20, weight=0.2, saturation=20) == pytest.approx(1.2)
    assert frequency_factor(10_000, weight=0.2, saturation=20) == pytest.approx(1.2)  # capped
    four = frequency_factor(4, weight=0.2, saturation=20)
    assert 1.0 < four < frequency_factor(8, weight=0.2, saturation=20) < 1.2
    assert four == pytest.approx(1 + 0.2 * __import__("math").log(5) / __import__("math").log(21))
    assert frequency_factor(50, weight=0.0, saturation=20) == 1.0


def test_an_often_used_memory_outranks_an_equally_relevant_unused_one(api_client):
    from agentmemory.memory.bulk import import_log

    # Two log events equally relevant to the query (same words), one of them used often.
    ids = import_log("freq", [MemoryDraft(content="We hold the team retro on Friday afternoons", type="event",
                                          source="system_log", session_id="S", turn_id=i) for i in (1, 2)])
    MemoryItem.objects.for_user("freq").filter(pk=ids[0]).update(access_count=12)
    body = api_client.post(f"{BASE}/freq/memories/search/", {"query": "When is the team retro?"},
                           format="json").json()
    ranked = [(r["id"], r["scores"]) for r in body["results"]]
    assert ranked[0][0] == ids[0] and ranked[1][0] == ids[1]
    assert ranked[0][1]["relevance"] == pytest.approx(ranked[1][1]["relevance"])
    assert ranked[0][1]["frequency"] == pytest.approx(frequency_factor(12, weight=0.2, saturation=20), abs=1e-5)
    assert ranked[1][1]["frequency"] == 1.0
    with override_settings(AGENTMEMORY={"MEMORY_ACCESS_WEIGHT": 0.0}):
        again = recall_memories("freq", "When is the team retro?", top_k=2, touch=False)
        assert [h.scores.frequency for h in again] == [1.0, 1.0]


def test_log_import_stores_turns_as_given_and_is_idempotent():
    from agentmemory.memory.bulk import import_log

    drafts = [MemoryDraft(content=text, type="event", source="system_log", session_id="S1", turn_id=i)
              for i, text in enumerate(["Caroline: Hey Mel!", "Melanie: I ran a charity race for mental health.",
                                        "Caroline: Call me at 13812345678"])]
    ids = import_log("log", drafts)
    assert import_log("log", drafts) == ids  # a re-run adds nothing
    assert MemoryItem.objects.for_user("log").count() == 3
    assert MemoryItem.objects.for_user("log").get(pk=ids[2]).content == "Caroline: Call me at 138****5678"
    hits = recall_memories("log", "What race did Melanie run?", top_k=1, touch=False)
    assert [h.memory.pk for h in hits] == [ids[1]]


def test_neighbour_context_lifts_the_turn_next_to_a_match():
    from agentmemory.memory.recall import with_neighbour_context

    relevance = {1: 1.0, 2: 0.1, 3: 0.2, 4: 0.3}
    positions = {1: ("S1", 5), 2: ("S1", 6), 3: ("S2", 6), 4: ("", None)}
    out = with_neighbour_context(relevance, positions, window=1, weight=0.5)
    assert out == {1: 1.05, 2: 0.6, 3: 0.2, 4: 0.3}
    assert with_neighbour_context(relevance, positions, window=0, weight=0.5) == relevance


def test_large_scopes_use_the_hnsw_index_with_the_same_answer():
    _write("big", "公司做跨境电商，主营母婴用品", key="company_industry")
    _write("big", "喜欢简洁的结论", type="preference", key="reply_style")
    _write("other-big", "公司做跨境电商，主营母婴用品", key="company_industry")
    exact = recall_memories("big", "跨境电商", touch=False)
    with override_settings(AGENTMEMORY={"MEMORY_EXACT_SEARCH_MAX": 0}):
        approximate = recall_memories("big", "跨境电商", touch=False)
    assert [r.memory.pk for r in approximate] == [r.memory.pk for r in exact]
    assert all(r.memory.user_id == "big" for r in approximate)


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_access_is_written_after_recall_returns():
    """Recall hands access statistics to a background writer, which coalesces them per user."""
    from agentmemory.memory.access import flush_access

    fact = _write("async-u", "公司做跨境电商，主营母婴用品", key="company_industry").memory_id
    cold = _write("async-u", "预算五千以内", key="budget").memory_id
    MemoryItem.objects.for_user("async-u").filter(pk=cold).update(status=MemoryItem.Status.COLD)
    _write("async-other", "公司做跨境电商，主营母婴用品", key="company_industry")
    for _ in range(2):
        found = recall_memories("async-u", "母婴用品 预算", include_cold=True)
        assert {r.memory.pk for r in found} == {fact, cold}
    flush_access()
    rows = {m.pk: m for m in MemoryItem.objects.for_user("async-u")}
    assert rows[fact].access_count == 2 and rows[fact].last_accessed_at is not None
    assert rows[cold].status == MemoryItem.Status.ACTIVE  # recalled, so no longer cold
    other = MemoryItem.objects.for_user("async-other").get()
    assert other.access_count == 0 and other.last_accessed_at is None
    # The writer matches every row on its user too: an id paired with the wrong user changes nothing.
    from agentmemory.memory.access import record_access

    record_access("async-u", [other.pk], timezone.now())
    flush_access()
    other.refresh_from_db()
    assert other.access_count == 0 and other.last_accessed_at is None


def test_top_memories_rank_by_confidence_source_and_decay_like_recall():
    from agentmemory.conf import app_settings

    now = timezone.now()
    rows = [("预算五千以内", "user_stated", 0.9, 1), ("喜欢简洁的结论", "user_stated", 0.8, 200),
            ("用户常在晚上提问", "system_log", 0.95, 3), ("公司有三十名员工", "user_stated", 0.6, 0),
            ("主营母婴用品", "user_stated", 0.99, 60)]
    for i, (content, source, confidence, days) in enumerate(rows):
        pk = _write("top-u", content, source=source, confidence=confidence, key=f"k{i}").memory_id
        MemoryItem.objects.for_user("top-u").filter(pk=pk).update(last_accessed_at=now - dt.timedelta(days=days))
    weights = app_settings.MEMORY_SOURCE_WEIGHTS
    expected = sorted(rows, key=lambda r: -(r[2] * weights[r[1]] * decay_factor(
        now - dt.timedelta(days=r[3]), now, half_life_days=float(app_settings.MEMORY_HALF_LIFE_DAYS),
        floor=float(app_settings.MEMORY_DECAY_FLOOR))))
    assert [m["content"] for m in top_memories("top-u", limit=3)] == [r[0] for r in expected[:3]]
