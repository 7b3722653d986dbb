"""Benchmark: does the memory remember what people say? Conversations replayed through REST, then probed.

Each conversation of a JSON Lines file (``benchmarks/data/conv_dev.jsonl`` for development,
``conv_heldout.jsonl`` held out; written by hand by authors who never saw the code) is one end user.
Its sessions are replayed through the REST API as an agent would (``POST sessions/``, ``.../turns/``,
``.../end/``, extraction running as configured), alternating two agents so that corrections cross
agents; then each probe question ("用户的猫叫什么名字？") is asked of ``POST context/`` and the answer
counts when one of its accepted strings is in the context's profile or long-term-memory section.

Printed per language and per kind of conversation: probes answered, stale values shown (a corrected
value still in those sections), small-talk conversations that stored anything, and memories stored from
turns labelled as facts about other people or hypotheticals; then turn-append and extraction times.
"""
from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from agentmemory.api_keys import create_api_key
from agentmemory.audit import audit_context
from agentmemory.memory.forget import forget_user
from agentmemory.models import ApiKey, ExtractionRun, MemoryItem
from benchmarks.command import BenchCommand

API = "/api/agentmemory/"
AGENTS = ("assistant", "planner")
NOT_THE_USERS = ("other_person", "other", "hypothetical")  # the sets spell the label both ways


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _context_text(body: dict) -> str:
    sections = body.get("sections") or {}
    return "\n".join(item["text"] for name in ("profile", "long_term_memory") for item in sections.get(name) or [])


