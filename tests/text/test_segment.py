"""The C build of jieba's cut (agentmemory/text/_segment.c) gives exactly jieba's words.

Stored keyword postings and questions are cut by the same function; the C build is a speed-up only, so
every word must be jieba's own: compared here on random mixes of dictionary words, unknown runs that
go to the HMM, characters outside jieba's han range, and with a knowledge base's user dictionary.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmemory.text.tokenize import _default_tokenizer, _native_segmenter, _tokenizer_for, segment

needs_build = pytest.mark.skipif(_native_segmenter() is None,
                                 reason="agentmemory.text._segment was not built (no C compiler at install)")

TEXT = (
    "大语言模型是在海量文本上训练的神经网络能够理解和生成自然语言向量数据库存储高维向量并支持近似最近邻检索"
    "冲泡绿茶的水温以八十度左右为宜先温杯再投茶第一泡约一分钟额定功率一千五百瓦重量三点二千克工作电压二百二十伏"
    "我们公司是做母婴用品的上周在杭州西湖边开了新店客服小王说退货流程需要三个工作日蔡徐坤和王者荣耀的新赛季"
    "中华人民共和国国务院关于进一步加强知识产权保护工作的决定自二零二六年十二月一日起施行"
)
# Outside jieba's han range [\u4E00-\u9FD5] but inside tokenize's CJK runs: each is a word of its own.
RARE = ["\u3400", "\u4dbf", "\u9fd6", "\u9fff", "\uf900", "\ufaff", "\u9fd5", "\u4e00"]


def _jieba(run: str, tokenizer) -> list[str]:
    return list(tokenizer.cut(run, HMM=True))


@needs_build
def test_the_fixed_text_and_its_pieces_cut_as_jieba_does():
    tokenizer = _default_tokenizer()
    assert segment(TEXT, tokenizer) == _jieba(TEXT, tokenizer)
    for size in (1, 2, 3, 5, 8, 13):
        for start in range(0, len(TEXT) - size, 7):
            piece = TEXT[start:start + size]
            assert segment(piece, tokenizer) == _jieba(piece, tokenizer), piece


def _pieces():
    words = sorted({w for w in _jieba(TEXT, _default_tokenizer()) if len(w) > 1})
    return st.one_of(st.sampled_from(words), st.sampled_from(list(TEXT)), st.sampled_from(RARE),
                     st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1,
                             max_size=4))


@needs_build
@settings(max_examples=400, deadline=None)
@given(st.lists(_pieces(), min_size=1, max_size=30))
def test_random_runs_cut_as_jieba_does(pieces):
    run = "".join(pieces)
    tokenizer = _default_tokenizer()
    assert segment(run, tokenizer) == _jieba(run, tokenizer)


@needs_build
@settings(max_examples=150, deadline=None)
@given(st.lists(_pieces(), min_size=1, max_size=20))
def test_a_user_dictionary_cuts_as_jieba_does(pieces):
    tokenizer = _tokenizer_for(("星火燎原计划", "母婴用品", "退货流程"))
    run = "星火燎原计划" + "".join(pieces) + "母婴用品退货流程"
    assert segment(run, tokenizer) == _jieba(run, tokenizer)
    assert "星火燎原计划" in segment(run, tokenizer)


@needs_build
def test_what_the_c_build_does_not_cover_goes_to_jieba():
    import jieba.finalseg

    native = _native_segmenter()
    tokenizer = _default_tokenizer()
    assert native.cut("X-200 功率", tokenizer.FREQ, tokenizer.total) is None  # not a CJK run
    assert segment("X-200 功率", tokenizer) == _jieba("X-200 功率", tokenizer)
    # A word forced apart (jieba.add_word(word, 0) adds it to finalseg's set): jieba cuts the run.
    run = "蔡徐坤的新赛季"
    hmm_word = next(w for w in _jieba(run, tokenizer) if len(w) > 1)
    jieba.finalseg.Force_Split_Words.add(hmm_word)
    try:
        assert segment(run, tokenizer) == _jieba(run, tokenizer)
    finally:
        jieba.finalseg.Force_Split_Words.discard(hmm_word)


def test_without_the_c_build_jieba_cuts():
    tokenizer = _default_tokenizer()
    assert segment(TEXT, tokenizer, native=False) == _jieba(TEXT, tokenizer)
