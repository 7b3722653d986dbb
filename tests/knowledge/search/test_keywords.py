"""Keyword index values and BM25 statistics kept current through imports, updates and deletes."""
from __future__ import annotations

import math

import pytest
from django.db import connection

from agentmemory.knowledge.keywords import keyword_index_values
from agentmemory.knowledge.retrieve import bm25_idf, keyword_search
from agentmemory.models import Chunk, KnowledgeBaseStats, KnowledgeTermStat
from agentmemory.text.tsvector import tsvector_literal

from .conftest import build_kb, ingest

pytestmark = pytest.mark.django_db


def test_index_values_keep_term_frequency_and_identifiers():
    values = keyword_index_values("产品手册 > 参数", "X-200 的参数：X-200 功率 1500 瓦。MySQL v1.2")
    literal = values["search_vector"]
    assert "'x-200':" in literal and "'mysql':" in literal and "'v1.2':" in literal
    with connection.cursor() as cur:
        cur.execute("SELECT lexeme, array_length(positions, 1) FROM unnest(%s::tsvector)", [literal])
        tf = dict(cur.fetchall())
    assert tf["x-200"] == 2
    assert tf["参数"] == 2  # heading and text
    assert values["term_count"] == sum(tf.values())


def test_tsvector_literal_escapes_and_caps_positions():
    literal = tsvector_literal(["it's", "a\\b", *["x"] * 300])
    with connection.cursor() as cur:
        cur.execute("SELECT lexeme, array_length(positions, 1) FROM unnest(%s::tsvector)", [literal])
        tf = dict(cur.fetchall())
    assert tf == {"it's": 1, "a\\b": 1, "x": 256}


def test_statistics_follow_publish_update_and_delete():
    from agentmemory.knowledge.publish import delete_document
    from agentmemory.models import Document

    kb = build_kb("stats", [("a", "甲", "向量数据库 存储 向量。"), ("b", "乙", "关系数据库 存储 表格。")])
    stats = KnowledgeBaseStats.objects.get(knowledge_base=kb)
    active = Chunk.objects.filter(knowledge_base=kb, status="active")
    assert stats.chunk_count == active.count()
    assert stats.total_terms == sum(active.values_list("term_count", flat=True))
    assert KnowledgeTermStat.objects.get(knowledge_base=kb, term="存储").df == 2

    ingest(kb, "b", "乙", "关系数据库 保存 表格。")  # new version replaces the old chunk
    assert KnowledgeTermStat.objects.get(knowledge_base=kb, term="存储").df == 1
    assert KnowledgeTermStat.objects.get(knowledge_base=kb, term="保存").df == 1

    delete_document(Document.objects.get(knowledge_base=kb, external_id="a"))
    assert not KnowledgeTermStat.objects.filter(knowledge_base=kb, term="存储").exists()
    stats.refresh_from_db()
    assert stats.chunk_count == Chunk.objects.filter(knowledge_base=kb, status="active").count()


def test_bm25_in_sql_equals_okapi_formula():
    kb = build_kb("okapi", [("a", "一", "苹果 苹果 香蕉"), ("b", "二", "苹果 橙子 橙子 橙子 葡萄 西瓜"), ("c", "三", "香蕉 葡萄")])
    result = keyword_search(kb.pk, ["苹果", "橙子"], limit=10)
    stats = KnowledgeBaseStats.objects.get(knowledge_base=kb)
    n, avgdl = stats.chunk_count, stats.average_length
    expected = {}
    for chunk in Chunk.objects.filter(knowledge_base=kb, status="active"):
        with connection.cursor() as cur:
            cur.execute("SELECT lexeme, array_length(positions, 1) FROM unnest(%s::tsvector)", [chunk.search_vector])
            tf = dict(cur.fetchall())
        score = 0.0
        for term in ("苹果", "橙子"):
            if term in tf:
                df = KnowledgeTermStat.objects.get(knowledge_base=kb, term=term).df
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                assert idf == pytest.approx(bm25_idf(n, df))
                score += idf * tf[term] * 2.2 / (tf[term] + 1.2 * (1 - 0.75 + 0.75 * chunk.term_count / avgdl))
        if score:
            expected[chunk.pk] = score
    assert {h.chunk_id: h.score for h in result.hits} == pytest.approx(expected)
    assert [h.chunk_id for h in result.hits] == sorted(expected, key=expected.get, reverse=True)


