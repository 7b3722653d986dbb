"""Train the knowledge relevance model (agentmemory/knowledge/relevance.py) and print the floor's trade-off per
language pair.

    python manage.py agentmemory_train_relevance [--bench ../shared/bench] [--dry-run] [--top-k 10]

Data: ``benchmarks/relevance_data.py`` (in-domain questions zh->zh, en->zh, zh->en, en->en over a Chinese
and an English base; off-topic questions in both languages against both). Every question is searched through
``search_knowledge`` with the floor off (hybrid, top ``--top-k``); each hit's evidence is read from the
trace. Positives: the relevant hits; negatives: every hit of an off-topic question (an in-domain question's
other hits are neither: a neighbouring paragraph may answer too). One L2-regularised logistic regression on
standardised features (numpy), fitted on the dev split only; the probability a hit needs is chosen per
case (same language, cross-lingual) on the dev split: the highest that keeps ``--keep`` of the answers the
unfloored search found in its top 5 (across languages, of each direction on its own). Then, for each split and pair: R@5 without the floor, with the rules
(``KNOWLEDGE_FLOOR`` as shipped before the model) and with the model; and the share of off-topic questions
left with no hit. Writes ``agentmemory/data/relevance.json`` unless ``--dry-run``.
"""
from __future__ import annotations

import json
import random
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from django.core.management.base import CommandError

from agentmemory.knowledge.floor import Floors, floor_passes
from agentmemory.knowledge.relevance import (
    FEATURES,
    MODEL_PATH,
    Evidence,
    RelevanceModel,
    Scorer,
    bundled_model,
)
from agentmemory.knowledge.search import search_knowledge
from agentmemory.models import Document
from agentmemory.text.language import language_of
from benchmarks import relevance_data
from benchmarks.command import BenchCommand
from benchmarks.fitting import fit_logistic

RULES = Floors(0.885, 0.275, 0.08, 0.85)  # the rules' defaults before the model, for comparison


