"""Sentence vectors: written at import through REST, ranked as hybrid search's third channel, replaced by a
re-embed, shared by identical chunks, and never the reason an import fails."""
from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import override_settings

from agentmemory.knowledge.search import search_knowledge
from agentmemory.knowledge.sentences import chunk_sentences
from agentmemory.models import Chunk, ChunkSentence

pytestmark = pytest.mark.django_db


@pytest.fixture
def kb(db):
    from agentmemory.models import KnowledgeBase

    return KnowledgeBase.objects.create(slug="atlas", name="Atlas")  # default chunking: a paragraph, one chunk

DANUBE = ("The Danube is Europe's second-longest river. It rises in the Black Forest of Germany. "
          "It flows through ten countries, more than any other river in the world. "
          "Its delta on the Black Sea is a wetland of international importance.")


def _import(api, kb, external_id, text, title="Danube"):
    response = api.post(f"/api/agentmemory/knowledge-bases/{kb.slug}/documents/",
                        {"title": title, "external_id": external_id, "format": "text", "content": text},
                        format="json")
    assert response.status_code in (200, 201), response.content
    return response.json()


def test_sentences_are_cut_without_markup_and_a_one_sentence_chunk_has_none():
    assert chunk_sentences("", "One sentence only.") == []
    assert chunk_sentences("手册 > 安装", "## 安装\n\n先固定支架，再接通电源。指示灯变绿表示安装完成。") == [
        "手册 > 安装\n先固定支架，再接通电源。", "手册 > 安装\n指示灯变绿表示安装完成。"]
    # a list number joins the sentence after it
    assert chunk_sentences("", "Steps follow. 1. Fix the bracket first.") == ["Steps follow.",
                                                                               "1. Fix the bracket first."]


def test_an_import_writes_each_sentence_and_hybrid_search_ranks_chunks_by_their_best(api_client, kb):
    _import(api_client, kb, "danube", DANUBE)
    _import(api_client, kb, "tea", "绿茶用八十度的水冲泡。泡两分钟即可饮用。")
    chunk = Chunk.objects.get(document__external_id="danube")
    assert list(chunk.sentences.values_list("position", flat=True)) == [0, 1, 2, 3]
    assert set(ChunkSentence.objects.values_list("embedding_model", flat=True)) == {chunk.embedding_model}
    # a Chinese question about one English sentence: the sentence channel ranks the chunk, explained
    response = api_client.post(f"/api/agentmemory/knowledge-bases/{kb.slug}/search/",
                               {"query": "多瑙河发源于哪里？", "top_k": 2, "floor": False}, format="json")
    assert response.status_code == 200
    top = response.json()["hits"][0]
    assert top["document_external_id"] == "danube"
    assert top["channels"]["sentence"]["rank"] == 1 and top["channels"]["sentence"]["rrf"] > 0
    assert "sentence #1" in top["explanation"]
    # vector mode stays the chunk cosine alone
    vector = search_knowledge("多瑙河发源于哪里？", knowledge_bases=[kb.slug], mode="vector", floor=False)
    assert all("sentence" not in hit.channels for hit in vector.hits)


def test_identical_chunks_share_their_sentences_and_off_writes_none(api_client, kb, counting_embedder):
    with override_settings(AGENTMEMORY={"EMBEDDER": "tests.knowledge.embedders.CountingEmbedder"}):
        _import(api_client, kb, "one", DANUBE)
        first = len(counting_embedder.texts)
        assert first == 1 + 4  # the chunk, then its four sentences
        _import(api_client, kb, "two", DANUBE, title="Danube (copy)")
        assert len(counting_embedder.texts) == first  # chunk vector and sentence vectors reused
    copy = Chunk.objects.get(document__external_id="two")
    assert copy.sentences.count() == 4
    with override_settings(AGENTMEMORY={"EMBEDDER": "tests.knowledge.embedders.CountingEmbedder",
                                        "SENTENCE_VECTORS": False}):
        _import(api_client, kb, "three", DANUBE.replace("ten countries", "ten states"))
        result = search_knowledge("Where does the Danube rise?", knowledge_bases=[kb.slug], floor=False)
    assert Chunk.objects.get(document__external_id="three").sentences.count() == 0
    assert all("sentence" not in hit.channels for hit in result.hits)


def test_a_failing_embedder_costs_only_the_sentences_and_reembed_writes_them(api_client, kb):
    from .embedders import FailingEmbedder

    FailingEmbedder.budget = 1  # the chunk embeds, its sentences meet a server gone away
    with override_settings(AGENTMEMORY={"EMBEDDER": "tests.knowledge.embedders.FailingEmbedder"}):
        result = _import(api_client, kb, "danube", DANUBE)
    assert result["action"] == "created"
    chunk = Chunk.objects.get(document__external_id="danube")
    assert chunk.status == Chunk.Status.ACTIVE and chunk.sentences.count() == 0
    call_command("agentmemory_reembed", "--kb", kb.slug)  # the bundled model again: fills them in
    assert chunk.sentences.count() == 4
    hits = search_knowledge("Where does the Danube rise?", knowledge_bases=[kb.slug], floor=False).hits
    assert hits[0].channels["sentence"]["rank"] == 1


def test_a_large_base_walks_the_sentence_graph_within_pgvectors_ef_search(api_client, kb):
    """200 candidates read six sentences each through HNSW: ef_search stays at pgvector's maximum (1000)."""
    _import(api_client, kb, "danube", DANUBE)
    with override_settings(AGENTMEMORY={"VECTOR_EXACT_SEARCH_MAX": 0, "SEARCH_CANDIDATES": 200}):
        result = search_knowledge("Where does the Danube rise?", knowledge_bases=[kb.slug], floor=False)
    assert result.trace["channels"][kb.slug]["vector"]["scan"] == "hnsw"
    assert result.hits[0].channels["sentence"]["rank"] == 1
