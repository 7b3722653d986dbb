"""Ranking maths shared by knowledge search, memory recall and context assembly: BM25 and score fusion."""
