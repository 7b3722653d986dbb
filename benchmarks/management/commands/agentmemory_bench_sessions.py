"""Benchmark: replay dialogues through sessions and turns, then extract, per extractor.

Two parts, each run when its data is there:
- LoCoMo conversations (``--data``, default ../shared/bench/locomo-dev, not in the repo): turns/s
  appended, extraction time per session (p50/p95) and extraction recall, the share of the questions'
  evidence turns that became (or merged into) a memory; then memory search over what was stored: R@10
  and hit@10 of the evidence turns (their memories' turns) per scored question.
- Labelled correction/update dialogues (``--cases``, default tests/data/extraction_cases.jsonl, kept
  with the tests): recall of the slot-bearing statements (an active memory of the slot holds the new
  value), corrections whose old value is still active, and small-talk cases that stored anything.
Writes under bench users that are forgotten afterwards (unless --keep, LoCoMo part only).
"""
from __future__ import annotations

import datetime as dt
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError
from django.utils.module_loading import import_string

from agentmemory.audit import audit_context
from agentmemory.conf import app_settings
from agentmemory.working.extract import run_extraction
from agentmemory.working.sessions import append_turn, create_session, end_session
from benchmarks.command import BenchCommand

EXTRACTORS = {
    "rules": "agentmemory.backends.extractors.rules.RuleBasedExtractor",
    "llm": "agentmemory.backends.extractors.llm.LLMExtractor",
}
WRITTEN = {"created", "merged", "unchanged", "superseded_previous"}


def _default_data() -> Path:
    return Path(settings.BASE_DIR).parent / "shared" / "bench" / "locomo-dev"


