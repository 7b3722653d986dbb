"""Import files and folders into a knowledge base, with a progress bar; rerunning is safe (idempotent)."""
from __future__ import annotations

import sys
from pathlib import Path

from django.core.files import File
from django.core.management.base import BaseCommand, CommandError

from ...audit import audit_context
from ...exceptions import AgentMemoryError, InvalidInput
from ...knowledge.bases import create_knowledge_base
from ...knowledge.bulk import ingest_documents
from ...knowledge.imports import prepare_upload
from ...knowledge.ingest import DocumentInput
from ...knowledge.jobs import create_import_job
from ...knowledge.parse import EXTENSIONS, check_format
from ...models import KnowledgeBase
from ...progress import ProgressMeter


class _Meter:
    """The line each file gets: files done with their rate and ETA, and the chunks embedded per second."""

    def __init__(self, total: int) -> None:
        self.total, self.files, self.chunks = total, ProgressMeter("files"), ProgressMeter("chunks")
        self.files.rate(0)
        self.chunk_rate: float | None = None

    def embedded(self, done: int, _known: int) -> None:
        self.chunk_rate = self.chunks.rate(done) or self.chunk_rate

    def line(self, done: int) -> str:
        text = self.files.line(done, self.total)
        return text + (f" | {self.chunk_rate:.1f} chunks/s" if self.chunk_rate else "")


class Command(BaseCommand):
    help = ("Import Markdown, text, HTML, PDF and DOCX files (or folders of them) into a knowledge base. "
            "The external id of each document is its path relative to the folder given (or its file name), "
            "so rerunning imports only what changed and resumes imports that failed.")

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", metavar="PATH", help="Files or folders (searched recursively).")
        parser.add_argument("--kb", required=True, help="Slug of the knowledge base.")
        parser.add_argument("--create", action="store_true", help="Create the knowledge base if it does not exist.")
        parser.add_argument("--format", default="", help="Force a format for every file (markdown, text, html, pdf, docx).")
        parser.add_argument("--queue", action="store_true",
                            help="Enqueue one Celery task per file instead of importing here (needs a broker).")

    def handle(self, *args, paths: list[str], kb: str, create: bool, format: str, queue: bool, **options):
        knowledge_base = KnowledgeBase.objects.by_slug(kb).first()
        if knowledge_base is None:
            if not create:
                raise CommandError(f"Knowledge base {kb!r} does not exist (add --create to create it).")
            with audit_context("command:agentmemory_ingest"):
                knowledge_base = create_knowledge_base(slug=kb, name=kb)
        forced = check_format(format) if format else ""
        files = self._collect(paths)
        if not files:
            raise CommandError("No importable files found (.md, .txt, .html, .pdf, .docx).")
        counts: dict[str, int] = {}
        failures: list[str] = []
        tty = sys.stdout.isatty()

        def fail(external_id: str, exc: Exception) -> None:
            detail = exc.detail if isinstance(exc, InvalidInput) else str(exc)
            failures.append(f"{external_id}: {detail}")
            counts["failed"] = counts.get("failed", 0) + 1
            self.stdout.write(f"{meter.line(len(failures) + done[0])} {external_id}: FAILED {detail}")

        done = [0]
        meter = _Meter(len(files))

        def inputs():
            for path, external_id in files:
                try:
                    with path.open("rb") as handle:
                        prepared = prepare_upload(File(handle, name=path.name), fmt=forced)
                except (AgentMemoryError, OSError) as exc:
                    fail(external_id, exc)
                    continue
                yield DocumentInput(parsed=prepared.parsed, title=prepared.title, fmt=prepared.fmt,
                                    external_id=external_id)

        with audit_context("command:agentmemory_ingest"):
            if queue:
                from ...tasks.dispatch import enqueue_on_commit
                from ...tasks.knowledge import ingest_document

                for item in inputs():
                    job = create_import_job(knowledge_base=knowledge_base, parsed=item.parsed, fmt=item.fmt,
                                            title=item.title, external_id=item.external_id)
                    enqueue_on_commit(ingest_document, job.pk)
                    counts["queued"] = counts.get("queued", 0) + 1
                    self.stdout.write(f"{item.external_id}: queued as import job {job.pk}")
            else:
                # One pipeline for all files (knowledge/bulk.py): files are read and prepared while the
                # batch before embeds; each line shows files done, their rate, an ETA and chunks/s.
                for item, outcome in ingest_documents(knowledge_base=knowledge_base, items=inputs(),
                                                      progress=meter.embedded):
                    if isinstance(outcome, Exception):
                        fail(item.external_id, outcome)
                        continue
                    done[0] += 1
                    counts[outcome.action] = counts.get(outcome.action, 0) + 1
                    counts["embedded"] = counts.get("embedded", 0) + outcome.embedded
                    counts["reused"] = counts.get("reused", 0) + outcome.reused
                    notes = ""
                    if outcome.publication == "held":
                        counts["held"] = counts.get("held", 0) + 1
                        notes += f", HELD by the publish gate ({'; '.join(outcome.gate.get('reasons', []))})"
                    if outcome.duplicates:
                        notes += f", {len(outcome.duplicates)} duplicate chunk(s)"
                    self.stdout.write(
                        f"{meter.line(done[0] + len(failures))} {item.external_id}: "
                        f"{outcome.action} v{outcome.version}, {outcome.chunks} chunks, "
                        f"{outcome.embedded} embedded, {outcome.reused} reused{notes}"
                    )
                    if tty:
                        self.stdout.flush()
        summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        self.stdout.write(f"Done: {len(files)} file(s): {summary}.")
        if failures:
            raise CommandError(f"{len(failures)} file(s) failed; rerun the same command to resume:\n"
                               + "\n".join(failures))

    def _collect(self, paths: list[str]) -> list[tuple[Path, str]]:
        files: list[tuple[Path, str]] = []
        for raw in paths:
            path = Path(raw)
            if path.is_dir():
                for child in sorted(path.rglob("*")):
                    if child.is_file() and child.suffix.lower() in EXTENSIONS and not child.name.startswith("."):
                        files.append((child, child.relative_to(path).as_posix()))
            elif path.is_file():
                files.append((path, path.name))
            else:
                raise CommandError(f"{raw}: no such file or folder.")
        return files