def test_common_terms_do_not_generate_candidates_when_rare_terms_exist():
    docs = [(f"d{i}", f"文档{i}", f"系统 说明 第{i}节") for i in range(6)] + [("r", "稀有", "系统 说明 量子纠缠")]
    kb = build_kb("common", docs)
    result = keyword_search(kb.pk, ["系统", "说明", "量子"], limit=5, candidate_limit=3)
    assert result.candidate_terms == ["量子"]
    assert set(result.skipped_terms) == {"系统", "说明"}
    assert result.hits[0].matched_terms[0] == "量子"
    assert set(result.hits[0].matched_terms) == {"量子", "系统", "说明"}  # common terms still scored


def test_user_dictionary_terms_match_whole():
    kb = build_kb("dict", [("a", "手册", "智能网关 设置 方法"), ("b", "其它", "智能 手机 网关 路由")],
                  user_dictionary=["智能网关"])
    chunk = Chunk.objects.get(knowledge_base=kb, document__external_id="a")
    with connection.cursor() as cur:
        cur.execute("SELECT array_agg(lexeme) FROM unnest(%s::tsvector)", [chunk.search_vector])
        lexemes = cur.fetchone()[0]
    assert "智能网关" in lexemes


def _postings(kb) -> dict[tuple[str, int], tuple[int, int]]:
    from agentmemory.models import KeywordPosting

    return {(p.term, p.chunk_id): (p.tf, p.length) for p in KeywordPosting.objects.filter(knowledge_base=kb)}


def _expected_postings(kb) -> dict[tuple[str, int], tuple[int, int]]:
    expected = {}
    for chunk in Chunk.objects.filter(knowledge_base=kb, status="active"):
        with connection.cursor() as cur:
            cur.execute("SELECT lexeme, array_length(positions, 1) FROM unnest(%s::tsvector)", [chunk.search_vector])
            for term, tf in cur.fetchall():
                expected[(term, chunk.pk)] = (tf, chunk.term_count)
    return expected


def test_postings_hold_exactly_the_active_chunks_through_publish_rollback_delete_and_purge():
    from agentmemory.knowledge.publish import delete_document, rollback_document
    from agentmemory.models import Document, KeywordPosting

    kb = build_kb("postings", [("a", "甲", "向量数据库 存储 向量。"), ("b", "乙", "关系数据库 存储 表格。")])
    assert _postings(kb) == _expected_postings(kb) and _postings(kb)
    ingest(kb, "b", "乙", "关系数据库 保存 表格 表格。")  # v2 replaces v1
    assert _postings(kb) == _expected_postings(kb)
    assert ("保存", Chunk.objects.get(knowledge_base=kb, status="active", document__external_id="b").pk) in _postings(kb)
    rollback_document(Document.objects.get(knowledge_base=kb, external_id="b"), version_number=1)
    assert _postings(kb) == _expected_postings(kb)
    assert not any(term == "保存" for term, _ in _postings(kb))
    delete_document(Document.objects.get(knowledge_base=kb, external_id="a"))
    assert _postings(kb) == _expected_postings(kb)
    delete_document(Document.objects.get(knowledge_base=kb, external_id="b"), purge=True)
    assert _postings(kb) == {}
    other = build_kb("postings-gone", [("x", "丙", "全文检索 倒排索引")])
    assert KeywordPosting.objects.filter(knowledge_base=other).exists()
    other.delete()  # the database cascades chunk -> postings
    assert not KeywordPosting.objects.filter(knowledge_base_id=other.pk).exists()


def test_deleting_chunks_in_sql_deletes_their_postings_without_a_foreign_key():
    """Postings carry no foreign key (its per-row check was most of a publish's cost, migration 0013):
    a statement trigger deletes them with their chunks, whoever deletes the chunks."""
    from agentmemory.models import KeywordPosting

    kb = build_kb("postings-sql", [("a", "甲", "全文检索 倒排索引。"), ("b", "乙", "向量检索 近邻。")])
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'f'",
                    [KeywordPosting._meta.db_table])
        assert cur.fetchone()[0] == 0
    gone = Chunk.objects.get(knowledge_base=kb, status="active", document__external_id="a")
    kept = Chunk.objects.get(knowledge_base=kb, status="active", document__external_id="b")
    assert KeywordPosting.objects.filter(chunk=gone).exists()
    with connection.cursor() as cur:
        cur.execute(f"DELETE FROM {Chunk._meta.db_table} WHERE id = %s", [gone.pk])
    assert not KeywordPosting.objects.filter(chunk_id=gone.pk).exists()
    assert KeywordPosting.objects.filter(chunk=kept).exists()


