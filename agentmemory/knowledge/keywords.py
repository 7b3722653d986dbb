"""Keyword index of chunks: tsvector values with term frequencies, and BM25 corpus statistics.

A chunk's ``search_vector`` holds every keyword token (``agentmemory.text.keyword_tokens``) as a
lexeme whose number of positions is its term frequency; ``term_count`` is the chunk's BM25 length.
From it, ``on_chunks_published`` keeps three things current inside the publish transaction: the
inverted index of active chunks (KeywordPosting: term -> chunk, tf, length), per-term document
frequencies (KnowledgeTermStat) and the number/length of active chunks (KnowledgeBaseStats).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.dispatch import Signal

from ..text import keyword_tokens
from ..text.tsvector import tsvector_fields

#: Sent after the transaction of a publish commits: knowledge_base_id, activated_ids, deprecated_ids.
chunks_published = Signal()



def user_dictionary_terms(knowledge_base: Any) -> list[str]:
    """Domain terms of a knowledge base's user dictionary (a list, or text with one term a line)."""
    if knowledge_base is None:
        return []
    raw = knowledge_base.user_dictionary  # a JSON field: a list as the API writes it, text or an object too
    if not raw:
        return []
    if isinstance(raw, str):
        items: Iterable[Any] = raw.replace(",", "\n").replace("，", "\n").splitlines()
    elif isinstance(raw, dict):
        items = raw.keys()
    else:
        items = raw
    terms = []
    for item in items:
        word = str(item).strip().split()[0] if str(item).strip() else ""
        if word:
            terms.append(word)
    return list(dict.fromkeys(terms))


def index_tokens(text: str, *, knowledge_base: Any = None, terms: list[str] | None = None) -> list[str]:
    """Keyword tokens of ``text`` with the knowledge base's dictionary applied (stored and query side).

    Dictionary terms are known to the segmenter of this dictionary (its own tokenizer; other bases and
    user memory are segmented without them), and a dictionary term found in the text is also emitted
    whole (lower-cased), so ``X-200 Pro`` or ``向量数据库`` match as one term even when the tokenizer
    would split them.
    """
    if terms is None:
        terms = user_dictionary_terms(knowledge_base)
    tokens = keyword_tokens(text, dictionary=tuple(terms))
    if terms:
        seen = set(tokens)
        lowered = text.lower()
        for term in terms:
            low = term.lower()
            if low not in seen and low in lowered:
                tokens.extend([low] * lowered.count(low))
    return tokens


def keyword_index_values(heading_path: str, text: str, *, knowledge_base: Any = None) -> dict:
    """Values for a chunk's ``search_vector`` and ``term_count`` columns (heading + text)."""
    tokens = index_tokens(f"{heading_path or ''}\n{text or ''}", knowledge_base=knowledge_base)
    return tsvector_fields(tokens)


# The active chunks per language, counted with the corpus statistics (the vector channel reads them).
LANGUAGE_COUNTS = "count(*) FILTER (WHERE language = 'zh'), count(*) FILTER (WHERE language = 'en')"


def _tables() -> tuple[str, str, str]:
    from ..models import Chunk, KnowledgeBaseStats, KnowledgeTermStat

    return Chunk._meta.db_table, KnowledgeTermStat._meta.db_table, KnowledgeBaseStats._meta.db_table


def _posting_table() -> str:
    from ..models import KeywordPosting

    return KeywordPosting._meta.db_table


def _lock_stats(cur, stats_t: str, knowledge_base_id: int) -> None:
    """Lock (creating it if needed) the base's stats row: every change to its keyword index serializes here."""
    cur.execute(
        f"INSERT INTO {stats_t} (knowledge_base_id, chunk_count, total_terms, evaluation_pending, updated_at) "
        f"VALUES (%s, 0, 0, false, now()) ON CONFLICT (knowledge_base_id) DO NOTHING",
        [knowledge_base_id],
    )
    cur.execute(f"SELECT id FROM {stats_t} WHERE knowledge_base_id = %s FOR UPDATE", [knowledge_base_id])


def _insert_postings(cur, chunk_t: str, where: str, params: list, *, locked: bool = False) -> None:
    # The chunks must be locked: postings have no foreign key (migration 0013), so a DELETE of a chunk
    # meanwhile must wait for this transaction, whose postings its trigger then deletes, instead of
    # leaving postings of a chunk that is gone. A publish holds them already (``locked``: it updated
    # them in this transaction); locking again would lock each chunk once per term, ~100 times.
    sql = f"""
        INSERT INTO {_posting_table()} (knowledge_base_id, term, chunk_id, tf, length)
        SELECT c.knowledge_base_id, u.lexeme, c.id, coalesce(array_length(u.positions, 1), 1), c.term_count
        FROM {chunk_t} c CROSS JOIN LATERAL unnest(c.search_vector) u
        WHERE {where} AND c.search_vector IS NOT NULL
        {"" if locked else "FOR KEY SHARE OF c"}
        """
    # A chunk turning active has no postings (a deprecation or a rebuild deleted them), so a plain INSERT:
    # ON CONFLICT's speculative insertion cost a third more (170-180 ms against 240-265 for 200 documents'
    # 35,708 postings). Should one exist all the same (a host's own SQL), the INSERT is redone skipping it.
    try:
        with transaction.atomic():
            cur.execute(sql, params)
    except IntegrityError:
        cur.execute(sql + " ON CONFLICT DO NOTHING", params)


