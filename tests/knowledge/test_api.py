"""Knowledge base and document import through the REST API (eager Celery: answers carry the result)."""
from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from agentmemory.knowledge.chunk import join_chunks
from agentmemory.models import AuditEvent, Chunk, Document, DocumentVersion, ImportJob, KnowledgeBase

from .conftest import MANUAL_MD, POLICY_ZH, make_docx, make_pdf

BASE = "/api/agentmemory/knowledge-bases/"
pytestmark = pytest.mark.django_db


def _assert_joined_chunks_reproduce_source(document_id):
    version = DocumentVersion.objects.get(document_id=document_id, status="active")
    chunks = list(Chunk.objects.filter(version=version).order_by("position"))
    for chunk in chunks:
        assert version.source_text[chunk.char_start:chunk.char_end] == chunk.text
    assert join_chunks(chunks) == version.source_text


def _chunks(api_client, slug, doc_id, version=None):
    url = f"{BASE}{slug}/documents/{doc_id}/chunks/" + (f"?version={version}" if version else "")
    response = api_client.get(url)
    assert response.status_code == 200, response.content
    return response.json()


def test_create_and_read_knowledge_base_with_chunking(api_client):
    response = api_client.post(BASE, {"slug": "policies", "name": "制度", "description": "公司制度",
                                      "chunking": {"chunk_size": 300, "chunk_overlap": 50}}, format="json")
    assert response.status_code == 201, response.content
    body = api_client.get(f"{BASE}policies/").json()
    assert (body["name"], body["chunk_size"], body["chunk_overlap"], body["document_count"]) == ("制度", 300, 50, 0)
    defaults = api_client.post(BASE, {"slug": "faq", "name": "FAQ"}, format="json").json()
    assert (defaults["chunk_size"], defaults["chunk_overlap"]) == (400, 60)
    assert AuditEvent.objects.filter(action="knowledge_base.create", actor="api_key:test-client").count() == 2


def test_patch_knowledge_base_chunking_and_dictionary(api_client, kb):
    response = api_client.patch(f"{BASE}manuals/", {"chunking": {"chunk_size": 500}, "user_dictionary": ["X-200 Pro"]},
                                format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["chunk_size"], body["chunk_overlap"], body["user_dictionary"]) == (500, 30, ["X-200 Pro"])
    response = api_client.patch(f"{BASE}manuals/", {"user_dictionary": "not a list"}, format="json")
    assert response.status_code == 400


def test_duplicate_slug_and_bad_chunking_are_refused(api_client, kb):
    response = api_client.post(BASE, {"slug": "manuals", "name": "again"}, format="json")
    assert response.status_code == 400
    assert "slug" in response.json()["detail"]
    response = api_client.post(BASE, {"slug": "x", "name": "x", "chunking": {"chunk_size": 100, "chunk_overlap": 80}},
                               format="json")
    assert response.status_code == 400 and "overlap" in response.json()["detail"]
    assert KnowledgeBase.objects.count() == 1
    assert api_client.get(f"{BASE}nope/").status_code == 404


