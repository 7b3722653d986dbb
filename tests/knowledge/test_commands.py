"""agentmemory_ingest (files and folders, idempotent, resumable) and agentmemory_reembed after a model change."""
from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from agentmemory.exceptions import EmbeddingModelMismatch
from agentmemory.knowledge.reembed import assert_embedding_model
from agentmemory.models import Chunk, Document, KnowledgeBase

from .conftest import COUNTING, MANUAL_MD, POLICY_ZH, make_docx, make_pdf

pytestmark = pytest.mark.django_db


def _ingest(*args) -> str:
    out = io.StringIO()
    call_command("agentmemory_ingest", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "docs"
    (root / "manuals").mkdir(parents=True)
    (root / "manuals" / "x200.md").write_text(MANUAL_MD, encoding="utf-8")
    (root / "policy.txt").write_text(POLICY_ZH, encoding="utf-8")
    (root / "guide.pdf").write_bytes(make_pdf([["1 Overview", "The X-200 monitors rooms.", "2 Setup",
                                                "Fix the bracket. Then power it on."]]))
    (root / "spec.docx").write_bytes(make_docx([("h1", "规格"), ("p", "电压 220V。"), ("h2", "尺寸"), ("p", "长 10 厘米。")]))
    (root / "notes.bin").write_bytes(b"\x00\x01")  # not an importable type: ignored in folders
    return root


def test_ingest_folder_then_rerun_is_a_noop_and_a_change_is_an_update(folder, counting_embedder):
    out = _ingest("--kb", "handbook", "--create", str(folder))
    assert "Done: 4 file(s)" in out and "created 4" in out
    kb = KnowledgeBase.objects.get(slug="handbook")
    docs = {d.external_id: d for d in Document.objects.filter(knowledge_base=kb)}
    assert set(docs) == {"manuals/x200.md", "policy.txt", "guide.pdf", "spec.docx"}
    assert docs["guide.pdf"].format == "pdf" and docs["spec.docx"].title == "规格"
    assert Chunk.objects.filter(document=docs["spec.docx"], heading_path="规格 > 尺寸", status="active").exists()
    assert Chunk.objects.filter(document=docs["guide.pdf"], heading_path="2 Setup").exists()
    embedded = len(counting_embedder.texts)
    assert embedded == Chunk.objects.filter(knowledge_base=kb).count()

    counting_embedder.reset()
    out = _ingest("--kb", "handbook", str(folder))
    assert "unchanged 4" in out and counting_embedder.texts == []

    (folder / "policy.txt").write_text(POLICY_ZH.replace("十五个工作日", "三十个工作日"), encoding="utf-8")
    out = _ingest("--kb", "handbook", str(folder / "policy.txt"))
    assert "updated v2" in out and "updated 1" in out
    assert 0 < len(counting_embedder.texts) < Chunk.objects.filter(document=docs["policy.txt"], version__number=2).count() + 1


def test_ingest_reports_bad_files_and_fails_without_stopping_the_others(tmp_path, counting_embedder):
    (tmp_path / "empty.md").write_text("  \n", encoding="utf-8")
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe\xfa")
    (tmp_path / "good.md").write_text("# 标题\n\n正文。", encoding="utf-8")
    out = io.StringIO()
    with pytest.raises(CommandError, match="2 file\\(s\\) failed"):
        call_command("agentmemory_ingest", "--kb", "kb1", "--create", str(tmp_path), stdout=out)
    assert "empty.md: FAILED" in out.getvalue() and "UTF-8" in out.getvalue()
    assert list(Document.objects.values_list("external_id", flat=True)) == ["good.md"]
    with pytest.raises(CommandError, match="does not exist"):
        call_command("agentmemory_ingest", "--kb", "nope", str(tmp_path), stdout=io.StringIO())


def test_ingest_killed_mid_way_resumes_on_rerun(tmp_path, counting_embedder):
    from .embedders import FailingEmbedder

    path = tmp_path / "policy.txt"
    path.write_text(POLICY_ZH, encoding="utf-8")
    KnowledgeBase.objects.create(slug="p", name="p", chunk_size=80, chunk_overlap=20)
    FailingEmbedder.budget = 2
    with override_settings(AGENTMEMORY={"EMBEDDER": "tests.knowledge.embedders.FailingEmbedder", "SENTENCE_VECTORS": False,
                                        "EMBEDDING_BATCH_SIZE": 2}):
        with pytest.raises(CommandError, match="rerun"):
            call_command("agentmemory_ingest", "--kb", "p", str(path), stdout=io.StringIO())
    document = Document.objects.get(external_id="policy.txt")
    assert document.active_version is None and document.versions.get().status == "failed"
    with override_settings(AGENTMEMORY={"EMBEDDER": COUNTING, "SENTENCE_VECTORS": False}):
        counting_embedder.reset()
        out = _ingest("--kb", "p", str(path))
    total = Chunk.objects.filter(document=document).count()
    assert "created v1" in out and len(counting_embedder.texts) == total - 2
    assert set(Chunk.objects.filter(document=document).values_list("status", flat=True)) == {"active"}


def test_model_change_refuses_search_until_reembedded(api_client, kb, counting_embedder):
    url = "/api/agentmemory/knowledge-bases/manuals/documents/"
    assert api_client.post(url, {"external_id": "m", "content": MANUAL_MD}, format="json").status_code == 201
    kb.refresh_from_db()
    assert kb.embedding_model == "multilingual-e5-small-q4"
    assert_embedding_model(kb)  # same model: allowed

    other = "tests.knowledge.embedders.OtherModelEmbedder"
    with override_settings(AGENTMEMORY={"EMBEDDER": other, "SENTENCE_VECTORS": False}):
        with pytest.raises(EmbeddingModelMismatch, match="agentmemory_reembed --kb manuals"):
            assert_embedding_model(kb)
        counting_embedder.reset()
        out = io.StringIO()
        call_command("agentmemory_reembed", "--kb", "manuals", stdout=out)
        total = Chunk.objects.filter(knowledge_base=kb).count()
        assert f"{total} chunk(s) to embed" in out.getvalue() and f"{total}/{total}" in out.getvalue()
        assert len(counting_embedder.texts) == total
        kb.refresh_from_db()
        assert kb.embedding_model == "multilingual-e5-small-q4-next"
        assert_embedding_model(kb)
        assert set(Chunk.objects.values_list("embedding_model", flat=True)) == {"multilingual-e5-small-q4-next"}
        counting_embedder.reset()
        call_command("agentmemory_reembed", "--kb", "manuals", stdout=io.StringIO())  # done: a no-op
        assert counting_embedder.texts == []
    with pytest.raises(EmbeddingModelMismatch):
        assert_embedding_model(kb)  # back on the old model: the stored vectors are of the new one
    # The re-embed endpoint does the same through the API.
    response = api_client.post("/api/agentmemory/knowledge-bases/manuals/reembed/")
    assert response.status_code == 200 and response.json()["model"] == "multilingual-e5-small-q4"
    job = api_client.get(f"/api/agentmemory/import-jobs/{response.json()['job']}/").json()
    assert job["status"] == "succeeded" and job["kind"] == "reembed" and job["progress"] == job["total"] > 0


def test_reembed_keywords_applies_a_new_user_dictionary(api_client, kb, counting_embedder):
    url = "/api/agentmemory/knowledge-bases/manuals/"
    assert api_client.post(f"{url}documents/", {"external_id": "m", "content": MANUAL_MD}, format="json").status_code == 201
    term = "'仓库温湿度监控终端'"
    assert not any(term in (c.search_vector or "") for c in Chunk.objects.all())
    assert api_client.patch(url, {"user_dictionary": ["仓库温湿度监控终端"]}, format="json").status_code == 200
    out = io.StringIO()
    call_command("agentmemory_reembed", "--kb", "manuals", "--keywords", stdout=out)
    assert "keyword index rebuilt" in out.getvalue()
    assert any(term in c.search_vector for c in Chunk.objects.all())
    # The postings follow, so the keyword channel finds the whole term at once.
    from agentmemory.models import KeywordPosting

    assert KeywordPosting.objects.filter(term="仓库温湿度监控终端", chunk__status="active").exists()
    found = api_client.post(f"{url}search/", {"query": "仓库温湿度监控终端", "mode": "keyword"}, format="json").json()
    assert "仓库温湿度监控终端" in found["hits"][0]["channels"]["keyword"]["matched_terms"]


def test_ingest_says_which_versions_the_publish_gate_held(tmp_path):
    from agentmemory.knowledge.evaluate import create_case
    from agentmemory.knowledge.search import search_knowledge

    path = tmp_path / "service.md"
    path.write_text("# 售后\n## 保修\n本产品保修两年。\n## 退货\n七天内可以退货。", encoding="utf-8")
    assert "created v1" in _ingest("--kb", "gated", "--create", str(path))
    kb = KnowledgeBase.objects.get(slug="gated")
    kb.publish_gate = True
    kb.save()
    hit = search_knowledge("保修期多久", knowledge_bases=["gated"]).hits[0]
    create_case(knowledge_base=kb, query="保修期多久", expected_chunk_ids=[hit.chunk_id])
    path.write_text("# 售后\n## 退货\n七天内可以退货。\n## 配送\n当日送达。", encoding="utf-8")
    out = _ingest("--kb", "gated", str(path))
    assert "updated v2" in out and "HELD by the publish gate (recall@5" in out and "held 1" in out
