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
