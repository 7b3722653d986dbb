"""Benchmark knowledge search: quality and BM25 agreement on CMRC 2018, latency per mode at 10k/100k chunks.

Quality: the CMRC paragraphs are imported through the product's own import path (one document per
paragraph) into the knowledge base ``--kb`` (reused when already complete), every question is
searched in keyword, vector and hybrid mode, and recall@1/5/10, MRR@10, nDCG@10 are printed (and
stored as an EvaluationRun). Agreement: the keyword channel's top 10 is compared with bm25s on the
same tokens and parameters. Latency: a synthetic knowledge base of N chunks is built from
sentences of the real paragraphs, with vectors made by perturbing the real embeddings (embedding
100k chunks would take hours on a laptop); p50/p95 are measured per mode with real questions,
query embedding included.
"""
from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path

import numpy as np
from django.core.management.base import CommandError
from django.db import connection, transaction

from benchmarks.command import BenchCommand

DEFAULT_DATA = "/work/shared/bench/cmrc2018-dev"


def _read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def import_corpus(slug: str, corpus: list[dict], log):
    """The knowledge base ``slug`` holding every paragraph of ``corpus`` (one document each, external id = corpus
    id); paragraphs already there are kept, so a second run imports nothing."""
    from agentmemory.knowledge.ingest import ingest_document, prepare_document
    from agentmemory.models import Document, KnowledgeBase

    kb, _ = KnowledgeBase.objects.get_or_create(slug=slug, defaults={"name": "CMRC 2018 dev (benchmark)"})
    done = set(Document.objects.filter(knowledge_base=kb, active_version__isnull=False)
               .values_list("external_id", flat=True))
    todo = [row for row in corpus if row["id"] not in done]
    if todo:
        log.write(f"Importing {len(todo)} paragraphs into {slug} (embedding takes a while)...")
    started = time.perf_counter()
    for i, row in enumerate(todo, start=1):
        parsed = prepare_document(fmt="text", content=row["text"])
        ingest_document(knowledge_base=kb, parsed=parsed, title=(row.get("meta") or {}).get("title") or row["id"],
                        fmt="text", external_id=row["id"])
        if i % 100 == 0:
            log.write(f"  {i}/{len(todo)} ({time.perf_counter() - started:.0f} s)")
    kb.refresh_from_db()
    return kb


