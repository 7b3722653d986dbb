"""What reaches the prompt: in-domain knowledge recall of /context/ and off-topic contexts left empty.

    python manage.py agentmemory_bench_relevance [--cmrc ../shared/bench/cmrc2018-dev]
        [--locomo ../shared/bench/locomo-dev] [--questions 500] [--kb bench-cmrc]

Runs ``assemble_context`` (the service behind POST /context/) for a user holding a few facts
(Chinese and English), with the defaults (relevance floor and small-talk floor on) and with both
off, and prints:

* in-domain: cmrc2018-dev questions, R@5 of the context's knowledge section (the question's
  paragraph among the first five knowledge items);
* off-topic: the built-in small talk and requests (``knowledge/off_topic.py``), the questions of
  ``OUT_OF_DOMAIN`` below (written for this benchmark, not tuned on) and LoCoMo questions (people's
  lives, English): the share of contexts with no knowledge item, and the share with no recalled
  memory (small talk, and the other requests, apart).
"""
from __future__ import annotations

import json
import random
import time
from pathlib import Path

from django.core.management.base import CommandError
from django.test import override_settings

from agentmemory.conf import app_settings
from agentmemory.context.assemble import assemble_context
from agentmemory.context.small_talk import is_small_talk
from agentmemory.knowledge.off_topic import OFF_TOPIC_QUESTIONS
from agentmemory.memory.write import write_memory
from agentmemory.models import Document, MemoryItem
from agentmemory.types import MemoryDraft
from benchmarks.command import BenchCommand

USER = "bench:relevance"
# Profile facts (high confidence: always in the profile) and events recall has to find (below the profile's bar).
FACTS = (
    ("company", "公司在杭州，做跨境电商，主营母婴用品", "fact", 0.95), ("reply_style", "回答要简洁，先给结论", "preference", 0.95),
    ("budget", "每月推广预算五千元以内", "fact", 0.95), ("allergy", "对花生过敏", "fact", 0.95),
    ("city", "Lives in Seattle and works as a data engineer", "fact", 0.95),
    ("language", "Prefers Python for scripting", "preference", 0.95),
    ("", "上周去苏州见了包装供应商，谈了礼盒报价", "event", 0.6), ("", "双十一的直播预热定在十一月初", "event", 0.6),
    ("", "女儿下个月过六岁生日", "event", 0.6), ("", "最近在考虑把客服外包出去", "event", 0.6),
    ("", "Went hiking at Mount Rainier last weekend", "event", 0.6),
    ("", "Migrating the team's ETL jobs from cron to Airflow", "event", 0.6),
    ("", "Had a call with the accountant about quarterly taxes", "event", 0.6),
    ("", "Signed up for a Spanish evening class", "event", 0.6),
)
# Out-of-domain for an encyclopedia: everyday requests and questions no paragraph answers.
OUT_OF_DOMAIN = (
    "帮我订一张明天去上海的高铁票", "这个月的电费怎么交？", "帮我把会议改到下午三点", "我的快递到哪了？",
    "推荐一个适合周末的健身计划", "怎么跟房东谈降租金？", "帮我起草一条生日祝福短信", "我的密码忘了怎么办？",
    "这周五团建去哪里比较好？", "把这份报告改成更正式的语气", "我该怎么跟同事解释项目延期？", "今晚吃什么好？",
    "Book me a table for two at 7pm.", "How do I reset my router?", "Draft a polite reminder about the unpaid invoice.",
    "What should I pack for a weekend camping trip?", "Can you move my dentist appointment to Friday?",
    "How do I ask for a raise?", "Give me a 20-minute home workout.", "Help me reply to this customer complaint.",
    "What's a good name for a cat?", "Plan a three-day trip itinerary for me.", "Is it rude to decline a wedding invite?",
    "How do I get rid of fruit flies in the kitchen?",
)
OFF_DEFAULTS = {"KNOWLEDGE_FLOOR": {"cosine": None, "bm25": None, "bm25_min_cosine": None, "margin": None},
                "CONTEXT_SMALL_TALK_FLOOR": False, "CONTEXT_MEMORY_FLOOR": None}


