"""Knowledge search per language pair, through REST: R@5 with the relevance floor and without, and off-topic
questions left with no hit.

    python manage.py agentmemory_bench_languages [--bench ../shared/bench] [--cmrc-questions 0]

Every question is posted to ``POST /api/agentmemory/knowledge-bases/{slug}/search/`` (hybrid, top 5, default
settings), once as it is and once with ``"floor": false``; a hit is the question's paragraph among the five.
Sets (``benchmarks/relevance_data.py``): cmrc2018-dev's Chinese questions (zh->zh, all 2,118 unless
``--cmrc-questions``), cmrc2018-dev-en (en->zh, dev), the held-out English and paraphrased Chinese questions
over the same paragraphs, and the English documents' Chinese and English questions (zh->en, en->en; dev and
held-out halves); off-topic questions in both languages against both bases.

``--docs FILE`` (repeatable; ``--en-docs`` is its older name) adds a set in the format of
``benchmarks/data/xling_en_docs.jsonl`` as a base of its own (``bench-<file stem>``): its paragraphs (English or
Chinese) with their Chinese and English questions, and its off-topic questions, all counted as held out (e.g.
``benchmarks/data/xling3_zh_docs.jsonl``, written after the model was trained). A paragraph may carry several
questions instead of one per language: ``"questions": [{"zh": ..., "en": ...}, ...]`` (the xling4 sets, in the
XQuAD manner: English paragraphs and questions, the Chinese files their translations).
"""
from __future__ import annotations

import json
import random
import time
from collections import defaultdict
from pathlib import Path

from rest_framework.test import APIClient

from agentmemory.api_keys import create_api_key
from agentmemory.models import ApiKey, Document
from agentmemory.text.language import language_of
from benchmarks import relevance_data
from benchmarks.command import BenchCommand


class Command(BenchCommand):
    help = "Knowledge search R@5 per language pair through REST, with and without the relevance floor."

    def add_arguments(self, parser):
        parser.add_argument("--bench", default=str(relevance_data.BENCH))
        parser.add_argument("--cmrc-questions", type=int, default=0, help="cmrc2018-dev questions (0: all).")
        parser.add_argument("--docs", "--en-docs", dest="docs", action="append", default=[],
                            help="another set of paragraphs with zh/en questions (xling_en_docs format)")
        parser.add_argument("--only-extra", action="store_true", help="only the --docs sets")

    def handle(self, *args, bench: str, cmrc_questions: int, docs: list[str], only_extra: bool, **options):
        from .agentmemory_bench_search import import_corpus

        folder = Path(bench)
        cmrc = [json.loads(line) for line in (folder / "cmrc2018-dev" / "corpus.jsonl").open(encoding="utf-8")]
        import_corpus(relevance_data.CMRC_KB, cmrc, self.stderr)
        for base in relevance_data.DOC_SETS:
            import_corpus(base, [{"id": d["id"], "text": d["text"], "meta": {"title": d["title"]}}
                                 for d in relevance_data.en_docs(base)], self.stderr)
        every = relevance_data.queries(folder, cmrc_sample=10**6)
        from_cmrc = [q for q in every if q.source == "cmrc2018-dev"]
        if cmrc_questions:
            from_cmrc = random.Random(5).sample(from_cmrc, min(cmrc_questions, len(from_cmrc)))
        queries = from_cmrc + [q for q in every if q.source != "cmrc2018-dev"]
        if only_extra:
            queries = []
        for path in map(Path, docs):
            slug = f"bench-{path.stem.replace('_', '-')}"
            rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
            lang = language_of(" ".join(r["text"] for r in rows if r["type"] == "doc"))
            import_corpus(slug, [{"id": r["id"], "text": r["text"], "meta": {"title": r["title"]}}
                                 for r in rows if r["type"] == "doc"], self.stderr)
            for row in rows:
                if row["type"] == "doc":
                    asked = row.get("questions") or [{"zh": row["q_zh"], "en": row["q_en"]}]
                    queries += [relevance_data.Query(question[asked_in], slug, (row["id"],), f"{asked_in}->{lang}",
                                                     "heldout", path.stem)
                                for question in asked for asked_in in ("zh", "en")]
                else:
                    queries.append(relevance_data.Query(row["text"], slug, (), f"off-topic {row['lang']}->{lang}",
                                                        "heldout", path.stem))
        external = dict(Document.objects.values_list("pk", "external_id"))
        ApiKey.objects.filter(name="bench-languages").delete()  # a key of an earlier run
        _key, raw = create_api_key("bench-languages", scopes=["read"])
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        table: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        started = time.perf_counter()
        for i, q in enumerate(queries, start=1):
            pair = f"{q.pair} ({q.source})"
            split = "held-out" if q.split == "heldout" and q.source != "cmrc2018-dev" else "dev"
            for name, extra in (("on", {}), ("off", {"floor": False})):
                response = client.post(f"/api/agentmemory/knowledge-bases/{q.base}/search/",
                                       {"query": q.text, "top_k": 5, **extra}, format="json")
                if response.status_code != 200:
                    raise RuntimeError(f"{response.status_code}: {response.content[:300]!r}")
                hits = [external.get(h["document_id"]) for h in response.json()["hits"]]
                if q.relevant:
                    table[(split, pair)][name].append(int(any(h in q.relevant for h in hits)))
                else:
                    table[(split, pair)][name].append(int(not hits))
            if i % 500 == 0:
                self.stderr.write(f"  {i}/{len(queries)} ({time.perf_counter() - started:.0f} s)")
        self.stdout.write("\n| split | pair | questions | measure | floor off | floor on (default) | on / off |")
        self.stdout.write("|---|---|---|---|---|---|---|")
        for (split, pair), values in sorted(table.items(), key=lambda kv: (kv[0][1].startswith("off"), kv[0])):
            off, on = (sum(values[n]) / len(values[n]) for n in ("off", "on"))
            measure = "no hit" if pair.startswith("off-topic") else "R@5"
            ratio = f"{on / off:.3f}" if measure == "R@5" and off else ""
            self.stdout.write(f"| {split} | {pair} | {len(values['on'])} | {measure} | {off:.3f} | {on:.3f} | {ratio} |")
