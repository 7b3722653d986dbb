"""Benchmark POST /api/agentmemory/context/ over HTTP at scale: p50/p95 with the user cache cold and warm.

Scale is built as in the long-term memory benchmark: a few hundred texts from ../shared/bench are
really embedded, then reused with perturbed vectors (and, for chunks, shifted text windows) to reach
the requested counts, bulk-inserted into one knowledge base ("bench-context") and the memories of
``--users`` users ("bench-ctx-<n>"). The data stays for the next run unless --rebuild or --cleanup.
Every request embeds its query for real. Run it alone, nice'd, with OMP_NUM_THREADS=1.

    nice -n 10 python manage.py agentmemory_bench_context --memories 100000 --chunks 100000
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
from django.core.management.base import CommandError
from django.db import connection, transaction

from benchmarks.command import BenchCommand

KB_SLUG = "bench-context"
USER_PREFIX = "bench-ctx-"
DEFAULT_DATA = Path(__file__).resolve().parents[3].parent / "shared" / "bench"


SERVER_SCRIPT = """
import sys, django
from wsgiref.simple_server import WSGIRequestHandler, make_server
django.setup()
from django.core.wsgi import get_wsgi_application
class Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass
make_server("127.0.0.1", int(sys.argv[1]), get_wsgi_application(), handler_class=Quiet).serve_forever()
"""


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _read_jsonl(path: Path, limit: int) -> list[dict]:
    rows = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rows.append(json.loads(line))
            if len(rows) >= limit:
                break
    return rows


def _perturb(rng: np.random.Generator, base: np.ndarray, scale: float = 0.03) -> np.ndarray:
    v = base + rng.normal(0.0, scale, size=base.shape).astype(np.float32)
    return v / np.linalg.norm(v)


class Command(BenchCommand):
    help = "p50/p95 of the context endpoint over HTTP, uncached and cached, at a given scale."

    def add_arguments(self, parser):
        parser.add_argument("--memories", type=int, default=100_000, help="memories in total (default 100000)")
        parser.add_argument("--users", type=int, default=1000, help="users holding them (default 1000)")
        parser.add_argument("--chunks", type=int, default=100_000, help="knowledge chunks (default 100000)")
        parser.add_argument("--base-texts", type=int, default=400,
                            help="texts really embedded for each of memories and chunks (default 400)")
        parser.add_argument("--requests", type=int, default=200, help="measured requests per scenario")
        parser.add_argument("--route", default="mixed", help="route forced on every request (default mixed)")
        parser.add_argument("--data", default=str(DEFAULT_DATA), help="the shared bench folder")
        parser.add_argument("--rebuild", action="store_true", help="drop and rebuild the bench data")
        parser.add_argument("--cleanup", action="store_true", help="only delete the bench data")
        parser.add_argument("--build-only", action="store_true", help="build the data, do not measure")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--server", choices=("gunicorn", "wsgiref"), default="gunicorn",
                            help="the HTTP server measured: gunicorn with one sync worker (default; wsgiref when "
                                 "gunicorn is not installed), or the standard library's wsgiref")
        parser.add_argument("--ef-sweep", default="",
                            help="comma-separated hnsw.ef_search values: the knowledge vector channel's recall "
                                 "against an exact scan and its latency for each, instead of the HTTP run")

    # --- data -----------------------------------------------------------------------------------

    def handle(self, *args, **opts):
        if opts["cleanup"]:
            self._cleanup()
            self.stdout.write("bench data deleted")
            return
        data = Path(opts["data"])
        if not (data / "locomo-dev" / "corpus.jsonl").exists() or not (data / "cmrc2018-dev" / "corpus.jsonl").exists():
            raise CommandError(f"bench data not found under {data} (use --data)")
        if opts["rebuild"]:
            self._cleanup()
        rng = np.random.default_rng(opts["seed"])
        have_chunks, have_memories = self._counts()
        if have_chunks < opts["chunks"] or have_memories < opts["memories"]:
            self._cleanup()
            self._build(data, opts, rng)
        have_chunks, have_memories = self._counts()
        self.stdout.write(f"scale: {have_chunks} active chunks in {KB_SLUG}, {have_memories} memories of "
                          f"{opts['users']} users")
        if opts["build_only"]:
            return
        queries = self._queries(data, opts["requests"] * 2 + 50, opts["seed"])
        if opts["ef_sweep"]:
            self._ef_sweep([int(v) for v in opts["ef_sweep"].split(",") if v.strip()], queries[:opts["requests"]])
            return
        self._measure(opts, queries)

    def _counts(self) -> tuple[int, int]:
        from agentmemory.models import Chunk, KnowledgeBase

        kb = KnowledgeBase.objects.filter(slug=KB_SLUG).first()
        chunks = Chunk.objects.filter(knowledge_base=kb, status="active").count() if kb else 0
        with connection.cursor() as cur:
            from agentmemory.models import MemoryItem

            cur.execute(f"SELECT count(*) FROM {MemoryItem._meta.db_table} WHERE user_id LIKE %s",
                        [USER_PREFIX + "%"])
            memories = cur.fetchone()[0]
        return chunks, memories

    def _cleanup(self) -> None:
        from agentmemory.memory.cache import invalidate_user
        from agentmemory.models import KnowledgeBase, MemoryItem

        KnowledgeBase.objects.filter(slug=KB_SLUG).delete()
        with connection.cursor() as cur:
            cur.execute(f"SELECT DISTINCT user_id FROM {MemoryItem._meta.db_table} WHERE user_id LIKE %s",
                        [USER_PREFIX + "%"])
            users = [r[0] for r in cur.fetchall()]
            cur.execute(f"DELETE FROM {MemoryItem._meta.db_table} WHERE user_id LIKE %s", [USER_PREFIX + "%"])
        for user in users:
            invalidate_user(user)

    def _embed(self, texts: list[str], label: str) -> np.ndarray:
        from agentmemory.backends import get_embedder

        started = time.perf_counter()
        vectors = get_embedder().embed_passages(texts)
        self.stdout.write(f"embedded {len(texts)} {label} in {time.perf_counter() - started:.1f} s")
        return vectors

    def _build(self, data: Path, opts: dict, rng: np.random.Generator) -> None:
        from agentmemory.models import Chunk, MemoryItem

        # A bulk load is far faster without the HNSW indexes kept up row by row: they are dropped for it and
        # built again at the end exactly as the migrations define them (the build time is printed).
        tables = [Chunk._meta.db_table, MemoryItem._meta.db_table]
        with connection.cursor() as cur:
            cur.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ANY(%s) "
                        "AND indexdef ILIKE '%%USING hnsw%%'", [tables])
            indexes = cur.fetchall()
            for name, _definition in indexes:
                cur.execute(f'DROP INDEX IF EXISTS "{name}"')
        try:
            self._load(data, opts, rng)
        finally:
            for name, definition in indexes:
                started = time.perf_counter()
                with transaction.atomic(), connection.cursor() as cur:
                    cur.execute(f"SET LOCAL maintenance_work_mem = '{os.environ.get('BENCH_INDEX_MEMORY', '3GB')}'")
                    cur.execute("SET LOCAL max_parallel_maintenance_workers = 1")
                    cur.execute(definition)
                self.stdout.write(f"index {name} built in {time.perf_counter() - started:.1f} s")
            with connection.cursor() as cur:
                for table in tables:
                    cur.execute(f"ANALYZE {table}")

    def _load(self, data: Path, opts: dict, rng: np.random.Generator) -> None:
        from agentmemory.backends import get_embedder

        model = get_embedder().model_name
        n_base = int(opts["base_texts"])
        turns = [r["text"] for r in _read_jsonl(data / "locomo-dev" / "corpus.jsonl", 100_000)]
        paragraphs = [r["text"] for r in _read_jsonl(data / "cmrc2018-dev" / "corpus.jsonl", 100_000)]
        pick = random.Random(opts["seed"])
        memory_texts = pick.sample(turns, min(n_base, len(turns)))
        chunk_texts = [p[:240] for p in pick.sample(paragraphs, min(n_base, len(paragraphs)))]
        memory_vectors = self._embed(memory_texts, "memory texts")
        chunk_vectors = self._embed(chunk_texts, "chunk texts")
        self._build_chunks(paragraphs, chunk_texts, chunk_vectors, int(opts["chunks"]), model, rng, pick)
        self._build_memories(memory_texts, memory_vectors, int(opts["memories"]), int(opts["users"]), model, rng,
                             pick)

    def _build_chunks(self, paragraphs, texts, vectors, n_chunks, model, rng, pick) -> None:
        from agentmemory.knowledge.keywords import keyword_index_values, rebuild_keyword_stats
        from agentmemory.models import Chunk, Document, DocumentVersion, KnowledgeBase

        started = time.perf_counter()
        per_doc = 100
        n_docs = max(1, (n_chunks + per_doc - 1) // per_doc)
        with transaction.atomic():
            kb = KnowledgeBase.objects.create(slug=KB_SLUG, name="context benchmark", embedding_model=model)
            docs = Document.objects.bulk_create([
                Document(knowledge_base=kb, external_id=f"doc-{d}", title=f"基准文档{d}", format="markdown")
                for d in range(n_docs)])
            versions = DocumentVersion.objects.bulk_create([
                DocumentVersion(document=doc, number=1, content_hash=hashlib.sha256(doc.external_id.encode()).hexdigest(),
                                source_text="(benchmark)", status="active") for doc in docs])
            for doc, version in zip(docs, versions, strict=True):
                doc.active_version = version
            Document.objects.bulk_update(docs, ["active_version"], batch_size=1000)
        batch: list = []
        for i in range(n_chunks):
            j = i % len(texts)
            # A shifted window of the paragraph keeps keyword statistics varied across copies.
            shift = (i // len(texts)) % 40
            text = texts[j][shift:] + " " + texts[(j + 1) % len(texts)][:shift]
            heading = f"基准文档{i // per_doc} > 第{i % per_doc + 1}节"
            kw = keyword_index_values(heading, text)
            batch.append(Chunk(
                knowledge_base=kb, document=docs[i // per_doc], version=versions[i // per_doc],
                position=i % per_doc, heading_path=heading, char_start=0, char_end=len(text), text=text,
                content_hash=hashlib.sha256(f"{heading}\n{text}".encode()).hexdigest(), token_count=len(text),
                status="active", embedding=_perturb(rng, vectors[j]), embedding_model=model,
                search_vector=kw["search_vector"], term_count=kw["term_count"]))
            if len(batch) >= 2000:
                Chunk.objects.bulk_create(batch)
                batch = []
                self.stdout.write(f"  chunks: {i + 1}/{n_chunks}", ending="\r")
        if batch:
            Chunk.objects.bulk_create(batch)
        rebuild_keyword_stats(knowledge_base_id=kb.pk)
        self.stdout.write(f"built {n_chunks} chunks in {time.perf_counter() - started:.1f} s")

    def _build_memories(self, texts, vectors, n_memories, n_users, model, rng, pick) -> None:
        from agentmemory.memory.keywords import keyword_fields
        from agentmemory.models import MemoryItem

        started = time.perf_counter()
        keywords = [keyword_fields(t) for t in texts]
        per_user = max(1, n_memories // n_users)
        types = ["fact", "preference", "event", "decision"]
        batch: list = []
        made = 0
        for u in range(n_users):
            user = f"{USER_PREFIX}{u}"
            for k, j in enumerate(pick.sample(range(len(texts)), min(per_user, len(texts)))):
                if made >= n_memories:
                    break
                batch.append(MemoryItem(
                    user_id=user, type=types[k % 4], key=f"slot_{k}" if k < 8 else "", content=texts[j],
                    source="user_stated", confidence=round(0.6 + 0.4 * pick.random(), 3), status="active",
                    embedding=_perturb(rng, vectors[j]), embedding_model=model,
                    search_vector=keywords[j]["search_vector"], term_count=keywords[j]["term_count"],
                    idempotency_key=hashlib.sha256(f"{user}:{k}".encode()).hexdigest()))
                made += 1
            if len(batch) >= 2000:
                MemoryItem.objects.bulk_create(batch)
                batch = []
                self.stdout.write(f"  memories: {made}/{n_memories}", ending="\r")
        if batch:
            MemoryItem.objects.bulk_create(batch)
        with connection.cursor() as cur:
            cur.execute(f"ANALYZE {MemoryItem._meta.db_table}")
        self.stdout.write(f"built {made} memories in {time.perf_counter() - started:.1f} s")

    def _queries(self, data: Path, n: int, seed: int) -> list[str]:
        zh = [r["text"] for r in _read_jsonl(data / "cmrc2018-dev" / "queries.jsonl", 100_000)]
        en = [r["text"] for r in _read_jsonl(data / "locomo-dev" / "queries.jsonl", 100_000)]
        pick = random.Random(seed)
        return [pick.choice(zh) if i % 2 == 0 else pick.choice(en) for i in range(n)]

    # --- measurement ----------------------------------------------------------------------------

    def _ef_sweep(self, values: list[int], queries: list[str], limit: int = 50) -> None:
        """The knowledge vector channel through HNSW at each ef_search against an exact scan: recall@10 and @50
        by score (a hit counts when its cosine reaches the exact k-th best), the cosine lost on the ten best
        (the synthesized base holds hundreds of near-copies of each text, so which copies tie is mostly
        noise: the loss says how much worse the found ones are), and the statement's p50/p95."""
        from agentmemory.backends import get_embedder
        from agentmemory.knowledge.retrieve import vector_search
        from agentmemory.models import KnowledgeBase

        kb = KnowledgeBase.objects.get(slug=KB_SLUG)
        embedder = get_embedder()
        vectors = embedder.embed_queries([q[:500] for q in queries])
        model = embedder.model_name
        truth = [[h.score for h in vector_search([kb.pk], v, model_name=model, limit=limit, exact=True)]
                 for v in vectors]

        def recall(found: list[float], exact: list[float], k: int) -> float:
            if not exact:
                return 1.0
            bar = exact[:k][-1] - 1e-6
            return sum(1 for score in found[:k] if score >= bar) / len(exact[:k])

        self.stdout.write(f"\nknowledge vector channel, {len(queries)} queries, top {limit}, base of "
                          f"{self._counts()[0]} chunks (ms; recall by score against the exact scan)")
        self.stdout.write("| ef_search | recall@10 | recall@50 | cosine lost @10 | p50 | p95 |")
        self.stdout.write("|---|---|---|---|---|---|")
        for ef in values:
            times, r10, r50, lost = [], [], [], []
            for vector, exact in zip(vectors, truth, strict=True):
                started = time.perf_counter()
                hits = vector_search([kb.pk], vector, model_name=model, limit=limit, exact=False, ef_search=ef)
                times.append((time.perf_counter() - started) * 1000)
                found = [h.score for h in hits]
                r10.append(recall(found, exact, 10))
                r50.append(recall(found, exact, limit))
                if exact:  # the mean cosine of the ten best found, under the exact ten best's
                    lost.append(statistics.mean(exact[:10]) - statistics.mean((found + [0.0] * 10)[:len(exact[:10])]))
            self.stdout.write(f"| {max(ef, limit)} | {statistics.mean(r10):.3f} | {statistics.mean(r50):.3f} | "
                              f"{statistics.mean(lost):.4f} | "
                              f"{_percentile(times, 0.5):.1f} | {_percentile(times, 0.95):.1f} |")

    def _measure(self, opts: dict, queries: list[str]) -> None:
        from agentmemory.api_keys import create_api_key
        from agentmemory.backends import get_embedder
        from agentmemory.models import ApiKey

        # One query embedding alone, for scale: every context request embeds its query once (the
        # knowledge search and the memory recall share it through the embedder's query cache).
        embedder, embed_times = get_embedder(), []
        embedder.embed_queries(["warm up"])
        for q in queries[:30]:
            started = time.perf_counter()
            embedder.embed_queries([q[:500]])
            embed_times.append((time.perf_counter() - started) * 1000)
        self.stdout.write(f"embed_query alone: p50 {_percentile(embed_times, 0.5):.1f} ms, "
                          f"p95 {_percentile(embed_times, 0.95):.1f} ms")
        ApiKey.objects.filter(name="bench-context").delete()
        _key, raw = create_api_key("bench-context")
        # The server is its own process, as in production: a server thread inside this process
        # would share the GIL with the client and the embedding threads and add their waits.
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        # One WSGI process serving one request at a time, with a persistent database connection
        # (CONN_MAX_AGE), as a gunicorn sync worker would; runserver would open a thread and a
        # database connection per request.
        env = {**os.environ, "CONN_MAX_AGE": os.environ.get("CONN_MAX_AGE", "600")}
        gunicorn = Path(sys.executable).parent / "gunicorn"
        if opts["server"] == "gunicorn" and gunicorn.exists():
            # One sync worker: one request at a time, as production's gunicorn serves each.
            command = [str(gunicorn), "project.wsgi:application", "-b", f"127.0.0.1:{port}", "-w", "1",
                       "--timeout", "120"]
        else:
            command = [sys.executable, "-c", SERVER_SCRIPT, str(port)]
        server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}/api/agentmemory/context/"
        pick = random.Random(opts["seed"])
        users = [f"{USER_PREFIX}{u}" for u in range(opts["users"])]
        pick.shuffle(users)

        def call(user: str, query: str) -> tuple[float, dict]:
            body = json.dumps({"user_id": user, "query": query[:500], "knowledge_bases": [KB_SLUG],
                               "route": opts["route"]}).encode()
            req = urllib.request.Request(url, data=body, method="POST", headers={
                "Content-Type": "application/json", "Authorization": f"Bearer {raw}"})
            started = time.perf_counter()
            with urllib.request.urlopen(req, timeout=60) as resp:
                payload = resp.read()
            elapsed = (time.perf_counter() - started) * 1000
            return elapsed, json.loads(payload)

        try:
            deadline = time.monotonic() + 60
            while True:  # wait for the server to answer
                try:
                    call(users[-1], "warm up")
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise CommandError("the benchmark server did not start") from None
                    time.sleep(0.5)
            n = int(opts["requests"])
            if len(users) < n + 40:
                raise CommandError(f"--users must be at least --requests + 40 ({n + 40})")
            for q in queries[:5]:  # warm up: model, jieba, connections (users never measured)
                call(users[-2], q)
            rows = []
            # Uncached: every request asks for a user not asked before, so the server's cache holds
            # nothing of them (its profile and top memories are computed from the database).
            times, stages = [], []
            for i in range(n):
                elapsed, payload = call(users[i], queries[i])
                times.append(elapsed)
                stages.append(payload["trace"]["timings_ms"])
            rows.append(("uncached", times, stages))
            # Cached: a working set of users already asked once (profile and top memories in the cache).
            hot = users[n:n + 20]
            for user in hot:
                call(user, queries[-1])
            times, stages = [], []
            for i in range(n):
                elapsed, payload = call(hot[i % len(hot)], queries[n + i])
                times.append(elapsed)
                stages.append(payload["trace"]["timings_ms"])
            rows.append(("cached", times, stages))
        finally:
            server.terminate()
            server.wait(timeout=30)
            ApiKey.objects.filter(name="bench-context").delete()
        self._table(rows, opts)

    def _table(self, rows, opts) -> None:
        out = self.stdout.write
        out("")
        out(f"POST /api/agentmemory/context/ over HTTP ({opts['server']}), route={opts['route']}, one client, "
            f"{opts['requests']} requests per row (ms)")
        out("| scenario | n | p50 | p95 | mean | max | server p50 | gather.knowledge p50 | gather.memory p50 "
            "| gather.profile p50 | route+fuse+budget+render p50 |")
        out("|---|---|---|---|---|---|---|---|---|---|---|")
        own = ("load", "route", "fuse", "budget", "render")
        for name, times, stages in rows:
            def med(key, stages=stages):
                vals = [s.get(key, 0.0) for s in stages]
                return statistics.median(vals) if vals else float("nan")

            out(f"| {name} | {len(times)} | {_percentile(times, 0.5):.1f} | {_percentile(times, 0.95):.1f} | "
                f"{statistics.mean(times):.1f} | {max(times):.1f} | {med('total'):.1f} | "
                f"{med('gather.knowledge'):.1f} | {med('gather.long_term_memory'):.1f} | {med('gather.profile'):.1f} | "
                f"{statistics.median([sum(st.get(k, 0.0) for k in own) for st in stages]):.1f} |")
