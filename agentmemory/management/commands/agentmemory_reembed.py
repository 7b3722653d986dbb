"""Re-embed a knowledge base with the configured embedder (after an embedding model change), with progress."""
from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from ...audit import audit_context
from ...backends import get_embedder
from ...exceptions import AgentMemoryError
from ...knowledge.reembed import create_reembed_job, reindex_keywords, run_reembed_job
from ...models import Chunk, KnowledgeBase
from ...progress import ProgressMeter
from ...tasks.dispatch import enqueue_on_commit


class Command(BaseCommand):
    help = ("Embed again, with the configured embedder, every chunk of a knowledge base whose vector was made "
            "by another model. Active chunks go first; searches are refused until they are done. Resumable.")

    def add_arguments(self, parser):
        parser.add_argument("--kb", action="append", dest="slugs", default=[],
                            help="Slug of a knowledge base (repeatable).")
        parser.add_argument("--all", action="store_true", help="Every knowledge base.")
        parser.add_argument("--queue", action="store_true", help="Enqueue a Celery task per knowledge base.")
        parser.add_argument("--keywords", action="store_true",
                            help="Also rebuild the keyword index (after the user dictionary changed).")
        parser.add_argument("--memories", action="store_true",
                            help="Re-embed the long-term memories (every user's, or --user's) whose vector is "
                                 "missing or of another model. Resumable; recall keeps working meanwhile.")
        parser.add_argument("--user", default=None, help="With --memories: only this user's memories.")

    def handle(self, *args, slugs: list[str], all: bool, queue: bool, keywords: bool, memories: bool,
               user: str | None, **options):
        if memories:
            self._memories(user, queue)
            if not slugs and not all:
                return
        if not slugs and not all:
            raise CommandError("Give --kb SLUG (repeatable), --all, or --memories.")
        bases = list(KnowledgeBase.objects.all() if all else KnowledgeBase.objects.filter(slug__in=slugs))
        missing = set(slugs) - {kb.slug for kb in bases}
        if missing:
            raise CommandError(f"Unknown knowledge base(s): {', '.join(sorted(missing))}.")
        model = get_embedder().model_name
        tty = sys.stdout.isatty()
        for kb in bases:
            todo = Chunk.objects.in_knowledge_base(kb).not_embedded_with(model).count()
            self.stdout.write(f"{kb.slug}: {todo} chunk(s) to embed with {model}")
            job = create_reembed_job(kb)
            if queue:
                from ...tasks.knowledge import reembed_knowledge_base

                enqueue_on_commit(reembed_knowledge_base, job.pk)
                self.stdout.write(f"{kb.slug}: queued as job {job.pk}")
                continue
            show = self._progress(kb.slug, "chunks", tty)

            try:
                with audit_context("command:agentmemory_reembed"):
                    result = run_reembed_job(job.pk, progress=show)
            except AgentMemoryError as exc:
                raise CommandError(f"{kb.slug}: {exc} (rerun to resume)") from exc
            self.stdout.write(("\n" if tty else "") + f"{kb.slug}: {result['embedded']} chunk(s) embedded with "
                              f"{result['model']}.")
            if keywords:
                count = reindex_keywords(kb)
                self.stdout.write(f"{kb.slug}: keyword index rebuilt for {count} chunk(s).")

    def _memories(self, user: str | None, queue: bool) -> None:
        from ...memory.embed import embed_pending_memories
        from ...models import MemoryItem

        model = get_embedder().model_name
        if queue:
            from ...tasks.memory import reembed_memories

            enqueue_on_commit(reembed_memories, user)
            self.stdout.write("memories: queued")
            return
        self.stdout.write(f"memories: vectors of {', '.join(MemoryItem.objects.vector_models()) or 'no model'}; "
                          f"embedding with {model}")
        with audit_context("command:agentmemory_reembed"):
            result = embed_pending_memories(user_id=user, other_models=True,
                                            progress=self._progress("memories", "memories", sys.stdout.isatty()))
        if sys.stdout.isatty():
            self.stdout.write("")
        if result["still_pending"]:
            raise CommandError(f"memories: {result['embedded']} embedded, {result['still_pending']} still pending "
                               "(the embedder failed; rerun to resume).")
        self.stdout.write(f"memories: {result['embedded']} memory item(s) embedded with {model}.")

    def _progress(self, label: str, unit: str, tty: bool):
        """A progress callback printing a bar with rate and ETA: in place on a terminal, else about every
        tenth of the way (logs stay short)."""
        meter, last = ProgressMeter(unit), [-1]

        def show(done: int, total: int) -> None:
            line = meter.line(done, total)
            if tty or total == 0 or done == total or done * 10 // total != last[0]:
                last[0] = done * 10 // total if total else 10
                self.stdout.write(("\r" if tty else "") + f"{label} {line}", ending="" if tty else "\n")

        return show