def _default_cases() -> Path:
    return Path(settings.BASE_DIR) / "tests" / "data" / "extraction_cases.jsonl"


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Command(BenchCommand):
    help = "Replay LoCoMo conversations through sessions; print append speed, extraction time and recall."

    def add_arguments(self, parser):
        parser.add_argument("--data", default=None, help="Folder with corpus.jsonl and queries.jsonl.")
        parser.add_argument("--conversations", type=int, default=0, help="Only the first N conversations.")
        parser.add_argument("--sessions", type=int, default=0, help="Only the first N sessions of each.")
        parser.add_argument("--extractor", action="append", default=None,
                            help="rules, llm or a dotted path (repeatable; default rules, plus llm when "
                                 "LLM_URL is set).")
        parser.add_argument("--keep", action="store_true", help="Keep the bench users' sessions and memories.")
        parser.add_argument("--cases", default=None,
                            help="JSON Lines of labelled correction/update dialogues (default: "
                                 "tests/data/extraction_cases.jsonl when present).")
        parser.add_argument("--cases-only", action="store_true", help="Run the labelled cases only.")
        parser.add_argument("--show-misses", action="store_true", help="List the labelled cases' misses.")
        parser.add_argument("--per-conversation", action="store_true",
                            help="Also print evidence stored and search R@10 per LoCoMo conversation.")

    def handle(self, *args, **options):
        names = options["extractor"] or (["rules", "llm"] if app_settings.LLM_URL else ["rules"])
        cases = Path(options["cases"]) if options["cases"] else _default_cases()
        if options["cases"] and not cases.exists():
            raise CommandError(f"No such file: {cases}")
        data = Path(options["data"] or _default_data())
        has_locomo = (data / "corpus.jsonl").exists() and not options["cases_only"]
        if not has_locomo and not cases.exists():
            raise CommandError(f"No corpus.jsonl in {data} and no labelled cases; pass --data or --cases.")
        if has_locomo:
            self._locomo(data, names, options)
        elif options["data"]:
            raise CommandError(f"No corpus.jsonl in {data}; pass --data.")
        if cases.exists():
            self._cases(cases, names, options)

    def _cases(self, path: Path, names: list[str], options) -> None:
        from agentmemory.working.extraction_cases import load_cases, run_cases

        cases = load_cases(path)
        self.stdout.write(f"\nLabelled dialogues: {path.name}, {len(cases)} cases "
                          f"({sum(1 for c in cases if c.get('small_talk'))} small talk)")
        header = ("extractor", "cases", "slots", "recall", "recall zh", "recall en", "corrections", "old still active",
                  "small talk with memories", "seconds")
        rows = []
        for name in names:
            extractor = import_string(EXTRACTORS.get(name, name))()
            started = time.perf_counter()
            with audit_context("command:agentmemory_bench_sessions"):
                report = run_cases(cases, extractor, user_prefix=f"bench-cases-{name}")
            rows.append((name, len(cases), sum(r.expected for r in report.results), f"{report.recall():.3f}",
                         f"{report.recall('zh'):.3f}", f"{report.recall('en'):.3f}", report.corrections, report.stale,
                         f"{report.small_talk_with_memories}/{report.small_talk_cases}",
                         f"{time.perf_counter() - started:.1f}"))
            if options["show_misses"]:
                for miss in report.misses():
                    self.stdout.write(f"  {name} miss: {miss}")
        self.stdout.write("| " + " | ".join(header) + " |")
        self.stdout.write("|" + "---|" * len(header))
        for row in rows:
            self.stdout.write("| " + " | ".join(str(v) for v in row) + " |")

    def _locomo(self, data: Path, names: list[str], options) -> None:
        corpus = [json.loads(line) for line in (data / "corpus.jsonl").open(encoding="utf-8")]
        queries = [json.loads(line) for line in (data / "queries.jsonl").open(encoding="utf-8")]
        groups = list(dict.fromkeys(row["group"] for row in corpus))
        if options["conversations"]:
            groups = groups[: options["conversations"]]
        evidence = {cid for q in queries if q["group"] in groups and q.get("category") != "adversarial"
                    for cid in q["relevant"]}
        self.stdout.write(f"{len(groups)} conversation(s), {len(evidence)} evidence turns of scored questions")
        rows = []
        options["queries"] = [q for q in queries if q["group"] in groups]
        for name in names:
            rows.append(self._run(name, corpus, groups, evidence, options))
        header = ("extractor", "sessions", "turns", "turns/s", "extract p50 s", "extract p95 s", "memories",
                  "evidence", "recall", "search R@10", "search hit@10")
        self.stdout.write("| " + " | ".join(header) + " |")
        self.stdout.write("|" + "---|" * len(header))
        for row in rows:
            self.stdout.write("| " + " | ".join(str(v) for v in row) + " |")

    def _run(self, name: str, corpus: list[dict], groups: list[str], evidence: set[str], options) -> tuple:
        extractor = import_string(EXTRACTORS.get(name, name))()
        by_session: dict[tuple[str, int], list[dict]] = defaultdict(list)
        for row in corpus:
            if row["group"] in groups:
                by_session[(row["group"], row["meta"]["session"])].append(row)
        if options["sessions"]:
            keep = {g: sorted({s for (gg, s) in by_session if gg == g})[: options["sessions"]] for g in groups}
            by_session = {k: v for k, v in by_session.items() if k[1] in keep[k[0]]}
        users = {g: f"bench-sessions-{name}-{g}" for g in groups}
        self._forget(users.values())
        turn_of: dict[int, str] = {}
        append_seconds, turns, extract_seconds, memories = 0.0, 0, [], 0
        hit: set[str] = set()
        with audit_context("command:agentmemory_bench_sessions"):
            for (group, _number), rows in sorted(by_session.items(), key=lambda kv: (kv[0][0], kv[0][1])):
                session = create_session(user_id=users[group], agent_id="bench")
                started = time.perf_counter()
                for row in sorted(rows, key=lambda r: r["meta"]["turn"]):
                    # Said on the session's own date (the REST field said_at), as an imported history would be.
                    said = row["meta"].get("session_datetime")
                    said_at = dt.datetime.fromisoformat(said).replace(tzinfo=dt.UTC) if said else None
                    result = append_turn(session, role="user", content=row["text"], remember=False, now=said_at)
                    turn_of[result.turn.pk] = row["id"]
                append_seconds += time.perf_counter() - started
                turns += len(rows)
                run = end_session(session)
                started = time.perf_counter()
                run = run_extraction(run.pk, extractor=extractor)
                extract_seconds.append(time.perf_counter() - started)
                for result_row in run.results:
                    if result_row["action"] in WRITTEN:
                        memories += result_row["action"] != "unchanged"
                        cid = turn_of.get(result_row.get("turn_id"))
                        if cid:
                            hit.add(cid)
        search_recall, search_hit = self._search(users, turn_of, options.get("queries") or [])
        if options.get("per_conversation"):
            self._per_conversation(name, users, turn_of, hit, evidence, corpus, options.get("queries") or [])
        if not options["keep"]:
            self._forget(users.values())
        recall = len(hit & evidence) / len(evidence) if evidence else 0.0
        return (name, len(extract_seconds), turns, f"{turns / append_seconds:.0f}" if append_seconds else "-",
                f"{statistics.median(extract_seconds):.2f}" if extract_seconds else "-",
                f"{_pct(extract_seconds, 0.95):.2f}", memories, len(evidence), f"{recall:.3f}",
                f"{search_recall:.3f}", f"{search_hit:.3f}")

    def _per_conversation(self, name: str, users: dict, turn_of: dict, hit: set[str], evidence: set[str],
                          corpus: list[dict], queries: list[dict]) -> None:
        group_of = {row["id"]: row["group"] for row in corpus}
        self.stdout.write(f"\n{name}, per conversation")
        self.stdout.write("| conversation | evidence turns | stored | search R@10 | search hit@10 |")
        self.stdout.write("|---|---|---|---|---|")
        for group, user in users.items():
            own = {cid for cid in evidence if group_of.get(cid) == group}
            recall, found = self._search({group: user}, turn_of, [q for q in queries if q["group"] == group])
            stored = len(own & hit) / len(own) if own else 0.0
            self.stdout.write(f"| {group} | {len(own)} | {stored:.3f} | {recall:.3f} | {found:.3f} |")

    def _search(self, users: dict, turn_of: dict, queries: list[dict]) -> tuple[float, float]:
        """Memory search over what extraction stored: per scored question, the share of its evidence turns
        whose memories are among the top 10 (R@10), and whether any is (hit@10)."""
        from agentmemory.memory.recall import recall_memories

        recalls, hits = [], []
        for query in queries:
            if query["group"] not in users or query.get("category") == "adversarial" or not query["relevant"]:
                continue
            found = recall_memories(users[query["group"]], query["text"], top_k=10, touch=False)
            turns = {turn_of.get(r.memory.turn_id) for r in found}
            relevant = set(query["relevant"])
            recalls.append(len(relevant & turns) / len(relevant))
            hits.append(bool(relevant & turns))
        return (statistics.mean(recalls) if recalls else 0.0), (statistics.mean(hits) if hits else 0.0)

    def _forget(self, users) -> None:
        from agentmemory.memory.forget import forget_user

        for user in users:
            forget_user(user, reason="benchmark cleanup")
