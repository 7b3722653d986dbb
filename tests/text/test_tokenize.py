"""Each knowledge base's user dictionary segments with its own tokenizer: no base changes another's tokens."""
from __future__ import annotations

from agentmemory.knowledge.keywords import index_tokens
from agentmemory.text import keyword_tokens

SENTENCE = "星火燎原计划的预算是多少"


def test_a_bases_dictionary_does_not_change_another_bases_or_the_default_tokens():
    before_default = keyword_tokens(SENTENCE)
    before_b = index_tokens(SENTENCE, terms=["预算审批"])
    assert "星火燎原计划" not in before_default  # the bundled dictionary does not know base A's term

    with_a = index_tokens(SENTENCE, terms=["星火燎原计划"])
    assert "星火燎原计划" in with_a
    # A's term is emitted by A's segmenter, not only as the whole-term extra: it is cut as one word.
    assert keyword_tokens(SENTENCE, dictionary=("星火燎原计划",)).count("星火燎原计划") == 1

    assert keyword_tokens(SENTENCE) == before_default
    assert index_tokens(SENTENCE, terms=["预算审批"]) == before_b


def test_the_same_dictionary_shares_one_tokenizer_and_the_default_is_shared():
    from agentmemory.text.tokenize import _default_tokenizer, _tokenizer_for

    assert _tokenizer_for(("星火燎原计划",)) is _tokenizer_for(("星火燎原计划",))
    assert _tokenizer_for(()) is _default_tokenizer()
    assert _tokenizer_for(("星火燎原计划",)) is not _default_tokenizer()


def test_count_tokens_counts_other_characters_as_the_per_character_definition():
    """count_tokens counts punctuation and symbols with one regex scan: the same count as a loop asking
    each character whether it is white space, alphanumeric or CJK, for every character of the BMP."""
    import math
    import re

    from agentmemory.text import count_tokens
    from agentmemory.text.tokenize import _CJK_RE

    def by_definition(text: str) -> int:
        cjk = len(_CJK_RE.findall(text))
        words = len(re.findall(r"[A-Za-z0-9]+", text))
        other = sum(1 for ch in text if not ch.isspace() and not ch.isalnum() and not _CJK_RE.match(ch))
        return cjk + math.ceil(words * 1.3) + math.ceil(other / 2)

    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        ch = chr(code)
        assert count_tokens(f"a{ch}b{ch}") == by_definition(f"a{ch}b{ch}"), hex(code)
    sample = "X-200 参数：功率 1.2kW，接口 USB-C（全角标点，“引号”）snake_case \u3000\u9fff\U00020000。"
    assert count_tokens(sample) == by_definition(sample)
