"""The chunker: sections first, then paragraphs, then sentences; exact offsets; overlap at sentence starts."""
from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agentmemory.knowledge.chunk import chunk_document, join_chunks
from agentmemory.knowledge.parse import parse

from .conftest import MANUAL_MD, POLICY_ZH

_ZH_END = "。！？；…"


def _check_offsets(source: str, chunks) -> None:
    for chunk in chunks:
        assert chunk.text == source[chunk.char_start:chunk.char_end]
    for before, after in itertools.pairwise(chunks):
        assert after.char_start <= before.char_end < after.char_end
    assert join_chunks(chunks) == source


def test_markdown_sections_are_never_mixed_and_carry_heading_paths():
    chunks = chunk_document(parse("markdown", MANUAL_MD), chunk_size=120, chunk_overlap=30)
    _check_offsets(MANUAL_MD, chunks)
    paths = [c.heading_path for c in chunks]
    assert paths[0] == "产品手册"
    assert "产品手册 > 适用场景" in paths and "产品手册 > 参数说明" in paths and "产品手册 > 安装步骤" in paths
    for chunk in chunks:
        # No chunk holds text of two sections: 适用场景 text never shares a chunk with 参数说明 text.
        assert not ("冷链车厢" in chunk.text and "工作电压" in chunk.text)
        assert chunk.heading_path.split(" > ")[-1] in chunk.text or chunk.text.lstrip()[0] != "#"
    # The heading is context, not duplicated at the front of the displayed text of later chunks.
    assert all(not c.text.startswith(c.heading_path) for c in chunks)


def test_markdown_table_is_kept_whole():
    chunks = chunk_document(parse("markdown", MANUAL_MD), chunk_size=120, chunk_overlap=30)
    table = "| 参数 | 值 |\n|---|---|\n| 电压 | 220V |\n| 功率 | 15W |\n"
    assert sum(table in c.text for c in chunks) >= 1
    for chunk in chunks:
        assert ("| 电压 | 220V |" in chunk.text) == ("| 功率 | 15W |" in chunk.text)


def test_fenced_code_is_not_cut_where_it_fits():
    code = "```python\ndef read(sensor):\n    value = sensor.read()\n\n    return value * 2\n```\n"
    source = "# API\n\n" + "Intro sentence number one. " * 4 + "\n\n" + code + "\nAfter the code block. " * 3
    chunks = chunk_document(parse("markdown", source), chunk_size=120, chunk_overlap=20)
    _check_offsets(source, chunks)
    assert any(code in c.text for c in chunks)


def test_chinese_text_without_headings_is_cut_at_sentence_ends():
    chunks = chunk_document(parse("text", POLICY_ZH), chunk_size=80, chunk_overlap=20)
    _check_offsets(POLICY_ZH, chunks)
    assert len(chunks) >= 3
    assert all(c.heading_path == "" for c in chunks)
    for chunk in chunks[:-1]:
        assert chunk.text[-1] in _ZH_END, chunk.text
    for before, after in itertools.pairwise(chunks):
        overlap = before.char_end - after.char_start
        assert 0 <= overlap <= 20
        if overlap:
            # The repeated part starts at a sentence (or, for a long last sentence, a clause) start.
            assert POLICY_ZH[after.char_start - 1] in _ZH_END + "，、："


def test_english_sentences_and_long_sentence_fallback():
    text = ("The sensor reports every minute. It stores readings locally when offline! "
            "Does it upload later? Yes, it does. ") * 3
    text += "word " * 60  # one sentence longer than a chunk: cut at spaces, never inside a word
    chunks = chunk_document(parse("text", text), chunk_size=100, chunk_overlap=15)
    _check_offsets(text, chunks)
    assert all(len(c.text) <= 100 + 15 for c in chunks)
    for chunk in chunks[:-1]:
        assert re.search(r"[.!?]\s*$|\s$", chunk.text), chunk.text


def test_heading_only_parent_joins_its_first_child_section():
    source = "# 手册\n\n## 一、范围\n\n本节说明范围。\n\n## 二、术语\n\n本节说明术语。\n"
    chunks = chunk_document(parse("markdown", source), chunk_size=200, chunk_overlap=0)
    assert [c.heading_path for c in chunks] == ["手册 > 一、范围", "手册 > 二、术语"]
    assert chunks[0].text.startswith("# 手册")
    _check_offsets(source, chunks)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([
    "# 标题\n", "## Section\n", "\n\n", "这是一句话。", "另一句！", "English sentence. ", "```\ncode\n```\n",
    "| a | b |\n", "很长的没有标点的中文内容" * 3, "word " * 7, "；", "\n",
]), min_size=1, max_size=40), st.integers(min_value=40, max_value=200), st.integers(min_value=0, max_value=40))
def test_joining_chunks_without_overlap_reproduces_any_source(parts, size, overlap):
    source = "".join(parts)
    if not source.strip():
        return
    chunks = chunk_document(parse("markdown", source), chunk_size=size, chunk_overlap=overlap)
    _check_offsets(source, chunks)


def test_setext_headings_and_code_comments_are_parsed_as_markdown_does():
    source = ("产品手册\n====\n\n简介。\n\n参数说明\n--------\n\n电压 220V。\n\n"
              "```bash\n# not a heading inside code\necho ok\n```\n\n第一行\n第二行\n---\n")
    parsed = parse("markdown", source)
    assert [(h.level, h.title) for h in parsed.headings] == [(1, "产品手册"), (2, "参数说明")]
    chunks = chunk_document(parsed, chunk_size=400, chunk_overlap=0)
    assert [c.heading_path for c in chunks] == ["产品手册", "产品手册 > 参数说明"]
    _check_offsets(source, chunks)
