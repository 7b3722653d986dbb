"""Embedding-model bookkeeping: refuse cross-model searches, re-embed a knowledge base on a model change."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from django.db import transaction

from ..audit import current_actor
from ..backends import get_embedder
from ..exceptions import EmbeddingModelMismatch
from ..models import Chunk, ImportJob, KnowledgeBase
from ..progress import Progress
from .embed import embed_chunks
from .job_records import run_job
from .publish import MIXED_MODELS, refresh_embedding_model
from .sentences import embed_sentences


@dataclass(frozen=True)
class ReembedResult:
    knowledge_base: str
    model: str
    embedded: int

    def as_dict(self) -> dict:
        return asdict(self)


def assert_embedding_model(knowledge_base: KnowledgeBase, model_name: str | None = None) -> None:
    """Raise EmbeddingModelMismatch unless the active vectors of ``knowledge_base`` come from ``model_name``.

    ``model_name`` defaults to the configured embedder's. No query is made: the knowledge base
    records the model of its active vectors whenever a version is published or re-embedded.
    """
    if model_name is None:
        model_name = get_embedder().model_name
    stored = knowledge_base.embedding_model
    if not stored or stored == model_name:
        return
    what = "several models" if stored == MIXED_MODELS else f"model {stored!r}"
    raise EmbeddingModelMismatch(
        f"Knowledge base {knowledge_base.slug!r} holds vectors of {what}, but the configured embedder is "
        f"{model_name!r}; searching across models is refused. Re-embed it: "
        f"python manage.py agentmemory_reembed --kb {knowledge_base.slug}"
    )


def reembed_knowledge_base(knowledge_base: KnowledgeBase, *, progress: Progress | None = None,
                           batch_size: int | None = None) -> ReembedResult:
    """Embed, with the configured model, every chunk of the knowledge base whose vector is of another model.

    Active chunks go first; deprecated ones follow so a rollback stays possible. Each batch commits,
    so an interrupted run resumes where it stopped; a finished one is a no-op.
    """
    embedder = get_embedder()
    chunks = Chunk.objects.in_knowledge_base(knowledge_base)
    done = 0
    # Active chunks first (searches are refused until they are all done), then the rest.
    for part in (chunks.active(), chunks.exclude(status=Chunk.Status.ACTIVE)):
        offset = done

        def report(n: int, total: int, offset: int = offset) -> None:
            if progress:
                progress(offset + n, offset + total)

        done += embed_chunks(part, embedder=embedder, progress=report, batch_size=batch_size)
    refresh_embedding_model(knowledge_base.pk)
    knowledge_base.refresh_from_db(fields=["embedding_model"])
    # The sentences of the chunks search serves (sentences.py): replaced when the model changed, written for a base
    # imported before they existed. After the chunks' model is recorded: the vector channel serves meanwhile.
    embed_sentences(chunks.exclude(status=Chunk.Status.DEPRECATED), embedder=embedder, batch_size=batch_size)
    return ReembedResult(knowledge_base.slug, embedder.model_name, done)


def reindex_keywords(knowledge_base: KnowledgeBase, *, progress: Progress | None = None,
                     batch_size: int = 500) -> int:
    """Recompute every chunk's keyword index (after the user dictionary changed) and the BM25 statistics."""
    from .keywords import keyword_index_values, rebuild_keyword_stats

    rows = list(Chunk.objects.in_knowledge_base(knowledge_base).order_by("pk").values_list("pk", "heading_path", "text"))
    for start in range(0, len(rows), batch_size):
        updates = [Chunk(pk=pk, **keyword_index_values(path, text, knowledge_base=knowledge_base))
                   for pk, path, text in rows[start:start + batch_size]]
        with transaction.atomic():
            Chunk.objects.bulk_update(updates, ["search_vector", "term_count"])
        if progress:
            progress(start + len(updates), len(rows))
    rebuild_keyword_stats(knowledge_base_id=knowledge_base.pk)
    return len(rows)


def create_reembed_job(knowledge_base: KnowledgeBase) -> ImportJob:
    return ImportJob.objects.create(knowledge_base=knowledge_base, kind=ImportJob.Kind.REEMBED,
                                    requested_by=current_actor()[:200])


def run_reembed_job(job_id: int, *, progress: Progress | None = None) -> dict:
    """Run (or resume) a re-embed job, recording progress on the job row."""

    def work(job: ImportJob, report: Progress) -> tuple[dict, dict]:
        result = reembed_knowledge_base(job.knowledge_base, progress=report).as_dict()
        return result, {"progress": result["embedded"], "total": result["embedded"]}

    return run_job(job_id, ImportJob.Kind.REEMBED, work, progress=progress)