class Command(BenchCommand):
    help = "Relevance of /context/: in-domain knowledge recall and off-topic contexts with nothing retrieved."

    def add_arguments(self, parser):
        parser.add_argument("--cmrc", default="../shared/bench/cmrc2018-dev", help="The cmrc2018-dev bench folder.")
        parser.add_argument("--locomo", default="../shared/bench/locomo-dev", help="The LoCoMo bench folder.")
        parser.add_argument("--kb", default="bench-cmrc", help="Knowledge base holding the cmrc paragraphs.")
        parser.add_argument("--questions", type=int, default=500, help="cmrc and LoCoMo questions sampled (0: all).")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--cmrc-en", default="../shared/bench/cmrc2018-dev-en",
                            help="English questions over the cmrc paragraphs (cross-lingual in-domain column).")
        parser.add_argument("--variant", action="append", default=[], metavar="NAME=JSON",
                            help="Another configuration to measure: AGENTMEMORY settings overriding the defaults.")

    def handle(self, *args, cmrc: str, locomo: str, kb: str, questions: int, seed: int, cmrc_en: str,
               variant: list[str], **options):
        from .agentmemory_bench_search import import_corpus

        folder = Path(cmrc)
        if not (folder / "corpus.jsonl").exists():
            raise CommandError(f"{folder}/corpus.jsonl not found")
        rng = random.Random(seed)
        corpus = [json.loads(line) for line in (folder / "corpus.jsonl").open(encoding="utf-8")]
        knowledge_base = import_corpus(kb, corpus, self.stderr)
        in_domain = [json.loads(line) for line in (folder / "queries.jsonl").open(encoding="utf-8")]
        if questions:
            in_domain = rng.sample(in_domain, min(questions, len(in_domain)))
        people = []
        if Path(locomo, "queries.jsonl").exists():
            people = [json.loads(line)["text"] for line in Path(locomo, "queries.jsonl").open(encoding="utf-8")]
            people = rng.sample(people, min(questions or len(people), len(people)))
        doc_ids = dict(Document.objects.filter(knowledge_base=knowledge_base).values_list("pk", "external_id"))
        MemoryItem.objects.for_user(USER).delete()
        for key, content, kind, confidence in FACTS:
            write_memory(USER, MemoryDraft(content=content, type=kind, source="user_stated", key=key,
                                           confidence=confidence))

        off_topic = [("small talk and requests (built-in)", list(OFF_TOPIC_QUESTIONS)),
                     ("everyday requests (written for this bench)", list(OUT_OF_DOMAIN)),
                     ("LoCoMo questions (people's lives)", people)]
        cross = []
        if Path(cmrc_en, "queries.jsonl").exists():
            cross = [json.loads(line) for line in Path(cmrc_en, "queries.jsonl").open(encoding="utf-8")]
        configurations = [("defaults (floors on)", {})]
        for item in variant:
            name, _, overrides = item.partition("=")
            configurations.append((name, json.loads(overrides)))
        configurations.append(("floors off", OFF_DEFAULTS))
        rows = []
        for name, overrides in configurations:
            with override_settings(AGENTMEMORY={**app_settings.user_settings, **overrides}):
                started = time.perf_counter()
                r5 = (self._in_domain(knowledge_base.slug, in_domain, doc_ids),
                      self._in_domain(knowledge_base.slug, cross, doc_ids) if cross else None)
                empties = [self._off_topic(knowledge_base.slug, texts) for _label, texts in off_topic]
                rows.append((name, r5, empties, time.perf_counter() - started))
        self.stdout.write("")
        self.stdout.write(f"### /context/ relevance: {len(in_domain)} cmrc2018-dev questions, knowledge base "
                          f"{knowledge_base.slug}, a user with {len(FACTS)} memories")
        header = " | ".join(f"{label}: no knowledge ({len(texts)})" for label, texts in off_topic)
        self.stdout.write(f"| configuration | in-domain R@5 | English questions ({len(cross)}): R@5 | {header} | "
                          f"all off-topic: no knowledge | small talk: no recalled memory | "
                          f"requests: no recalled memory | s |")
        self.stdout.write("|---|---|---|" + "---|" * len(off_topic) + "---|---|---|---|")
        total = sum(len(texts) for _label, texts in off_topic)
        for name, r5, empties, seconds in rows:
            cells = " | ".join(f"{e['no_knowledge'] / max(1, e['n']):.3f}" for e in empties)
            overall = sum(e["no_knowledge"] for e in empties) / max(1, total)
            small = sum(e["small_no_memory"] for e in empties) / max(1, sum(e["small"] for e in empties))
            other = (sum(e["other_no_memory"] for e in empties[:2])
                     / max(1, sum(e["n"] - e["small"] for e in empties[:2])))
            english = "n/a" if r5[1] is None else f"{r5[1]:.3f}"
            self.stdout.write(f"| {name} | {r5[0]:.3f} | {english} | {cells} | {overall:.3f} | {small:.3f} | {other:.3f} | "
                              f"{seconds:.0f} |")
        self.stdout.write("small talk = what context/small_talk.py recognises; requests = the other built-in and "
                          "written questions (LoCoMo's are about other people). A recalled memory is one "
                          "the long-term memory section shows from recall (the profile is always loaded).")

    def _in_domain(self, slug: str, questions: list[dict], doc_ids: dict) -> float:
        hits = 0
        for q in questions:
            bundle = assemble_context(user_id=USER, query=q["text"], knowledge_bases=[slug])
            shown = [doc_ids.get(it.ref.get("document_id")) for it in bundle.sections["knowledge"][:5]]
            hits += any(r in shown for r in q["relevant"])
        return hits / max(1, len(questions))

    def _off_topic(self, slug: str, texts: list[str]) -> dict[str, int]:
        """Counts: messages, with no knowledge item, small talk, small talk / other messages with no recalled memory."""
        out = {"n": len(texts), "no_knowledge": 0, "small": 0, "small_no_memory": 0, "other_no_memory": 0}
        for text in texts:
            bundle = assemble_context(user_id=USER, query=text, knowledge_bases=[slug])
            out["no_knowledge"] += not bundle.sections["knowledge"]
            recalled = [it for it in bundle.sections["long_term_memory"] if it.ref.get("via") == "recall"]
            small = is_small_talk(text)
            out["small"] += small
            out["small_no_memory" if small else "other_no_memory"] += not recalled
        return out
