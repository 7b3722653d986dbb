"""The one search path: seed cases of the issue, thresholds, explanations, degradation, query bound."""
from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from agentmemory.exceptions import InvalidInput, NotFound
from agentmemory.knowledge.search import search_knowledge

from .conftest import SEED_DOCS, build_kb

pytestmark = pytest.mark.django_db


def test_llm_finds_the_chunk_saying_da_yu_yan_mo_xing_through_the_vector_channel(seed_kb, no_floor):
    result = search_knowledge("LLM", knowledge_bases=["seed"], mode="hybrid")
    top = result.hits[0]
    assert top.document_external_id == "llm"
    assert "大语言模型" in top.text
    assert "keyword" not in top.channels  # no shared keyword: the vector channel found it
    assert top.channels["vector"]["rank"] == 1


def test_product_code_query_finds_that_chunk_first_by_keyword(seed_kb):
    result = search_knowledge("X-200 参数", knowledge_bases=["seed"], mode="keyword")
    top = result.hits[0]
    assert top.document_external_id == "x200"
    assert {"x-200", "参数"} <= set(top.channels["keyword"]["matched_terms"])
    assert top.score_kind == "bm25"
    hybrid = search_knowledge("X-200 参数", knowledge_bases=["seed"])
    assert hybrid.hits[0].document_external_id == "x200"
    assert hybrid.hits[0].channels["keyword"]["rank"] == 1


@override_settings(AGENTMEMORY={"SEARCH_THRESHOLDS": {"cosine": 0.82, "bm25": 2.0, "rerank": None}})
def test_question_without_answer_returns_no_hit_above_configured_thresholds(seed_kb):
    result = search_knowledge("火星上的天气怎么样", knowledge_bases=["seed"])
    assert result.hits == []
    assert result.trace["thresholds"]["cosine"]["removed"] == len(SEED_DOCS)
    assert result.trace["thresholds"]["bm25"]["value"] == 2.0
    answered = search_knowledge("X-200 参数", knowledge_bases=["seed"])
    assert answered.hits[0].document_external_id == "x200"


def test_thresholds_apply_per_channel_and_zero_is_a_real_threshold(seed_kb, no_floor):
    loose = search_knowledge("X-200 参数", knowledge_bases=["seed"], mode="keyword",
                             thresholds={"bm25": 0})
    strict = search_knowledge("X-200 参数", knowledge_bases=["seed"], mode="keyword",
                              thresholds={"bm25": loose.hits[0].score})
    assert len(loose.hits) == 2  # every positive BM25 score passes 0
    assert [h.document_external_id for h in strict.hits] == ["x200"]
    assert strict.trace["thresholds"]["bm25"]["removed"] == 1
    # a cosine threshold never removes keyword hits: the fused list keeps them
    fused = search_knowledge("X-200 参数", knowledge_bases=["seed"], thresholds={"cosine": 0.99})
    assert [h.document_external_id for h in fused.hits] == ["x200", "x300"]
    assert all("vector" not in h.channels for h in fused.hits)


def test_hits_are_cited_and_explained(seed_kb, no_floor):
    result = search_knowledge("如何冲泡绿茶", knowledge_bases=["seed"], top_k=2)
    hit = result.hits[0]
    assert hit.document_title == "绿茶冲泡" and hit.version == 1
    assert "绿茶冲泡" in hit.citation and "v1" in hit.citation
    assert hit.score_kind == "rrf"
    assert hit.score == pytest.approx(sum(hit.channels[c]["rrf"] for c in ("keyword", "vector", "sentence")),
                                      abs=2e-6)
    assert hit.channels["keyword"]["rrf"] == pytest.approx(1 / 61, abs=1e-6)
    assert "BM25" in hit.explanation and "cosine" in hit.explanation
    terms = {t["term"]: t for t in result.trace["channels"]["seed"]["keyword"]["terms"]}
    assert terms["绿茶"]["df"] == 1 and terms["绿茶"]["idf"] > 0
    assert {"embed", "keyword", "vector", "fuse", "hydrate", "total"} <= set(result.trace["timings_ms"])
    assert len(result.hits) == 2


def test_new_version_replaces_old_chunks_in_results(seed_kb):
    from .conftest import ingest

    ingest(seed_kb, "x200", "X-200 产品手册", "X-200 参数：额定功率 1800 瓦，重量 3.5 千克。")
    result = search_knowledge("X-200 参数", knowledge_bases=["seed"], mode="keyword")
    x200 = [h for h in result.hits if h.document_external_id == "x200"]
    assert len(x200) == 1 and x200[0].version == 2 and "1800" in x200[0].text


def test_several_knowledge_bases_are_fused_per_base(seed_kb):
    build_kb("other", [("go", "围棋规则", "围棋使用黑白两色棋子，在十九路棋盘上对弈。")])
    result = search_knowledge("围棋 棋盘", knowledge_bases=["seed", "other"], top_k=3)
    assert result.hits[0].knowledge_base == "other"
    assert set(result.trace["channels"]) == {"seed", "other"}
    everything = search_knowledge("绿茶", knowledge_bases=None, top_k=1)
    assert everything.hits[0].knowledge_base == "seed"