class Command(BenchCommand):
    help = "Benchmark knowledge search quality (CMRC 2018), BM25 agreement with bm25s, and latency per mode."

    def add_arguments(self, parser):
        parser.add_argument("--data", default=DEFAULT_DATA, help="Folder with corpus.jsonl and queries.jsonl.")
        parser.add_argument("--kb", default="bench-cmrc", help="Knowledge base to import the corpus into.")
        parser.add_argument("--sizes", default="10000", help="Comma-separated synthetic sizes for latency (e.g. 10000,100000).")
        parser.add_argument("--latency-kbs", default="",
                            help="Comma-separated existing knowledge bases to time as they are (e.g. bench-context, "
                                 "built by agentmemory_bench_context), besides or instead of --sizes.")
        parser.add_argument("--queries", type=int, default=200, help="Questions timed per mode.")
        parser.add_argument("--limit-cases", type=int, default=0, help="Evaluate only the first N questions.")
        parser.add_argument("--candidate-limit", type=int, default=0,
                            help="Override KEYWORD_CANDIDATE_LIMIT for this run.")
        parser.add_argument("--skip-quality", action="store_true")
        parser.add_argument("--skip-agreement", action="store_true")
        parser.add_argument("--skip-latency", action="store_true")

    def handle(self, *args, data: str, kb: str, sizes: str, queries: int, limit_cases: int, skip_quality: bool,
               skip_agreement: bool, skip_latency: bool, candidate_limit: int, latency_kbs: str = "", **options):
        if candidate_limit:
            from django.conf import settings

            settings.AGENTMEMORY = {**(getattr(settings, "AGENTMEMORY", None) or {}),
                                    "KEYWORD_CANDIDATE_LIMIT": candidate_limit}
        folder = Path(data)
        if not (folder / "corpus.jsonl").exists():
            raise CommandError(f"{folder}/corpus.jsonl not found")
        corpus = _read_jsonl(folder / "corpus.jsonl")
        questions = _read_jsonl(folder / "queries.jsonl")
        knowledge_base = import_corpus(kb, corpus, self.stderr)
        if not skip_quality:
            self._quality(knowledge_base, questions, limit_cases)
        if not skip_agreement:
            self._agreement(knowledge_base, questions[: limit_cases or None])
        if not skip_latency:
            from agentmemory.models import KnowledgeBase

            for size in [int(s) for s in sizes.split(",") if s.strip()]:
                self._latency(self._synthetic(knowledge_base, size), questions, queries)
            for slug in [s.strip() for s in latency_kbs.split(",") if s.strip()]:
                existing = KnowledgeBase.objects.filter(slug=slug).first()
                if existing is None:
                    raise CommandError(f"Unknown knowledge base {slug!r}")
                self._latency(existing, questions, queries)

    # --- import -----------------------------------------------------------------------------

    # --- quality ----------------------------------------------------------------------------

    def _quality(self, kb, questions: list[dict], limit: int) -> None:
        from agentmemory.knowledge.evaluate import Case, evaluate_knowledge_base
        from agentmemory.management.commands.agentmemory_eval import format_table
        from agentmemory.models import Document

        ids = dict(Document.objects.filter(knowledge_base=kb).values_list("external_id", "pk"))
        cases = [Case(query=q["text"], document_ids={ids[r] for r in q["relevant"] if r in ids})
                 for q in questions if any(r in ids for r in q["relevant"])]
        if limit:
            cases = cases[:limit]
        started = time.perf_counter()

        def progress(done, total):
            if done % 250 == 0:
                self.stderr.write(f"  evaluated {done}/{total} ({time.perf_counter() - started:.0f} s)")

        run = evaluate_knowledge_base(kb, cases=cases, trigger="command", progress=progress)
        self.stdout.write(f"\nQuality on {kb.slug}: {run.case_count} questions (a hit is the paragraph's document)")
        self.stdout.write(format_table(run.metrics, ["keyword", "vector", "hybrid"]))

    # --- agreement with bm25s ---------------------------------------------------------------

    def _agreement(self, kb, questions: list[dict]) -> None:
        import bm25s

        from agentmemory.conf import app_settings
        from agentmemory.knowledge.keywords import index_tokens, user_dictionary_terms
        from agentmemory.knowledge.retrieve import keyword_search
        from agentmemory.models import Chunk

        chunks = list(Chunk.objects.active().in_knowledge_base(kb).order_by("pk").values_list("pk", "heading_path", "text"))
        dictionary = user_dictionary_terms(kb)
        tokens = [index_tokens(f"{h or ''}\n{t or ''}", terms=dictionary) for _, h, t in chunks]
        k1, b = float(app_settings.BM25_K1), float(app_settings.BM25_B)
        retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
        retriever.index(tokens, show_progress=False)
        vocab = set(retriever.vocab_dict) if hasattr(retriever, "vocab_dict") else None
        overlaps, firsts, timings = [], [], []
        for q in questions:
            terms = list(dict.fromkeys(index_tokens(q["text"], terms=dictionary)))
            if vocab is not None:
                terms = [t for t in terms if t in vocab]
            if not terms:
                continue
            started = time.perf_counter()
            ours = [h.chunk_id for h in keyword_search(kb.pk, terms, limit=10).hits]
            timings.append((time.perf_counter() - started) * 1000)
            docs, scores = retriever.retrieve([terms], k=min(10, len(chunks)), show_progress=False)
            ref = [chunks[int(i)][0] for i, s in zip(docs[0], scores[0], strict=True) if s > 0]
            if not ref:
                continue
            overlaps.append(len(set(ours) & set(ref)) / len(ref))
            firsts.append(1.0 if ours and ours[0] == ref[0] else 0.0)
        self.stdout.write(f"\nBM25 agreement with bm25s (k1 {k1}, b {b}, same tokens) on {len(overlaps)} questions, "
                          f"{len(chunks)} chunks")
        self.stdout.write("| metric | value |\n|---|---|")
        self.stdout.write(f"| top-10 overlap (mean) | {statistics.mean(overlaps):.4f} |")
        self.stdout.write(f"| same top-1 | {statistics.mean(firsts):.4f} |")
        self.stdout.write(f"| keyword channel p50 / p95 ms | {_pct(timings, .5):.2f} / {_pct(timings, .95):.2f} |")

    # --- latency ----------------------------------------------------------------------------

    def _latency(self, kb, questions: list[dict], n_queries: int) -> None:
        from agentmemory.knowledge.search import search_knowledge
        from agentmemory.models import Chunk

        size = Chunk.objects.filter(knowledge_base=kb, status="active").count()
        rng = random.Random(7)
        sample = [q["text"] for q in rng.sample(questions, min(n_queries, len(questions)))]
        search_knowledge(sample[0], knowledge_bases=[kb.slug], rerank=False)  # warm up
        self.stdout.write(f"\nLatency at {size} chunks ({kb.slug}), {len(sample)} questions, one at a time (ms)")
        self.stdout.write("| mode | p50 | p95 | embedding p50 | of it waited p50 | keyword p50 | vector p50 |\n"
                          "|---|---|---|---|---|---|---|")
        from agentmemory.backends import get_embedder

        for mode in ("keyword", "vector", "hybrid"):
            # Forget cached query vectors, so every mode pays for embedding its questions.
            get_embedder().clear_query_cache()
            totals, stages = [], {"embed_total": [], "embed": [], "keyword": [], "vector": []}
            for text in sample:
                started = time.perf_counter()
                result = search_knowledge(text, knowledge_bases=[kb.slug], mode=mode, rerank=False)
                totals.append((time.perf_counter() - started) * 1000)
                for stage in stages:
                    stages[stage].append(result.trace["timings_ms"].get(stage, 0.0))
            self.stdout.write(f"| {mode} | {_pct(totals, .5):.1f} | {_pct(totals, .95):.1f} | "
                              f"{_pct(stages['embed_total'], .5):.1f} | {_pct(stages['embed'], .5):.1f} | "
                              f"{_pct(stages['keyword'], .5):.1f} | "
                              f"{_pct(stages['vector'], .5):.1f} |")

    def _synthetic(self, source_kb, size: int):
        """A knowledge base of ``size`` chunks recombined from real sentences, vectors perturbed from real ones."""
        from agentmemory.knowledge.keywords import index_tokens, rebuild_keyword_stats
        from agentmemory.models import Chunk, Document, DocumentVersion, KnowledgeBase
        from agentmemory.text import split_sentences
        from agentmemory.text.tsvector import tsvector_fields

        slug = f"bench-synthetic-{size}"
        kb, _ = KnowledgeBase.objects.get_or_create(slug=slug, defaults={"name": f"synthetic {size} chunks"})
        have = Chunk.objects.filter(knowledge_base=kb, status="active").count()
        if have >= size:
            return kb
        source = list(Chunk.objects.active().in_knowledge_base(source_kb).exclude(embedding=None)
                      .values_list("text", "embedding", "embedding_model"))
        if not source:
            raise CommandError("The source knowledge base has no embedded chunks.")
        model_name = source[0][2]
        KnowledgeBase.objects.filter(pk=kb.pk).update(embedding_model=model_name)
        sentences = [text[a:b].strip() for text, _, _ in source for a, b in split_sentences(text)]
        sentences = [s for s in sentences if len(s) > 4] or [text for text, _, _ in source]
        # Sentences end in punctuation, where the segmenter splits anyway: a chunk's tokens are its
        # sentences' tokens, so each sentence is segmented once, not once per chunk it appears in.
        sentence_tokens = [index_tokens(s) for s in sentences]
        vectors = np.array([np.asarray(v, dtype=np.float32) for _, v, _ in source])
        rng = np.random.default_rng(11)
        pyrng = random.Random(11)
        self.stderr.write(f"Building {slug}: {size - have} chunks ...")
        started = time.perf_counter()
        per_doc = 100
        position = have
        while position < size:
            batch = min(per_doc, size - position)
            with transaction.atomic():
                doc = Document.objects.create(knowledge_base=kb, external_id=f"syn-{position // per_doc}",
                                              title=f"合成文档 {position // per_doc}", format="text")
                picks = [pyrng.choices(range(len(sentences)), k=3) for _ in range(batch)]
                texts = ["".join(sentences[i] for i in pick) for pick in picks]
                version = DocumentVersion.objects.create(document=doc, number=1, content_hash=f"syn{position}",
                                                         source_text="\n".join(texts), status="active")
                doc.active_version = version
                doc.save(update_fields=["active_version"])
                base = vectors[rng.integers(0, len(vectors), size=batch)]
                noisy = base + rng.normal(scale=0.02, size=base.shape).astype(np.float32)
                noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
                rows, offset = [], 0
                for i, (text, pick, vec) in enumerate(zip(texts, picks, noisy, strict=True)):
                    rows.append(Chunk(knowledge_base=kb, document=doc, version=version, position=i, heading_path="",
                                      char_start=offset, char_end=offset + len(text), text=text,
                                      content_hash=f"syn{position + i}", status="active", embedding=vec,
                                      embedding_model=model_name,
                                      **tsvector_fields([t for j in pick for t in sentence_tokens[j]])))
                    offset += len(text) + 1
                Chunk.objects.bulk_create(rows)
            position += batch
            if (position // per_doc) % 50 == 0:
                self.stderr.write(f"  {position}/{size} ({time.perf_counter() - started:.0f} s)")
        rebuild_keyword_stats(knowledge_base_id=kb.pk)
        from agentmemory.models import KeywordPosting

        # Index-only scans need the visibility map of fresh rows (VACUUM cannot run in a transaction,
        # e.g. in tests; ANALYZE then).
        vacuum = "ANALYZE" if connection.in_atomic_block else "VACUUM ANALYZE"
        with connection.cursor() as cur:
            cur.execute(f"{vacuum} {Chunk._meta.db_table}")
            cur.execute(f"{vacuum} {KeywordPosting._meta.db_table}")
        kb.refresh_from_db()
        return kb