def test_markdown_manual_imports_with_sections_paths_and_offsets(api_client, kb, counting_embedder):
    response = api_client.post(f"{BASE}manuals/documents/", {
        "external_id": "x200-manual", "title": "X-200 手册", "content": MANUAL_MD, "format": "markdown",
        "metadata": {"lang": "zh"},
    }, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["action"] == "created" and body["version"] == 1
    assert body["embedded"] == body["chunks"] == len(counting_embedder.texts) > 3
    assert body["document"]["active_version"] == 1 and body["document"]["metadata"] == {"lang": "zh"}

    chunks = _chunks(api_client, "manuals", body["document_id"])
    assert {c["status"] for c in chunks} == {"active"}
    assert {c["embedding_model"] for c in chunks} == {"multilingual-e5-small-q4"}
    assert "embedding" not in chunks[0]
    assert any(c["heading_path"] == "产品手册 > 参数说明" for c in chunks)
    assert not any("冷链车厢" in c["text"] and "工作电压" in c["text"] for c in chunks)
    version = DocumentVersion.objects.get(document_id=body["document_id"])
    for c in chunks:
        assert version.source_text[c["char_start"]:c["char_end"]] == c["text"]
    assert join_chunks(Chunk.objects.filter(version=version).order_by("position")) == MANUAL_MD
    # The heading path is embedded as context before the text.
    assert any(t.startswith("产品手册 > 参数说明\n") for t in counting_embedder.texts)
    # Keyword index values were written for the retrieval side.
    row = Chunk.objects.filter(version=version).exclude(term_count=0).first()
    assert row is not None and row.search_vector

    listing = api_client.get(f"{BASE}manuals/documents/").json()
    assert [d["external_id"] for d in listing] == ["x200-manual"]
    detail = api_client.get(f"{BASE}manuals/documents/{body['document_id']}/").json()
    assert detail["versions"][0]["number"] == 1 and detail["versions"][0]["status"] == "active"
    assert detail["versions"][0]["chunk_count"] == len(chunks)


def test_chinese_policy_without_headings_is_cut_at_sentence_ends(api_client, kb, counting_embedder):
    response = api_client.post(f"{BASE}manuals/documents/", {
        "external_id": "travel-policy", "title": "差旅制度", "content": POLICY_ZH, "format": "text",
    }, format="json")
    assert response.status_code == 201, response.content
    chunks = _chunks(api_client, "manuals", response.json()["document_id"])
    assert len(chunks) >= 2
    for c in chunks[:-1]:
        assert c["text"][-1] in "。！？；…"
    assert all(c["heading_path"] == "" for c in chunks)
    _assert_joined_chunks_reproduce_source(response.json()["document_id"])


def test_pdf_and_docx_upload_with_headings(api_client, kb, counting_embedder):
    pdf = make_pdf([["1 Overview", "The X-200 monitors storage rooms. It keeps data offline.",
                     "2 Parameters", "Voltage is 220V. Power is 15W."],
                    ["2.1 Limits", "The range is -40 to 85 degrees."]])
    response = api_client.post(f"{BASE}manuals/documents/", {
        "file": SimpleUploadedFile("x200.pdf", pdf, content_type="application/pdf"), "external_id": "x200-pdf",
    }, format="multipart")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["document"]["format"] == "pdf"
    paths = [c["heading_path"] for c in _chunks(api_client, "manuals", body["document_id"])]
    assert paths == ["1 Overview", "2 Parameters", "2 Parameters > 2.1 Limits"]
    _assert_joined_chunks_reproduce_source(body["document_id"])

    docx = make_docx([("h1", "产品手册"), ("p", "X-200 是一款监控终端。"), ("h2", "参数说明"),
                      ("p", "工作电压 220V。功率 15W。"), ("table", "参数|值;电压|220V"),
                      ("h2", "安装步骤"), ("p", "先固定支架，再接通电源。")])
    response = api_client.post(f"{BASE}manuals/documents/", {
        "file": SimpleUploadedFile("手册.docx", docx), "metadata": '{"source": "word"}',
    }, format="multipart")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["document"]["title"] == "产品手册" and body["document"]["metadata"] == {"source": "word"}
    chunks = _chunks(api_client, "manuals", body["document_id"])
    by_path = {c["heading_path"]: c["text"] for c in chunks}
    assert "电压 | 220V" in by_path["产品手册 > 参数说明"]
    assert "支架" in by_path["产品手册 > 安装步骤"] and "支架" not in by_path["产品手册 > 参数说明"]
    _assert_joined_chunks_reproduce_source(body["document_id"])


def test_html_import_uses_heading_structure(api_client, kb, counting_embedder):
    html = ("<html><head><title>X-200</title></head><body><h1>产品手册</h1><p>简介。</p>"
            "<h2>参数说明</h2><p>电压<b>220V</b>。</p><table><tr><th>参数</th><th>值</th></tr>"
            "<tr><td>功率</td><td>15W</td></tr></table><script>var x=1;</script></body></html>")
    response = api_client.post(f"{BASE}manuals/documents/", {"content": html, "format": "html"}, format="json")
    assert response.status_code == 201, response.content
    chunks = _chunks(api_client, "manuals", response.json()["document_id"])
    params = next(c for c in chunks if c["heading_path"] == "产品手册 > 参数说明")
    assert "电压220V。" in params["text"] and "功率 | 15W" in params["text"] and "var x" not in params["text"]


@pytest.mark.parametrize(("payload", "status_code", "field"), [
    ({"content": "", "format": "markdown"}, 400, "content"),
    ({"content": "   \n\n ", "format": "text"}, 400, "content"),
    ({"content": "hello", "format": "rtf"}, 415, "format"),
    ({"content": "hello", "format": "pdf"}, 400, "format"),
    ({"content": "hello", "format": "text", "metadata": [1, 2]}, 400, None),
])
def test_bad_json_input_is_a_4xx_and_writes_nothing(api_client, kb, payload, status_code, field):
    response = api_client.post(f"{BASE}manuals/documents/", payload, format="json")
    assert response.status_code == status_code, response.content
    body = response.json()
    assert body["detail"]
    if field:
        assert body.get("field") == field or field in body["detail"]
    assert not Document.objects.exists() and not ImportJob.objects.exists() and not Chunk.objects.exists()


def test_bad_uploads_are_refused_and_write_nothing(api_client, kb):
    url = f"{BASE}manuals/documents/"
    response = api_client.post(url, {"file": SimpleUploadedFile("a.exe", b"MZ\x90\x00")}, format="multipart")
    assert response.status_code == 415 and ".pdf" in response.json()["detail"]
    response = api_client.post(url, {"file": SimpleUploadedFile("a.txt", "中文".encode("gbk") + b"\xff")},
                               format="multipart")
    assert response.status_code == 400 and "UTF-8" in response.json()["detail"]
    response = api_client.post(url, {"file": SimpleUploadedFile("a.pdf", b"%PDF-1.4 broken")}, format="multipart")
    assert response.status_code == 400 and "PDF" in response.json()["detail"]
    response = api_client.post(url, {"file": SimpleUploadedFile("a.md", b"")}, format="multipart")
    assert response.status_code == 400
    with override_settings(AGENTMEMORY={"MAX_DOCUMENT_CHARS": 50}):
        response = api_client.post(url, {"content": "这是一句话。" * 20, "format": "text"}, format="json")
        assert response.status_code == 413 and "50" in response.json()["detail"]
        response = api_client.post(url, {"file": SimpleUploadedFile("b.txt", ("一句话。" * 20).encode())},
                                   format="multipart")
        assert response.status_code == 413
    assert not Document.objects.exists() and not ImportJob.objects.exists()
    assert api_client.post(f"{BASE}missing/documents/", {"content": "x"}, format="json").status_code == 404


def test_missing_parser_package_is_a_415_naming_the_extra(api_client, kb, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "docx", None)  # as if python-docx were not installed
    response = api_client.post(f"{BASE}manuals/documents/", {"file": SimpleUploadedFile("a.docx", b"PK")},
                               format="multipart")
    assert response.status_code == 415
    assert "agentmemory[documents]" in response.json()["detail"]


def test_api_needs_a_key(client, kb):
    assert client.get(f"{BASE}manuals/").status_code in (401, 403)


def test_a_changed_file_uploaded_again_is_the_next_version_titled_by_its_name(api_client, kb, counting_embedder):
    from pypdf import PdfReader, PdfWriter

    def pdf(text: str) -> bytes:
        writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf([["Warranty", text]]))))
        writer.add_metadata({"/Title": "untitled"})  # what some generators write
        out = io.BytesIO()
        writer.write(out)
        return out.getvalue()

    first = api_client.post(f"{BASE}manuals/documents/", {
        "file": SimpleUploadedFile("warranty.pdf", pdf("The warranty lasts two years."))}, format="multipart")
    assert first.status_code == 201, first.content
    assert first.json()["document"]["title"] == "warranty"  # the file name, not the placeholder
    second = api_client.post(f"{BASE}manuals/documents/", {
        "file": SimpleUploadedFile("warranty.pdf", pdf("The warranty lasts THREE years."))}, format="multipart")
    assert second.status_code == 201, second.content
    assert second.json()["document_id"] == first.json()["document_id"] and second.json()["version"] == 2
    hits = api_client.post(f"{BASE}manuals/search/", {"query": "warranty years", "mode": "keyword"},
                           format="json").json()["hits"]
    texts = " ".join(h["text"] for h in hits)
    assert "THREE years" in texts and "two years" not in texts
