"""Recall latency per size of user, and where the time goes (agentmemory_bench_memory --tiers).

Users of each size hold dialogue logs (``system_log`` turns with a session and a turn number, as
import_log stores a conversation), so the dialogue-window channels run as on real logs. Vectors are
the real embeddings of the LoCoMo turns, slightly perturbed per user (a user's log is their own).
The stages are timed by wrapping recall's own steps for the duration of the measurement.
"""
from __future__ import annotations

import datetime as dt
import random
import statistics
import time
from collections.abc import Callable
from contextlib import ExitStack, contextmanager

import numpy as np
from django.db import connection
from django.db.models import Count
from django.utils import timezone

from agentmemory.backends import get_embedder
from agentmemory.memory import recall as recall_module
from agentmemory.memory.keywords import keyword_fields
from agentmemory.models import MemoryItem

TURNS_PER_SESSION = 20


def tier_user(prefix: str, size: int, k: int) -> str:
    return f"{prefix}tier{size}-{k}"


def build_tiers(corpus: list[dict], sizes: list[int], users: int, *, prefix: str, seed: int, base_texts: int,
                log: Callable[[str], None]) -> dict[int, list[str]]:
    """Create (or reuse) ``users`` users per size; returns {size: [user ids]}."""
    wanted = {size: [tier_user(prefix, size, k) for k in range(users)] for size in sizes}
    counts = dict(MemoryItem.objects.get_queryset().filter(user_id__startswith=f"{prefix}tier")
                  .values("user_id").annotate(n=Count("id")).values_list("user_id", "n"))
    todo = [(size, user) for size, ids in wanted.items() for user in ids if counts.get(user) != size]
    if not todo:
        log(f"reusing tier users {sizes} x {users}")
        return wanted
    MemoryItem.objects.get_queryset().filter(user_id__in=[u for _s, u in todo]).delete()
    texts = [row["text"] for row in corpus[:max(base_texts, 1)]]
    embedder = get_embedder()
    started = time.perf_counter()
    vectors = embedder.embed_passages(texts)
    log(f"embedded {len(texts)} turns in {time.perf_counter() - started:.1f}s")
    words = [keyword_fields(t) for t in texts]
    rng, np_rng, now = random.Random(seed), np.random.default_rng(seed), timezone.now()
    for size, user in todo:
        start = rng.randrange(len(texts))
        rows = []
        for j in range(size):
            i = (start + j) % len(texts)
            vector = vectors[i] + np_rng.normal(0, 0.01, vectors.shape[1]).astype(np.float32)
            vector /= np.linalg.norm(vector)
            rows.append(MemoryItem(
                user_id=user, type="event", source="system_log", content=texts[i], confidence=0.8,
                created_at=now - dt.timedelta(days=(size - j) / 10), updated_at=now,
                session_id=f"s{j // TURNS_PER_SESSION}", turn_id=j % TURNS_PER_SESSION,
                embedding=vector.tolist(), embedding_model=embedder.model_name,
                search_vector=words[i]["search_vector"], term_count=words[i]["term_count"]))
        MemoryItem.objects.bulk_create(rows, batch_size=2000)
    with connection.cursor() as cursor:
        # A settled table, as autovacuum leaves it: the visibility map lets the scope and fingerprint
        # statements read the index alone (right after the writes they read table pages too).
        cursor.execute(f"VACUUM (ANALYZE) {MemoryItem._meta.db_table}")
    log(f"built {len(todo)} tier users")
    return wanted


@contextmanager
def _timed(module, name: str, into: dict[str, float]):
    original = getattr(module, name)

    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            into[name] = into.get(name, 0.0) + (time.perf_counter() - started) * 1000

    setattr(module, name, wrapper)
    try:
        yield
    finally:
        setattr(module, name, original)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


#: recall's steps, timed by name (module attributes recall_memories looks up when it runs): the in-process
#: index's (the fingerprint, or a small user's revisions and access statistics read with it; a copy
#: (re)loaded; the candidates' access statistics) and the SQL channels'.
STAGES = [("read_fingerprint", "fingerprint statement (overlaps the embedding)"),
          ("read_live", "a small user's live columns with the fingerprint (overlaps the embedding)"),
          ("load_index", "index (re)load"),
          ("access_in_scope", "candidates' access statistics statement"),
          ("candidate_rows", "candidates' rows statement (after a concurrent write)"),
          ("keyword_channel", "SQL path: keyword statement"),
          ("vector_candidates", "SQL path: candidates statement (vector + windows)"),
          ("_fetch", "rows of the top k")]
#: the stages that run while the query embeds
OVERLAPPING = ("read_fingerprint", "read_live", "keyword_channel")


def time_tiers(built: dict[int, list[str]], questions: list[str], *, queries: int, seed: int) -> list[str]:
    embedder = get_embedder()
    rng = random.Random(seed + 2)
    recall_module.recall_memories(next(iter(built.values()))[0], "warm up", touch=False)
    header = ["| memories per user | recall p50 / p95 (ms) | embedding alone p50 / p95 | after the embedding "
              "p50 / p95 | " + " | ".join(label for _n, label in STAGES) + " | rest (Python) |",
              "|---" * (5 + len(STAGES)) + "|"]
    lines = []
    for size, users in built.items():
        totals, embeds, stages = [], [], {name: [] for name, _l in STAGES}
        rest = []
        for _ in range(queries):
            user, query = rng.choice(users), rng.choice(questions)
            started = time.perf_counter()
            embedder.embed_queries([query])  # bypasses the cache: the embedding alone
            embedded = time.perf_counter()
            embedder.clear_query_cache()
            spent: dict[str, float] = {}
            with ExitStack() as stack:
                for name, _label in STAGES:
                    stack.enter_context(_timed(recall_module, name, spent))
                recall_module.recall_memories(user, query, top_k=5, touch=False)
            done = time.perf_counter()
            embeds.append((embedded - started) * 1000)
            totals.append((done - embedded) * 1000)
            for name, _l in STAGES:
                stages[name].append(spent.get(name, 0.0))
            # The keyword statement runs while the query embeds; the rest is what no stage accounts for.
            overlapping = sum(spent.get(name, 0.0) for name in OVERLAPPING)
            rest.append(max(0.0, totals[-1] - max(embeds[-1], overlapping)
                            - sum(v for name, v in spent.items() if name not in OVERLAPPING)))
        after = [max(0.0, t - e) for t, e in zip(totals, embeds, strict=True)]
        cells = [f"{statistics.median(stages[n]):.1f} / {_pct(stages[n], .95):.1f}" for n, _l in STAGES]
        lines.append(f"| {size:,} | {statistics.median(totals):.1f} / {_pct(totals, .95):.1f} | "
                     f"{statistics.median(embeds):.1f} / {_pct(embeds, .95):.1f} | "
                     f"{statistics.median(after):.1f} / {_pct(after, .95):.1f} | " + " | ".join(cells)
                     + f" | {statistics.median(rest):.1f} / {_pct(rest, .95):.1f} |")
    return header + lines