class Command(BenchCommand):
    help = "Replay hand-written conversations through REST and probe /context/: what the memory remembers."

    def add_arguments(self, parser):
        parser.add_argument("--conversations", default=None,
                            help="JSON Lines of conversations (default benchmarks/data/conv_dev.jsonl).")
        parser.add_argument("--limit", type=int, default=0, help="Only the first N conversations.")
        parser.add_argument("--show-misses", action="store_true",
                            help="List each missed probe with what was stored (development set only).")
        parser.add_argument("--keep", action="store_true", help="Keep the bench users afterwards.")
        parser.add_argument("--llm-recordings", default=None,
                            help="Extract with the LLM extractor, answered from this file of recorded answers by a "
                                 "local OpenAI-compatible server (benchmarks/recorded_llm.py); requests with no "
                                 "recording go to FILE.pending.jsonl.")
        parser.add_argument("--merge-answers", default=None,
                            help="With --llm-recordings: first add these answers ({key, answer} lines) to it.")

    def handle(self, *args, **options):
        path = Path(options["conversations"] or Path(settings.BASE_DIR) / "benchmarks" / "data" / "conv_dev.jsonl")
        if not path.exists():
            raise CommandError(f"No such file: {path}")
        conversations = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
        if options["limit"]:
            conversations = conversations[: options["limit"]]
        if options["llm_recordings"]:
            self._with_recorded_llm(Path(options["llm_recordings"]), options, path, conversations)
            return
        self._run(path, conversations, options)

    def _with_recorded_llm(self, recordings: Path, options, path: Path, conversations: list[dict]) -> None:
        from django.test import override_settings

        from benchmarks.recorded_llm import RecordedChatServer, merge_answers

        if options["merge_answers"]:
            self.stdout.write(f"{merge_answers(recordings, Path(options['merge_answers']))} answers recorded")
        recordings.with_suffix(".pending.jsonl").unlink(missing_ok=True)
        with RecordedChatServer(recordings) as server:
            llm = {**getattr(settings, "AGENTMEMORY", {}), "LLM_URL": server.url, "LLM_MODEL": "recorded",
                   "EXTRACTOR": "agentmemory.backends.extractors.llm.LLMExtractor"}
            with override_settings(AGENTMEMORY=llm):
                self._run(path, conversations, options)
        self.stdout.write(f"\nLLM extractor from {recordings.name}: {len(server.requests)} requests, "
                          f"{server.missing} without a recording (answered with no items; written to "
                          f"{recordings.with_suffix('.pending.jsonl').name})")

    def _run(self, path: Path, conversations: list[dict], options) -> None:
        ApiKey.objects.filter(name="bench-remember").delete()
        _key, raw = create_api_key("bench-remember", scopes=["read", "write", "admin"])
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        stats: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
        append_ms, end_ms, misses = [], [], []
        with audit_context("command:agentmemory_bench_remember"):
            for conv in conversations:
                self._one(client, conv, stats, append_ms, end_ms, misses)
        ApiKey.objects.filter(name="bench-remember").delete()
        self._table(path, stats)
        self.stdout.write(f"\nturn append p50 {_pct(append_ms, 0.5):.1f} ms, p95 {_pct(append_ms, 0.95):.1f} ms "
                          f"({len(append_ms)} turns); session end with extraction p50 {_pct(end_ms, 0.5):.0f} ms, "
                          f"p95 {_pct(end_ms, 0.95):.0f} ms ({len(end_ms)} sessions)")
        if self.rejected:
            self.stdout.write("drafts rejected: " + "; ".join(f"{n} {why}" for why, n in self.rejected.most_common()))
        if options["show_misses"]:
            for miss in misses:
                self.stdout.write(json.dumps(miss, ensure_ascii=False))

    def _one(self, client, conv: dict, stats, append_ms: list, end_ms: list, misses: list) -> None:
        user = f"bench-remember-{conv['id']}"
        forget_user(user, reason="benchmark reset")
        labels: dict[int, str] = {}
        for number, session in enumerate(conv["sessions"]):
            created = client.post(f"{API}sessions/", {"user_id": user, "agent_id": AGENTS[number % 2]}, format="json")
            if created.status_code != 201:
                raise CommandError(f"{conv['id']}: session not created: {created.content[:200]!r}")
            sid = created.json()["id"]
            for turn in session["turns"]:
                started = time.perf_counter()
                response = client.post(f"{API}sessions/{sid}/turns/", {"role": turn["role"], "content": turn["content"]},
                                       format="json")
                append_ms.append((time.perf_counter() - started) * 1000)
                if response.status_code != 201:
                    raise CommandError(f"{conv['id']}: turn refused: {response.content[:200]!r}")
                if turn["role"] == "user":
                    labels[response.json()["turn"]["id"]] = turn.get("label", "")
            started = time.perf_counter()
            client.post(f"{API}sessions/{sid}/end/")
            end_ms.append((time.perf_counter() - started) * 1000)
        row = stats[(conv["lang"], conv["kind"])]
        row["conversations"] += 1
        for run in ExtractionRun.objects.filter(session__user_id=user):
            for result in run.results or []:
                if result.get("action") == "rejected":
                    self.rejected[result.get("reason", "").split(" (")[0]] += 1
        stored = list(MemoryItem.objects.for_user(user).exclude(status__in=["deleted", "superseded"]))
        superseded = list(MemoryItem.objects.for_user(user).filter(status="superseded").values_list("content", flat=True))
        if conv["kind"] == "small_talk":
            row["small_talk_stored"] += bool(stored)
            if stored:
                misses.append({"id": conv["id"], "small_talk_stored": [m.content for m in stored][:12]})
        wrong = [m for m in stored if labels.get(m.turn_id) in NOT_THE_USERS]
        row["not_the_users"] += len(wrong)
        if wrong:
            misses.append({"id": conv["id"], "others_stored": [m.content for m in wrong][:12]})
        for probe in conv.get("probes") or []:
            body = client.post(f"{API}context/", {"user_id": user, "query": probe["question"]}, format="json").json()
            text = _context_text(body).lower()
            hit = any(a.lower() in text for a in probe["answer"])
            stale = [s for s in probe.get("stale") or [] if s.lower() in text
                     and not any(s.lower() in a.lower() for a in probe["answer"])]
            kept = any(a.lower() in m.content.lower() for m in stored for a in probe["answer"])
            # A probe with no answer (small talk, a question about what the user never said) checks only that
            # nothing stale is shown.
            answerable = bool(probe["answer"])
            row["probes"] += answerable
            row["answered"] += hit and answerable
            row["stored"] += kept and answerable
            row["checked"] += 1
            row["stale_shown"] += bool(stale)
            if (answerable and not hit) or stale:
                misses.append({"id": conv["id"], "question": probe["question"], "answer": probe["answer"],
                               "stale_shown": stale, "stored_answer": kept,
                               # Kept once, then taken for a correction's: the supersession went too far.
                               "superseded_answer": not kept and any(a.lower() in c.lower() for c in superseded
                                                                     for a in probe["answer"]),
                               "memories": [m.content for m in stored][:12], "context": text[:600]})
        if not self.keep:
            forget_user(user, reason="benchmark cleanup")

    def execute(self, *args, **options):
        self.keep = options.get("keep", False)
        self.rejected: Counter[str] = Counter()
        return super().execute(*args, **options)

    def _table(self, path: Path, stats) -> None:
        self.stdout.write(f"\n{path.name}: answer in /context/'s profile or long-term memory section")
        header = ("lang", "kind", "conversations", "probes with an answer", "answered", "stored", "stale shown",
                  "small talk stored", "others' facts stored")
        self.stdout.write("| " + " | ".join(header) + " |")
        self.stdout.write("|" + "---|" * len(header))
        totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for (lang, kind), row in sorted(stats.items()):
            self._row(lang, kind, row)
            for key, value in row.items():
                totals[lang][key] += value
                totals["all"][key] += value
        for lang in sorted(k for k in totals if k != "all"):
            self._row(lang, "**all**", totals[lang])
        self._row("**all**", "**all**", totals["all"])

    def _row(self, lang: str, kind: str, row: dict) -> None:
        probes = row.get("probes", 0)

        def share(key: str, of: str = "probes") -> str:
            whole = row.get(of, 0)
            return f"{row.get(key, 0) / whole:.1%} ({row.get(key, 0)})" if whole else "-"

        small = f"{row.get('small_talk_stored', 0)}" if kind in ("small_talk", "**all**") else "-"
        self.stdout.write(f"| {lang} | {kind} | {row.get('conversations', 0)} | {probes} | {share('answered')} | "
                          f"{share('stored')} | {share('stale_shown', 'checked')} | {small} | {row.get('not_the_users', 0)} |")
