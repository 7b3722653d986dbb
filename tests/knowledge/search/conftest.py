"""Fixtures of the retrieval tests: tiny knowledge bases built through the product's import path."""
from __future__ import annotations

import pytest

SEED_DOCS = [
    ("llm", "大语言模型简介", "大语言模型是在海量文本上训练的神经网络，能够理解和生成自然语言。"),
    ("x200", "X-200 产品手册", "X-200 参数：额定功率 1500 瓦，重量 3.2 千克，工作电压 220 伏。"),
    ("x300", "X-300 产品手册", "X-300 是新一代型号，支持无线连接和远程控制，适合家庭使用。"),
    ("tea", "绿茶冲泡", "冲泡绿茶的水温以八十度左右为宜，先温杯，再投茶，第一泡约一分钟。"),
]


def ingest(kb, external_id: str, title: str, text: str):
    """Import one Markdown document (title as its heading) through agentmemory.knowledge.ingest."""
    from agentmemory.knowledge.ingest import ingest_document, prepare_document

    parsed = prepare_document(fmt="markdown", content=f"# {title}\n\n{text}\n")
    return ingest_document(knowledge_base=kb, parsed=parsed, title=title, fmt="markdown", external_id=external_id)


def build_kb(slug: str, docs: list[tuple[str, str, str]], *, user_dictionary: list[str] | None = None):
    from agentmemory.models import KnowledgeBase

    kb = KnowledgeBase.objects.create(slug=slug, name=slug, user_dictionary=user_dictionary or [])
    for external_id, title, text in docs:
        ingest(kb, external_id, title, text)
    kb.refresh_from_db()
    return kb


@pytest.fixture
def seed_kb(db):
    return build_kb("seed", SEED_DOCS)


NO_FLOOR = {"cosine": None, "bm25": None, "bm25_min_cosine": None, "margin": None}


@pytest.fixture
def no_floor(settings):
    """The relevance floor off (it is on by default): for tests of the channels, thresholds and citations that
    rank every chunk of a four-document base, the weak hits included."""
    settings.AGENTMEMORY = {**(getattr(settings, "AGENTMEMORY", None) or {}), "KNOWLEDGE_FLOOR": NO_FLOOR}