def test_filters_restrict_documents(seed_kb):
    result = search_knowledge("产品 参数", knowledge_bases=["seed"], filters={"external_ids": ["x300"]})
    assert {h.document_external_id for h in result.hits} == {"x300"}


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_embedder_failure_degrades_to_keyword_only(seed_kb, settings, mode):
    import socket

    with socket.socket() as probe:  # a port nobody listens on: the embedding server is down
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings.AGENTMEMORY = {"EMBEDDER": "agentmemory.backends.embeddings.openai.OpenAIEmbedder",
                            "EMBEDDING_URL": f"http://127.0.0.1:{port}/v1", "EMBEDDING_MODEL": "e5",
                            "EMBEDDING_TIMEOUT": 2.0}
    result = search_knowledge("X-200 参数", knowledge_bases=["seed"], mode=mode)
    assert result.hits[0].document_external_id == "x200"
    assert result.hits[0].score_kind == "bm25"
    assert result.trace["effective_mode"] == "keyword"
    assert any("embedder failed" in d for d in result.trace["degraded"])


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"query": ""}, "query"),
    ({"query": "   "}, "query"),
    ({"query": "x" * 100_000}, "query"),
    ({"query": "x", "mode": "fuzzy"}, "mode"),
    ({"query": "x", "top_k": 0}, "top_k"),
    ({"query": "x", "top_k": 51}, "top_k"),
    ({"query": "x", "thresholds": {"jaccard": 1}}, "thresholds"),
    ({"query": "x", "filters": {"author": "me"}}, "filters"),
])
def test_bad_input_is_refused_with_the_field(seed_kb, kwargs, field):
    with pytest.raises(InvalidInput) as info:
        search_knowledge(knowledge_bases=["seed"], **kwargs)
    assert info.value.field == field


def test_unknown_knowledge_base_is_not_found(seed_kb):
    with pytest.raises(NotFound, match="nope"):
        search_knowledge("x", knowledge_bases=["seed", "nope"])


def test_search_path_makes_a_fixed_number_of_queries(seed_kb, django_assert_num_queries):
    search_knowledge("X-200 参数", knowledge_bases=["seed"])  # warm caches (jieba, embedder, pgvector version)
    # keyword (terms and postings), the chunk vectors, the sentence vectors (each in its read transaction:
    # a savepoint here), hydration
    with django_assert_num_queries(10):
        result = search_knowledge("X-200 参数 功率", knowledge_bases=["seed"], top_k=5)
    assert result.hits


def test_small_bases_are_scanned_exactly_and_large_ones_through_hnsw_with_the_same_answer(seed_kb):
    exact = search_knowledge("大语言模型", knowledge_bases=["seed"], mode="vector", top_k=3)
    assert exact.trace["channels"]["seed"]["vector"]["scan"] == "exact"
    with override_settings(AGENTMEMORY={"VECTOR_EXACT_SEARCH_MAX": 0}):
        graph = search_knowledge("大语言模型", knowledge_bases=["seed"], mode="vector", top_k=3)
    assert graph.trace["channels"]["seed"]["vector"]["scan"] == "hnsw"
    assert graph.trace["channels"]["seed"]["vector"]["ef_search"] == 100
    assert [h.chunk_id for h in graph.hits] == [h.chunk_id for h in exact.hits]
    assert [h.score for h in graph.hits] == pytest.approx([h.score for h in exact.hits])


def test_a_large_base_walks_the_graph_even_where_the_statistics_do_not_know_it(seed_kb):
    """A base bulk-imported since the last ANALYZE (or one of many sharing the table) looks tiny to the planner;
    left to itself it would sort every chunk of the base exactly. The statements the search sends, replayed with
    the table's statistics gone, still plan the HNSW index."""
    from agentmemory.models import Chunk

    with connection.cursor() as cur:
        cur.execute(f"DELETE FROM pg_statistic WHERE starelid = '{Chunk._meta.db_table}'::regclass")
    with override_settings(AGENTMEMORY={"VECTOR_EXACT_SEARCH_MAX": 0}), \
            CaptureQueriesContext(connection) as sent:
        search_knowledge("大语言模型", knowledge_bases=["seed"], mode="vector", top_k=3)
    nearest = [i for i, q in enumerate(sent.captured_queries) if "WITH nn AS MATERIALIZED" in q["sql"]][-1]
    settings = [q["sql"] for q in sent.captured_queries[:nearest] if "set_config('hnsw.ef_search'" in q["sql"]]
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(settings[-1])
        cur.execute("EXPLAIN " + sent.captured_queries[nearest]["sql"])
        plan = "\n".join(row[0] for row in cur.fetchall())
    assert "am_chunk_embedding_hnsw" in plan, plan