class Command(BenchCommand):
    help = "Train the knowledge relevance model and print the floor's trade-off per language pair."

    def add_arguments(self, parser):
        parser.add_argument("--bench", default=str(relevance_data.BENCH))
        parser.add_argument("--top-k", type=int, default=10)
        parser.add_argument("--keep-same", type=float, default=0.999,
                            help="Share of the found same-language answers the floor keeps (dev).")
        parser.add_argument("--keep-cross", type=float, default=1.0,
                            help="Share of the found cross-lingual answers the floor keeps (dev), in each direction.")
        parser.add_argument("--context-keep-same", type=float, default=0.95,
                            help="Share of the found same-language answers a context keeps (dev).")
        parser.add_argument("--context-keep-cross", type=float, default=0.8,
                            help="Share of the found cross-lingual answers a context keeps (dev).")
        parser.add_argument("--dry-run", action="store_true")
        parser.add_argument("--cache", default="", help="Read/write the collected evidence here (JSON).")
        parser.add_argument("--keep-shift", action="store_true", help="Use the shipped language shift as it is.")

    def handle(self, *args, bench: str, top_k: int, dry_run: bool, cache: str, **options):
        if not (Path(bench) / "cmrc2018-dev" / "corpus.jsonl").exists():
            raise CommandError(f"{bench}/cmrc2018-dev/corpus.jsonl not found (--bench)")
        if not options["keep_shift"]:
            self._language_shift(Path(bench))
        rows = self._collect(Path(bench), top_k, cache)
        dev = [r for r in rows if r["split"] == "dev"]
        scorers = {case: self._train(dev, case == "cross", options[f"keep_{case}"], options[f"context_keep_{case}"])
                   for case in ("same", "cross")}
        model = RelevanceModel(scorers["same"], scorers["cross"])
        for case, scorer in scorers.items():
            self.stdout.write(f"{case}: threshold {scorer.threshold:.4f} (context {scorer.context_threshold:.4f}); "
                              "weights " + ", ".join(
                f"{n} {v:+.3f}" for n, v in zip(FEATURES, scorer.weights, strict=True)))
        self._report(rows, model)
        self._frontier(rows, model)
        if not dry_run:
            MODEL_PATH.write_text(json.dumps(model.as_dict(), indent=1) + "\n", encoding="utf-8")
            bundled_model.cache_clear()
            self.stdout.write(f"wrote {MODEL_PATH}")

    def _train(self, dev: list[dict], cross: bool, keep: float, context_keep: float) -> Scorer:
        x, y = [], []
        for r in dev:
            for hit in r["hits"]:
                if hit["cross"] != cross or (r["relevant"] and not hit["relevant"]):
                    continue
                x.append(hit["x"])
                y.append(1.0 if hit["relevant"] else 0.0)
        x, y = np.array(x), np.array(y)
        mean, scale = x.mean(axis=0), x.std(axis=0)
        scale[scale < 1e-6] = 1.0
        w, b = fit_logistic((x - mean) / scale, y, l2=1e-3, steps=4000)
        scorer = Scorer(tuple(mean.round(6)), tuple(scale.round(6)), tuple(w.round(6)), round(b, 6), 0.5, 0.5)
        found = np.array(self._found_probabilities([r for r in dev if r["relevant"]], scorer, cross))
        context = float(np.quantile(found, 1 - context_keep)) if len(found) else 0.5
        # Across languages each direction keeps ``keep`` of its own found answers (the lower threshold): the
        # many easy English questions over cmrc2018 must not hide the weak Chinese questions over English text.
        groups = sorted({r["pair"] for r in dev if r["relevant"]}) if cross else [None]
        threshold = min((self._search_threshold([r for r in dev if r["relevant"] and pair in (None, r["pair"])],
                                                 scorer, cross, keep) for pair in groups), default=1.0)
        return Scorer(scorer.mean, scorer.scale, scorer.weights, scorer.bias, round(threshold, 6),
                      round(max(threshold, context), 6))

    @classmethod
    def _search_threshold(cls, rows: list[dict], scorer: Scorer, cross: bool, keep: float) -> float:
        """The highest probability under which the floor keeps ``keep`` of the answers the unfloored search found
        for ``rows`` (1.0: the rules alone keep that many, or none was found). The floor passes a hit the rules
        pass or the model does: the model's threshold only has to bring the answers the rules miss up to it."""
        found = cls._found_probabilities(rows, scorer, cross)
        missed = cls._found_probabilities(rows, scorer, cross, rules_missed=True)
        needed = keep * len(found) - (len(found) - len(missed))
        if needed <= 0 or not missed:
            return 1.0
        return float(np.quantile(np.array(missed), max(0.0, 1 - needed / len(missed))))

    @classmethod
    def _found_probabilities(cls, rows: list[dict], scorer: Scorer, cross: bool, *,
                             rules_missed: bool = False) -> list[float]:
        """Per question whose answer the unfloored search found in its top 5, the answer's best probability
        (``rules_missed``: only the questions whose answer no rule passes)."""
        out = []
        for r in rows:
            found = [h for h in r["hits"][:5] if h["relevant"] and h["cross"] == cross]
            if found and not (rules_missed and any(cls._rules_pass(h) for h in found)):
                out.append(max(scorer.probability(h["x"]) for h in found))
        return out

    # --- the language shift ---------------------------------------------------------------------

    def _language_shift(self, bench: Path) -> None:
        """The mean difference between a Chinese and an English question asking the same thing (dev pairs only):
        the English docs' two questions, and each English cmrc2018-dev-en question with the Chinese questions of
        its paragraph. Written to the bundled shift file (backends/embeddings/crosslingual.py) for the configured embedder."""
        from agentmemory.backends import get_embedder
        from agentmemory.backends.embeddings.crosslingual import BUNDLED_SHIFT, _load

        pairs = [(d["q_zh"], d["q_en"]) for d in relevance_data.en_docs() if d["split"] == "dev"]
        by_paragraph = defaultdict(list)
        for row in relevance_data._jsonl(bench / "cmrc2018-dev" / "queries.jsonl"):
            by_paragraph[row["relevant"][0]].append(row["text"])
        for row in relevance_data._jsonl(bench / "cmrc2018-dev-en" / "queries.jsonl"):
            pairs += [(zh, row["text"]) for zh in by_paragraph.get(row["relevant"][0], [])[:3]]
        embedder = get_embedder()
        zh = np.asarray(embedder.embed_queries([p[0] for p in pairs]), dtype=np.float64)
        en = np.asarray(embedder.embed_queries([p[1] for p in pairs]), dtype=np.float64)
        shift = (zh - en).mean(axis=0)
        data = json.loads(BUNDLED_SHIFT.read_text(encoding="utf-8")) if BUNDLED_SHIFT.exists() else {}
        data.setdefault("zh_minus_en", {})[embedder.model_name] = [round(float(v), 6) for v in shift]
        data["measured_on"] = f"{len(pairs)} parallel dev questions (agentmemory_train_relevance)"
        BUNDLED_SHIFT.write_text(json.dumps(data) + "\n", encoding="utf-8")
        _load.cache_clear()
        self.stdout.write(f"language shift for {embedder.model_name}: {len(pairs)} pairs, |shift| "
                          f"{np.linalg.norm(shift):.3f}; wrote {BUNDLED_SHIFT}")

    # --- evidence -------------------------------------------------------------------------------

    def _collect(self, bench: Path, top_k: int, cache: str) -> list[dict]:
        if cache and Path(cache).exists():
            return json.loads(Path(cache).read_text(encoding="utf-8"))
        from .agentmemory_bench_search import import_corpus

        cmrc = [json.loads(line) for line in (bench / "cmrc2018-dev" / "corpus.jsonl").open(encoding="utf-8")]
        import_corpus(relevance_data.CMRC_KB, cmrc, self.stderr)
        for base in relevance_data.DOC_SETS:
            import_corpus(base, [{"id": d["id"], "text": d["text"], "meta": {"title": d["title"]}}
                                 for d in relevance_data.en_docs(base)], self.stderr)
        external = dict(Document.objects.values_list("pk", "external_id"))
        rows, started = [], time.perf_counter()
        queries = relevance_data.queries(bench)
        documents = defaultdict(list)
        for pk, slug, external_id in Document.objects.values_list("pk", "knowledge_base__slug", "external_id"):
            documents[slug].append((pk, external_id))
        rng = random.Random(11)
        searches = [(q, None) for q in queries]
        for q in queries:
            # The same question in a small base of a few documents: with its answer among them half the time;
            # without it, the question is off-topic for that base (a near miss on its very subject).
            size = rng.choice((1, 2, 3, 5, 8, 13, 20, 35))
            subset = [(pk, ext) for pk, ext in rng.sample(documents[q.base], size) if ext not in q.relevant]
            if q.relevant and rng.random() < 0.5:
                subset += [(pk, ext) for pk, ext in documents[q.base] if ext in q.relevant]
            elif q.relevant:
                q = relevance_data.Query(q.text, q.base, (), f"off-topic {q.pair} (answer absent)", q.split,
                                         q.source)
            if subset:
                searches.append((q, sorted({pk for pk, _ext in subset})))
        for i, (q, subset) in enumerate(searches, start=1):
            result = search_knowledge(q.text, knowledge_bases=[q.base], top_k=top_k, floor=False,
                                      filters={"document_ids": subset} if subset else None)
            stats = result.trace["floor"]["knowledge_bases"][q.base]
            hits = []
            for hit in result.hits:
                floor = hit.channels.get("floor", {})
                candidates = stats.get("candidates") or {}
                c = candidates.get(floor.get("language", "")) or next(iter(candidates.values()), None)
                if floor.get("cosine") is None or not c:
                    continue
                # The question's own words' BM25 (without the dictionary's, CROSS_LINGUAL_KEYWORDS): what the context's
                # gate reads, so its threshold is calibrated on the scale it is applied to; the search passes a hit on
                # all its words' BM25, a little more generously.
                own = floor.get("own_bm25_norm", floor.get("bm25_norm"))
                evidence = Evidence(float(floor["cosine"]), float(own or 0.0), c["median"],
                                    c["mean"], c["std"], c["best"], bool(floor.get("cross_lingual")), int(c["n"]),
                                    tuple(c.get("top") or ()))
                hits.append({"relevant": external.get(hit.document_id) in q.relevant, "x": evidence.vector(),
                             "margin": floor.get("margin"), "bm25_norm": floor.get("bm25_norm") or 0.0,
                             "cosine": floor["cosine"], "cross": evidence.cross})
            rows.append({"text": q.text, "base": q.base, "pair": q.pair, "split": q.split, "small": bool(subset),
                         "relevant": list(q.relevant), "cross": language_of(q.text) != relevance_data.base_language(q.base),
                         "hits": hits})
            if i % 200 == 0:
                self.stderr.write(f"  {i}/{len(searches)} searched ({time.perf_counter() - started:.0f} s)")
        if cache:
            Path(cache).write_text(json.dumps(rows), encoding="utf-8")
        return rows

    # --- decisions ------------------------------------------------------------------------------

    @classmethod
    def _model_pass(cls, model: RelevanceModel, hit: dict) -> bool:
        """The floor's decision: the rules pass the hit, or the model does."""
        scorer = model.scorer(hit["cross"])
        return cls._rules_pass(hit) or scorer.probability(hit["x"]) >= scorer.threshold

    @staticmethod
    def _rules_pass(hit: dict) -> bool:
        return bool(floor_passes(hit["cosine"], hit["bm25_norm"], hit["margin"], RULES))

    def _report(self, rows: list[dict], model: RelevanceModel) -> None:
        deciders = {"off": lambda h: True, "rules": self._rules_pass,
                    "model": lambda h: self._model_pass(model, h)}
        table: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        for r in rows:
            key = (r["split"], r["pair"] + (" (small base)" if r.get("small") else ""))
            for name, decide in deciders.items():
                kept = [h for h in r["hits"] if decide(h)]
                if r["relevant"]:
                    table[key][name].append(int(any(h["relevant"] for h in kept[:5])))
                else:
                    table[key][name].append(int(not kept))
        self.stdout.write("| split | pair | n | measure | floor off | rules | model | model / off |")
        self.stdout.write("|---|---|---|---|---|---|---|---|")
        for (split, pair), values in sorted(table.items()):
            off, rules, learned = (float(np.mean(values[n])) for n in ("off", "rules", "model"))
            measure = "no hit" if pair.startswith("off-topic") else "R@5"
            ratio = f"{learned / off:.3f}" if off and measure == "R@5" else ""
            self.stdout.write(f"| {split} | {pair} | {len(values['off'])} | {measure} | {off:.3f} | {rules:.3f} | "
                              f"{learned:.3f} | {ratio} |")

    def _frontier(self, rows: list[dict], model: RelevanceModel) -> None:
        """For other thresholds: the share of found answers kept against off-topic questions left with no hit
        (the rules or the model passing a hit, as the floor decides)."""
        self.stdout.write("\n| split | case | model threshold | answers kept | off-topic: no hit |")
        self.stdout.write("|---|---|---|---|---|")
        for cross in (False, True):
            scorer = model.scorer(cross)
            for threshold in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 2.0):
                for split in ("dev", "heldout"):
                    kept = found = empty = negatives = 0
                    for r in rows:
                        if r["split"] != split or r["cross"] != cross:
                            continue
                        passing = [h for h in r["hits"] if h["cross"] == cross and (
                            self._rules_pass(h) or scorer.probability(h["x"]) >= threshold)]
                        if r["relevant"]:
                            if any(h["relevant"] for h in r["hits"][:5]):
                                found += 1
                                kept += any(h["relevant"] for h in passing[:5])
                        else:
                            negatives += 1
                            empty += not passing
                    shown = "rules only" if threshold > 1 else f"{threshold:.1f}"
                    self.stdout.write(f"| {split} | {'cross-lingual' if cross else 'same language'} | {shown} | "
                                      f"{kept / max(1, found):.3f} | {empty / max(1, negatives):.3f} |")
