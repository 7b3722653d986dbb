"""Calibrate a knowledge base's relevance floor from its evaluation cases and off-topic questions."""
from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...audit import audit_context
from ...exceptions import InvalidInput
from ...knowledge.bases import save_floors
from ...knowledge.calibrate import calibrate
from ...knowledge.evaluate import cases_from_saved, load_cases_file
from ...models import KnowledgeBase


def _read_questions(path: str) -> list[str]:
    """One question a line: plain text, or JSON with ``text`` / ``query``."""
    questions = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("{"):
            row = json.loads(line)
            line = str(row.get("text") or row.get("query") or "").strip()
        if line:
            questions.append(line)
    return questions


def _languages(kb) -> str:
    from ...knowledge.retrieve import chunk_languages

    counts = chunk_languages(kb.pk)
    return ", ".join(f"{n} {lang}" for lang, n in counts.items()) or "none counted"


def _floor(value) -> str:
    return "off" if value is None else f"{value:g}"


class Command(BaseCommand):
    help = ("Choose a knowledge base's relevance floors (dense cosine, normalised BM25, cosine margin) from its saved evaluation "
            "cases (or --cases) and off-topic questions: the most off-topic questions left with no hit while "
            "--target of the in-domain cases keep a relevant hit. --save stores them on the base.")

    def add_arguments(self, parser):
        parser.add_argument("--kb", required=True, help="Slug of the knowledge base.")
        parser.add_argument("--cases", help="JSONL of in-domain cases instead of the saved ones (as agentmemory_eval).")
        parser.add_argument("--limit", type=int, default=0, help="Use only the first N cases.")
        parser.add_argument("--off-topic", action="append", default=[],
                            help="File of extra off-topic questions (one a line, or JSONL with text); repeatable.")
        parser.add_argument("--target", type=float, default=0.99,
                            help="Share of the found in-domain cases that must keep a relevant hit (default 0.99).")
        parser.add_argument("--top-k", type=int, default=5)
        parser.add_argument("--holdout", type=float, default=0.0,
                            help="Share of the cases left out of the choice and measured with it (e.g. 0.5).")
        parser.add_argument("--save", action="store_true", help="Store the floors on the knowledge base.")

    def handle(self, *args, kb: str, cases: str | None, limit: int, off_topic: list[str], target: float,
               top_k: int, holdout: float, save: bool, **options):
        knowledge_base = KnowledgeBase.objects.filter(slug=kb).first()
        if knowledge_base is None:
            raise CommandError(f"No knowledge base with slug {kb!r}.")
        if not 0 < target <= 1 or not 0 <= holdout < 1 or not 1 <= top_k <= 50:
            raise CommandError("--target must be in (0, 1], --holdout in [0, 1), --top-k in 1..50.")
        try:
            case_list = load_cases_file(knowledge_base, cases) if cases else cases_from_saved(knowledge_base)
            extra = [q for path in off_topic for q in _read_questions(path)]
        except (OSError, ValueError, InvalidInput) as exc:
            raise CommandError(str(exc)) from exc
        if limit:
            case_list = case_list[:limit]
        if not case_list:
            raise CommandError(f"{kb} has no evaluation cases: save some (hit testing, agentmemory_eval "
                               "--save-cases) or pass --cases.")

        def progress(done: int, total: int) -> None:
            if done % 250 == 0 or done == total:
                self.stderr.write(f"  searched {done}/{total} cases")

        with audit_context("command:agentmemory_calibrate_floor"):
            result = calibrate(knowledge_base, case_list, extra_off_topic=extra, top_k=top_k, target=target,
                               holdout=holdout, progress=progress)
            if save:
                save_floors(knowledge_base, result)
        self.stdout.write(
            f"{kb}: {result.cases} cases ({result.found_without_floor} with a relevant hit in the top {top_k} without "
            f"a floor); {result.off_topic} off-topic questions ({result.off_topic_with_hits_without_floor} with hits "
            "without a floor).")
        self.stdout.write("| target | cosine | bm25 | bm25 needs cosine | margin | in-domain kept | off-topic rejected |")
        self.stdout.write("|---|---|---|---|---|---|---|")
        for label, choice in [(f"{target:g} (chosen)", result.choice)] + [("", a) for a in result.alternatives]:
            self.stdout.write(f"| {label} | {_floor(choice.cosine)} | {_floor(choice.bm25)} | "
                              f"{_floor(choice.bm25_min_cosine)} | {_floor(choice.margin)} | "
                              f"{choice.recall_kept:.3f} | {choice.rejection:.3f} |")
        if result.by_language:
            self.stdout.write("Per question language (the base's chunks: "
                              f"{_languages(knowledge_base)}), with the chosen floors (a cross-lingual hit also "
                              "passes by the relevance model):")
            self.stdout.write("| questions | cases | found without a floor | in-domain kept | off-topic | "
                              "off-topic rejected |")
            self.stdout.write("|---|---|---|---|---|---|")
            for row in result.by_language:
                rejected = "n/a" if row["rejection"] is None else f"{row['rejection']:.3f}"
                self.stdout.write(f"| {row['language']} | {row['cases']} | {row['found']} | "
                                  f"{row['recall_kept']:.3f} | {row['off_topic']} | {rejected} |")
        if result.found_without_floor < 20:
            self.stdout.write(f"Only {result.found_without_floor} case(s) with a relevant hit: the floors fit them and may "
                              "drop questions they do not show. Save a few dozen cases (hit testing, agentmemory_eval "
                              "--save-cases) before relying on them.")
        if result.holdout:
            self.stdout.write(f"Held-out cases ({result.holdout['cases']}, {result.holdout['found_without_floor']} "
                              f"found without a floor): {result.holdout['recall_kept']:.3f} kept with the chosen floors.")
        self.stdout.write("Saved on the knowledge base." if save else "Not saved (pass --save).")
