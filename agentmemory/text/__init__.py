"""Language-aware text utilities shared by the knowledge base and memory: tokens, sentences, sizes."""
from .language import configured_language, language_of
from .sentences import split_sentences
from .tokenize import count_tokens, keyword_tokens, query_terms

__all__ = ["configured_language", "count_tokens", "keyword_tokens", "language_of", "query_terms", "split_sentences"]
