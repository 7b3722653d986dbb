"""Evaluation: metrics, the agentmemory_eval command, stored runs, recall-drop flag, the after-import task."""
from __future__ import annotations

import io
import json
import time

import pytest
from django.core.management import CommandError, call_command

from agentmemory.knowledge.evaluate import create_case, evaluate_knowledge_base, metrics_for
from agentmemory.models import Chunk, EvaluationCase, EvaluationRun, KnowledgeBase

from .conftest import SEED_DOCS, build_kb, ingest


def test_metrics_of_a_ranked_list():
    m = metrics_for(["a", "b", "c", "d", "e", "f"], {"c", "z"})
    assert m["recall@1"] == 0 and m["recall@5"] == 0.5 and m["recall@10"] == 0.5
    assert m["mrr@10"] == pytest.approx(1 / 3)
    assert m["ndcg@10"] == pytest.approx((1 / 2) / (1 + 1 / 1.5849625), rel=1e-4)


@pytest.mark.django_db
def test_eval_command_prints_modes_side_by_side_and_stores_a_run(seed_kb, tmp_path, no_floor):
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in [
        {"query": "X-200 参数", "relevant": ["x200"]},
        {"query": "如何冲泡绿茶", "expected_external_ids": ["tea"]},
        {"query": "LLM", "relevant": ["llm"]},
    ]) + "\n", encoding="utf-8")
    out = io.StringIO()
    call_command("agentmemory_eval", "--kb", "seed", "--cases", str(cases), stdout=out, stderr=io.StringIO())
    text = out.getvalue()
    assert "| mode | recall@1 | recall@5 | recall@10 | mrr@10 | ndcg@10 |" in text
    for mode in ("keyword", "vector", "hybrid"):
        assert f"| {mode} |" in text
    run = EvaluationRun.objects.get(knowledge_base=seed_kb)
    assert run.case_count == 3 and run.status == "succeeded"
    assert run.metrics["hybrid"]["recall@5"] == 1.0
    assert run.metrics["keyword"]["recall@5"] < 1.0  # "LLM" has no keyword in the base
    assert run.config["BM25_K1"] == 1.2 and run.config["RRF_K"] == 60


@pytest.mark.django_db
def test_eval_command_errors(seed_kb, tmp_path):
    with pytest.raises(CommandError, match="nope"):
        call_command("agentmemory_eval", "--kb", "nope")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "x", "relevant": ["missing-doc"]}\n', encoding="utf-8")
    with pytest.raises(CommandError, match="missing-doc"):
        call_command("agentmemory_eval", "--kb", "seed", "--cases", str(bad))


@pytest.mark.django_db
def test_saved_chunk_case_survives_a_new_version_and_a_drop_is_flagged(seed_kb):
    chunk = Chunk.objects.get(knowledge_base=seed_kb, document__external_id="tea", status="active")
    create_case(knowledge_base=seed_kb, query="绿茶 水温", expected_chunk_ids=[chunk.pk])
    first = evaluate_knowledge_base(seed_kb)
    assert first.hybrid_recall_at_5 == 1.0 and not first.recall_dropped
    # same content re-imported under a new version still counts as the expected chunk
    ingest(seed_kb, "tea", "绿茶冲泡", SEED_DOCS[3][2] + "\n\n另：绿茶宜用玻璃杯。")
    # now the expected content disappears: recall falls and the run is flagged
    ingest(seed_kb, "tea", "咖啡", "手冲咖啡需要九十度的水。")
    second = evaluate_knowledge_base(seed_kb)
    assert second.hybrid_recall_at_5 == 0.0
    assert second.recall_dropped and second.previous_recall_at_5 == 1.0


@pytest.mark.django_db(transaction=True)
def test_an_import_triggers_evaluation_in_the_worker(celery_worker, settings):
    settings.AGENTMEMORY = {"EVAL_AFTER_IMPORT_DELAY": 0}
    kb = build_kb("worker", SEED_DOCS[:2])
    EvaluationCase.objects.create(knowledge_base=kb, query="X-200 参数",
                                  expected_document_ids=[kb.documents.get(external_id="x200").pk])
    ingest(kb, "tea", "绿茶冲泡", SEED_DOCS[3][2])
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        run = EvaluationRun.objects.filter(knowledge_base=kb, status="succeeded").first()
        if run is not None:
            break
        time.sleep(0.5)
    assert run is not None, "no evaluation ran after the import"
    assert run.trigger == "import" and run.hybrid_recall_at_5 == 1.0
    assert KnowledgeBase.objects.get(pk=kb.pk).retrieval_stats.evaluation_pending is False


@pytest.mark.django_db
def test_bench_command_prints_quality_agreement_and_latency_tables(tmp_path):
    corpus = [{"id": f"P{i}", "group": "g", "text": text, "meta": {"title": title}}
              for i, (_, title, text) in enumerate(SEED_DOCS)]
    queries = [{"id": "Q0", "group": "g", "text": "X-200 的额定功率是多少？", "relevant": ["P1"]},
               {"id": "Q1", "group": "g", "text": "绿茶用多少度的水冲泡？", "relevant": ["P3"]}]
    (tmp_path / "corpus.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in corpus), "utf-8")
    (tmp_path / "queries.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in queries), "utf-8")
    out = io.StringIO()
    call_command("agentmemory_bench_search", "--data", str(tmp_path), "--kb", "tiny", "--sizes", "30",
                 "--queries", "2", stdout=out, stderr=io.StringIO())
    text = out.getvalue()
    assert "| hybrid | 1.000 |" in text
    assert "top-10 overlap (mean) | 1.0000 |" in text
    assert "Latency at 30 chunks" in text and "| keyword |" in text
    assert Chunk.objects.filter(knowledge_base__slug="bench-synthetic-30", status="active").count() == 30
