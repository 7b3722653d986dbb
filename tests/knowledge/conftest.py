"""Fixtures of the knowledge tests: a knowledge base, the counting embedder, document fixtures."""
from __future__ import annotations

import io

import pytest
from django.test import override_settings

COUNTING = "tests.knowledge.embedders.CountingEmbedder"

MANUAL_MD = """# 产品手册

X-200 是一款仓库温湿度监控终端。

## 适用场景

X-200 适用于中小型仓库、冷链车厢和档案室。它支持离线运行，断网时数据缓存在本地！恢复联网后自动上传。

## 参数说明

工作电压为 220V，功率 15W。测量范围为零下 40 度到 85 度；精度为正负 0.3 度。

| 参数 | 值 |
|---|---|
| 电压 | 220V |
| 功率 | 15W |

## 安装步骤

先固定支架，再接通电源。指示灯变绿表示安装完成。
"""

POLICY_ZH = (
    "员工差旅报销须在出差结束后十五个工作日内提交。超过期限的申请，需要部门负责人书面说明原因！"
    "住宿标准按城市等级执行：一线城市每晚不超过六百元，其他城市每晚不超过四百元。"
    "交通费用以实际票据为准；乘坐飞机须选择经济舱……出租车费用须注明起止地点和事由。"
    "餐费补助按天计算，每天一百元，不需要提供发票。"
    "因公招待费用须事先申请，并附上招待对象名单。违反本规定的，财务部门有权拒绝报销？"
    "本规定自发布之日起施行，由财务部负责解释。"
)


@pytest.fixture
def counting_embedder():
    from agentmemory.backends import reset_backends

    from .embedders import CountingEmbedder

    # It counts the chunks' vectors: sentence vectors (tests/knowledge/test_sentences.py) are off here.
    with override_settings(AGENTMEMORY={"EMBEDDER": COUNTING, "SENTENCE_VECTORS": False}):
        reset_backends()
        CountingEmbedder.reset()
        yield CountingEmbedder
        CountingEmbedder.reset()
    reset_backends()


@pytest.fixture
def kb(db):
    from agentmemory.models import KnowledgeBase

    return KnowledgeBase.objects.create(slug="manuals", name="Manuals", chunk_size=120, chunk_overlap=30)


def make_docx(blocks: list[tuple[str, str]]) -> bytes:
    """A DOCX made with python-docx: ("h1"|"h2"|"p", text) blocks, and ("table", "a|b;c|d")."""
    import docx

    document = docx.Document()
    for kind, text in blocks:
        if kind.startswith("h"):
            document.add_heading(text, level=int(kind[1]))
        elif kind == "table":
            rows = [row.split("|") for row in text.split(";")]
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for r, row in enumerate(rows):
                for c, value in enumerate(row):
                    table.cell(r, c).text = value
        else:
            document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_pdf(pages: list[list[str]], outline: list[tuple[str, int, int]] | None = None) -> bytes:
    """A small valid PDF written by hand (Helvetica text lines), with an outline added by pypdf."""
    from pypdf import PdfReader, PdfWriter

    objects: list[bytes] = []
    page_ids = []
    font_id = 3
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(b"")  # pages, filled below
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for lines in pages:
        ops = ["BT", "/F1 11 Tf", "14 TL", "72 740 Td"]
        for line in lines:
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"({escaped}) Tj T*")
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content_id = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (content_id, font_id)
        )
        page_ids.append(len(objects))
    kids = " ".join(f"{i} 0 R" for i in page_ids).encode()
    objects[1] = b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % len(page_ids)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    data = out.getvalue()
    if not outline:
        return data
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    parents: dict[int, object] = {}
    for title, page, level in outline:
        parents[level] = writer.add_outline_item(title, page, parent=parents.get(level - 1))
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()
