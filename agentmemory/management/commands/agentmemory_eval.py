"""Evaluate a knowledge base: recall@1/5/10, MRR@10, nDCG@10 for keyword, vector and hybrid side by side."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from ...exceptions import InvalidInput
from ...knowledge.evaluate import evaluate_knowledge_base, load_cases_file, save_cases
from ...models import KnowledgeBase

COLUMNS = ("recall@1", "recall@5", "recall@10", "mrr@10", "ndcg@10")


def format_table(metrics: dict, modes: list[str]) -> str:
    """A Markdown table of the metrics per mode."""
    lines = ["| mode | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for mode in modes:
        row = metrics.get(mode) or {}
        lines.append(f"| {mode} | " + " | ".join(f"{row.get(c, 0.0):.3f}" for c in COLUMNS) + " |")
    return "\n".join(lines)


class Command(BaseCommand):
    help = ("Search every evaluation case of a knowledge base in keyword, vector and hybrid mode, print "
            "recall@1/5/10, MRR@10 and nDCG@10 side by side, and store the run with a configuration snapshot.")

    def add_arguments(self, parser):
        parser.add_argument("--kb", required=True, help="Slug of the knowledge base.")
        parser.add_argument("--cases", help="JSONL file of cases instead of the saved ones "
                                            "(query + expected_external_ids / relevant / expected_chunk_ids).")
        parser.add_argument("--save-cases", action="store_true", help="Also store the file's cases on the base.")
        parser.add_argument("--limit", type=int, default=0, help="Evaluate only the first N cases.")
        parser.add_argument("--modes", default="keyword,vector,hybrid", help="Comma-separated modes.")

    def handle(self, *args, kb: str, cases: str | None, save_cases: bool, limit: int, modes: str, **options):
        knowledge_base = KnowledgeBase.objects.filter(slug=kb).first()
        if knowledge_base is None:
            raise CommandError(f"No knowledge base with slug {kb!r}.")
        mode_list = [m.strip() for m in modes.split(",") if m.strip()]
        bad = [m for m in mode_list if m not in ("keyword", "vector", "hybrid")]
        if bad or not mode_list:
            raise CommandError(f"Unknown mode(s) {bad}; use keyword, vector, hybrid.")
        case_list = None
        if cases:
            try:
                case_list = load_cases_file(knowledge_base, cases)
            except (OSError, InvalidInput) as exc:
                raise CommandError(str(exc)) from exc
            if save_cases:
                self.stdout.write(f"Saved {save_cases_fn(knowledge_base, case_list)} new case(s).")
        if case_list is not None and limit:
            case_list = case_list[:limit]
        if case_list is None and limit:
            from ...knowledge.evaluate import cases_from_saved

            case_list = cases_from_saved(knowledge_base)[:limit]

        def progress(done: int, total: int) -> None:
            if done % 200 == 0 or done == total:
                self.stderr.write(f"  {done}/{total} cases")

        run = evaluate_knowledge_base(knowledge_base, cases=case_list, trigger="command", modes=mode_list,
                                      progress=progress)
        if not run.case_count:
            self.stdout.write(f"{kb}: no evaluation cases (save some from the hit-testing page or pass --cases).")
            return
        self.stdout.write(f"{kb}: {run.case_count} cases, run #{run.pk}")
        self.stdout.write(format_table(run.metrics, mode_list))
        if run.recall_dropped:
            self.stdout.write(self.style.WARNING(
                f"hybrid recall@5 dropped: {run.previous_recall_at_5:.3f} -> {run.hybrid_recall_at_5:.3f}"))


def save_cases_fn(knowledge_base, cases) -> int:
    return save_cases(knowledge_base, cases, source="file")
