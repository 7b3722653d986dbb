"""Import a document: validate, version by content hash, chunk, reuse or compute embeddings, publish.

The write path, in order:
1. ``prepare_document`` parses an upload (parse.py) and refuses empty or oversized text.
2. ``ingest_document``, in one short transaction (prepare.py, which prepares groups of documents the
   same way for bulk imports): finds or creates the Document, returns
   ``unchanged`` when the active version has the same content hash, resumes a pending/failed
   version of the same content, or creates a new pending version with its chunk rows (chunk.py),
   copying vectors from any chunk of the knowledge base with the same content hash and model.
3. Embeds the chunks still without a vector, batch by batch, each batch committed, so an import
   killed mid-way resumes where it stopped. On an embedding failure the version is marked failed
   with the reason and the previous version stays active.
4. ``duplicates.find_duplicates`` links chunks repeating another document's active chunks; then
   ``publish.publish_versions`` flips the new version's chunks active and the old ones deprecated in
   one transaction, the one that stores the last batch's vectors. A base with its publish gate on
   hands the complete version to ``gate.gate_versions`` instead: published if its saved questions
   still find what they found, else held for review.
Steps 2-4 are ``bulk.ingest_documents``' with one document.
Import jobs carry the same call through Celery: ``job_records.create_import_job`` records one and
``run_import_job`` (below) runs it; jobs.py holds the beat sweep and both names;
``bulk.ingest_documents`` runs the same steps for many documents at the embedder's speed.
Embedding a version's chunks is ``embed.py``'s; the front door of an upload or a text is ``imports.py``.
"""
from __future__ import annotations

from ..audit import audit_context, current_actor
from ..conf import app_settings
from ..exceptions import AgentMemoryError
from ..models import ImportJob, KnowledgeBase
from ..progress import Progress
from .bulk import ingest_documents
from .embed import embed_chunks, reusable_vectors
from .job_records import create_import_job, job_progress, run_job
from .parse import DocumentTooLarge, ParsedDocument, check_format, parse
from .prepare import DocumentInput, IngestResult, content_hash, default_title, validate_text

# Imported from here before bulk.py, embed.py, prepare.py and job_records.py held them (docs/knowledge.md).
__all__ = [
    "DocumentInput", "IngestResult", "Progress", "content_hash", "create_import_job", "default_title",
    "embed_chunks", "ingest_document", "ingest_documents", "job_progress", "prepare_document",
    "reusable_vectors", "run_import_job", "run_job", "validate_text",
]


def prepare_document(*, fmt: str, content: str | bytes, max_chars: int | None = None) -> ParsedDocument:
    """Parse ``content`` as ``fmt`` and check it is neither empty nor over the size limit."""
    fmt = check_format(fmt)
    max_chars = int(max_chars or app_settings.MAX_DOCUMENT_CHARS)
    if isinstance(content, str) and len(content) > max_chars * 2:
        # Refuse before parsing: even markup-heavy text cannot shrink below half its length.
        raise DocumentTooLarge(f"The document is larger than the limit of {max_chars} characters.", field="content")
    parsed = parse(fmt, content)
    validate_text(parsed.text, max_chars=max_chars)
    return parsed


def ingest_document(
    *,
    knowledge_base: KnowledgeBase,
    parsed: ParsedDocument,
    title: str,
    fmt: str,
    external_id: str = "",
    metadata: dict | None = None,
    progress: Progress | None = None,
    propose_checks: bool | None = None,
) -> IngestResult:
    """Create or update one document from parsed text; see the module docstring for the steps.

    The bulk import's path with one document (bulk.py): its batches pipelined, each committed, and the
    chunks of the batch that completes it turned active with their vectors. Raises what the bulk
    path reports for the document (InvalidInput, EmbeddingError after marking the version failed).
    """
    item = DocumentInput(parsed, title, fmt, external_id, metadata, propose_checks)
    [(_item, outcome)] = list(ingest_documents(knowledge_base=knowledge_base, items=[item], progress=progress))
    if isinstance(outcome, AgentMemoryError):
        raise outcome
    return outcome


def run_import_job(job_id: int, *, progress: Progress | None = None) -> dict:
    """Run (or resume) an ingest job; a job already succeeded returns its result unchanged."""
    def work(job: ImportJob, report: Progress) -> tuple[dict, dict]:
        parsed = ParsedDocument.from_structure(job.source_text, job.structure, title=job.title)
        # Writes made on a worker are still attributed to whoever asked for the import.
        with audit_context(job.requested_by or current_actor(), f"import job {job.pk}"):
            result = ingest_document(
                knowledge_base=job.knowledge_base, parsed=parsed, title=job.title, fmt=job.format,
                external_id=job.external_id,
                metadata=job.metadata if (job.result or {}).get("metadata_given", True) else None,
                progress=report, propose_checks=(job.result or {}).get("propose_checks"),
            )
        return result.as_dict(), {
            "external_id": result.external_id, "progress": result.embedded, "total": result.embedded,
            "source_text": "", "structure": {},  # the text now lives in the document version
        }

    return run_job(job_id, ImportJob.Kind.INGEST, work, progress=progress)