@pytest.mark.django_db(transaction=True)
def test_a_chunk_deleted_while_its_postings_are_written_leaves_none_behind():
    """The writer locks the chunks it indexes: a concurrent DELETE waits for it, then its trigger sees the
    postings (with no foreign key, nothing else would stop a posting from outliving its chunk)."""
    import threading

    from django.db import connections, transaction

    from agentmemory.knowledge.keywords import rebuild_keyword_stats
    from agentmemory.models import KeywordPosting

    kb = build_kb("postings-race", [("a", "甲", "全文检索 倒排索引。")])
    chunk = Chunk.objects.get(knowledge_base=kb, status="active")
    deleted = threading.Event()
    started = threading.Event()

    def delete_chunk():
        try:
            started.set()
            with connections["default"].cursor() as cur:  # this thread's own connection
                cur.execute(f"DELETE FROM {Chunk._meta.db_table} WHERE id = %s", [chunk.pk])
            deleted.set()
        finally:
            connections["default"].close()

    with transaction.atomic():
        rebuild_keyword_stats(knowledge_base_id=kb.pk)  # deletes and re-inserts the postings, chunks locked
        other = threading.Thread(target=delete_chunk)
        other.start()
        started.wait(5)
        assert not deleted.wait(0.5), "the DELETE must wait for the transaction writing the chunk's postings"
    other.join(10)
    assert deleted.is_set()
    assert not KeywordPosting.objects.filter(chunk_id=chunk.pk).exists()


def test_keyword_search_applies_filters_before_the_limit():
    from agentmemory.models import Document

    docs = [(f"d{i}", f"文档{i}", "苹果 " * (5 - i) + "说明") for i in range(5)]
    kb = build_kb("kwfilter", docs)
    wanted = Document.objects.get(knowledge_base=kb, external_id="d4")
    result = keyword_search(kb.pk, ["苹果"], limit=1, filters={"document_ids": [wanted.pk]})
    assert [Chunk.objects.get(pk=h.chunk_id).document_id for h in result.hits] == [wanted.pk]
    assert keyword_search(kb.pk, ["苹果"], limit=1, filters={"external_ids": ["nope"]}).hits == []


def test_a_stale_posting_never_surfaces_a_deprecated_chunk():
    """Defence in depth: even if a posting outlived its chunk's version, search shows active chunks only."""
    from agentmemory.knowledge.search import search_knowledge
    from agentmemory.models import KeywordPosting

    kb = build_kb("stale", [("a", "甲", "X-200 实验 说明。"), ("b", "乙", "X-200 理论 综述。")])
    old = Chunk.objects.get(knowledge_base=kb, status="active", document__external_id="a")
    ingest(kb, "a", "甲", "经典力学 实验 说明。")  # v2: the v1 chunk is deprecated, its postings deleted
    KeywordPosting.objects.create(knowledge_base=kb, term="x-200", chunk=old, tf=3, length=old.term_count)
    assert old.pk in [h.chunk_id for h in keyword_search(kb.pk, ["x-200"], limit=10).hits]  # the stale row
    result = search_knowledge("X-200", knowledge_bases=["stale"], mode="keyword")
    assert [h.document_external_id for h in result.hits] == ["b"]


def test_a_chunk_turning_active_over_a_posting_left_behind_publishes_all_the_same():
    """Postings are inserted plainly (no conflict check) when chunks turn active; a posting that a host's SQL
    left on a deprecated chunk must not fail the rollback that re-activates it."""
    from agentmemory.knowledge.publish import rollback_document
    from agentmemory.models import Document, KeywordPosting

    kb = build_kb("leftover", [("a", "甲", "向量数据库 存储 向量。")])
    old = Chunk.objects.get(knowledge_base=kb, status="active")
    ingest(kb, "a", "甲", "关系数据库 保存 表格。")  # v2: v1's chunk deprecated, its postings deleted
    KeywordPosting.objects.create(knowledge_base=kb, term="存储", chunk=old, tf=9, length=old.term_count)
    rollback_document(Document.objects.get(knowledge_base=kb, external_id="a"), version_number=1)
    assert Chunk.objects.get(pk=old.pk).status == "active"
    postings = _postings(kb)
    assert postings.keys() == _expected_postings(kb).keys() and ("向量", old.pk) in postings