def on_chunks_published(*, knowledge_base_id: int, activated_ids: list[int], deprecated_ids: list[int],
                        locked: bool = False) -> None:
    """Keep document frequencies and corpus statistics current after a publish.

    Call inside the publish transaction, once per publish, with the chunks that became active and
    those that stopped being active. Only these chunks are read, so the cost is proportional to the
    change, not to the knowledge base. ``locked``: the transaction has updated (so row-locked) every
    activated chunk already, as a publish's status switch does.
    """
    activated = sorted({int(i) for i in activated_ids or []})
    deprecated = sorted({int(i) for i in deprecated_ids or []})
    if not activated and not deprecated:
        return
    chunk_t, term_t, stats_t = _tables()
    with transaction.atomic(savepoint=False), connection.cursor() as cur:
        _lock_stats(cur, stats_t, knowledge_base_id)
        delta_n = delta_len = delta_zh = delta_en = 0
        for ids, sign in ((activated, 1), (deprecated, -1)):
            if not ids:
                continue
            cur.execute(
                f"SELECT count(*), coalesce(sum(term_count), 0), {LANGUAGE_COUNTS} FROM {chunk_t} WHERE id = ANY(%s)",
                [ids],
            )
            n, length, zh, en = cur.fetchone()
            delta_zh += sign * zh
            delta_en += sign * en
            if sign > 0:
                _insert_postings(cur, chunk_t, "c.id = ANY(%s)", [ids], locked=locked)
            else:
                cur.execute(f"DELETE FROM {_posting_table()} WHERE chunk_id = ANY(%s)", [ids])
            delta_n += sign * n
            delta_len += sign * int(length)
            cur.execute(
                f"""
                INSERT INTO {term_t} (knowledge_base_id, term, df)
                SELECT %s, u.lexeme, %s * count(*)
                FROM {chunk_t} c CROSS JOIN LATERAL unnest(c.search_vector) u
                WHERE c.id = ANY(%s) AND c.search_vector IS NOT NULL
                GROUP BY u.lexeme ORDER BY u.lexeme
                ON CONFLICT (knowledge_base_id, term) DO UPDATE SET df = {term_t}.df + EXCLUDED.df
                """,
                [knowledge_base_id, sign, ids],
            )
        if deprecated:  # only a deprecation lowers a frequency (this scans the base's terms)
            cur.execute(f"DELETE FROM {term_t} WHERE knowledge_base_id = %s AND df <= 0", [knowledge_base_id])
        cur.execute(
            f"UPDATE {stats_t} SET chunk_count = GREATEST(chunk_count + %s, 0), "
            f"total_terms = GREATEST(total_terms + %s, 0), chunks_zh = GREATEST(chunks_zh + %s, 0), "
            f"chunks_en = GREATEST(chunks_en + %s, 0), updated_at = now() WHERE knowledge_base_id = %s",
            [delta_n, delta_len, delta_zh, delta_en, knowledge_base_id],
        )

    def _announce() -> None:
        chunks_published.send(sender=on_chunks_published, knowledge_base_id=knowledge_base_id,
                              activated_ids=activated, deprecated_ids=deprecated)

    transaction.on_commit(_announce)


def rebuild_keyword_stats(*, knowledge_base_id: int) -> dict:
    """Recompute a knowledge base's postings, document frequencies and corpus statistics from its active chunks."""
    chunk_t, term_t, stats_t = _tables()
    with transaction.atomic(), connection.cursor() as cur:
        # A publish running meanwhile would otherwise deprecate chunks whose postings this rebuild is
        # re-inserting from its older snapshot.
        _lock_stats(cur, stats_t, knowledge_base_id)
        cur.execute(f"DELETE FROM {_posting_table()} WHERE knowledge_base_id = %s", [knowledge_base_id])
        _insert_postings(cur, chunk_t, "c.knowledge_base_id = %s AND c.status = 'active'", [knowledge_base_id])
        cur.execute(f"DELETE FROM {term_t} WHERE knowledge_base_id = %s", [knowledge_base_id])
        cur.execute(
            f"""
            INSERT INTO {term_t} (knowledge_base_id, term, df)
            SELECT %s, u.lexeme, count(*)
            FROM {chunk_t} c CROSS JOIN LATERAL unnest(c.search_vector) u
            WHERE c.knowledge_base_id = %s AND c.status = 'active' AND c.search_vector IS NOT NULL
            GROUP BY u.lexeme
            """,
            [knowledge_base_id, knowledge_base_id],
        )
        cur.execute(
            f"SELECT count(*), coalesce(sum(term_count), 0), {LANGUAGE_COUNTS} FROM {chunk_t} "
            f"WHERE knowledge_base_id = %s AND status = 'active'",
            [knowledge_base_id],
        )
        n, length, zh, en = cur.fetchone()
        cur.execute(
            f"INSERT INTO {stats_t} (knowledge_base_id, chunk_count, total_terms, chunks_zh, chunks_en, "
            f"evaluation_pending, updated_at) VALUES (%s, %s, %s, %s, %s, false, now()) "
            f"ON CONFLICT (knowledge_base_id) DO UPDATE SET chunk_count = EXCLUDED.chunk_count, "
            f"total_terms = EXCLUDED.total_terms, chunks_zh = EXCLUDED.chunks_zh, chunks_en = EXCLUDED.chunks_en, "
            f"updated_at = now()",
            [knowledge_base_id, n, int(length), zh, en],
        )
    return {"chunk_count": n, "total_terms": int(length), "chunks_zh": zh, "chunks_en": en}
