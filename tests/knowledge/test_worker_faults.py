"""A worker SIGKILLed mid-import and mid-re-embed: the job resumes on redelivery, 0 lost, 0 duplicated."""
from __future__ import annotations

import os
import signal
import time

import pytest

from agentmemory.knowledge.ingest import create_import_job, prepare_document, run_import_job
from agentmemory.knowledge.reembed import create_reembed_job
from agentmemory.models import Chunk, Document, DocumentVersion, ImportJob, KnowledgeBase
from agentmemory.tasks.knowledge import ingest_document, reembed_knowledge_base
from tests.celery_helpers import reset_broker_state
from tests.live_helpers import stop_group
from tests.working.test_extraction_worker import _start_worker, _wait

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

DOC = "# 仓库手册\n" + "\n".join(
    f"## 第{i}节\n第{i}节说明：X-{i} 型号的额定功率是 {i * 10} 瓦，适用于{i}号仓库。" for i in range(1, 13))


@pytest.fixture(autouse=True)
def _fresh_broker(celery_app_with_broker, monkeypatch):
    monkeypatch.setenv("AGENTMEMORY_TEST_BATCH_SIZE", "3")  # read by the workers' PausingEmbedder
    app = celery_app_with_broker
    reset_broker_state(app)
    app.control.purge()
    yield


def _kb(slug: str) -> KnowledgeBase:
    return KnowledgeBase.objects.create(slug=slug, name=slug, chunk_size=60, chunk_overlap=0)


def _job(kb: KnowledgeBase) -> ImportJob:
    return create_import_job(knowledge_base=kb, parsed=prepare_document(fmt="markdown", content=DOC),
                             title="仓库手册", fmt="markdown", external_id="manual")


def _chunks(kb: KnowledgeBase) -> list[tuple]:
    return sorted((c.position, c.text, c.status) for c in Chunk.objects.in_knowledge_base(kb).without_vectors())


def _kill_after_first_batch(redis_url, tmp_path, enqueue, progressed):
    """Start a worker that stalls in its second embedding batch, enqueue, wait, SIGKILL it; then a second
    worker picks the unacknowledged message up."""
    pause, log = tmp_path / "pause", tmp_path / "worker.log"
    pause.write_text("1")
    first = _start_worker(redis_url, pause, log)
    try:
        enqueue()
        _wait(lambda: progressed() and pause.read_text() == "0", 180, "the first batch", first, log)
        time.sleep(1.0)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(30)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    pause.unlink()
    return log


def _finish(redis_url, tmp_path, log, done) -> None:
    second = _start_worker(redis_url, tmp_path / "pause", log)
    try:
        _wait(done, 240, "the redelivered job", second, log)
    finally:
        stop_group(second, timeout=30)


def test_import_killed_mid_embedding_resumes_without_loss_or_duplicates(redis_url, tmp_path):
    clean_kb = _kb("clean")
    run_import_job(_job(clean_kb).pk)
    expected = _chunks(clean_kb)
    assert len(expected) >= 8

    kb = _kb("killed")
    job = _job(kb)

    def embedded_some() -> bool:
        return Chunk.objects.in_knowledge_base(kb).filter(embedding__isnull=False).exists()

    log = _kill_after_first_batch(redis_url, tmp_path, lambda: ingest_document.delay(job.pk), embedded_some)
    partial = Chunk.objects.in_knowledge_base(kb)
    assert 0 < partial.filter(embedding__isnull=False).count() < partial.count()  # killed mid-way
    assert ImportJob.objects.get(pk=job.pk).status == "running"

    _finish(redis_url, tmp_path, log, lambda: ImportJob.objects.get(pk=job.pk).status == "succeeded")
    assert _chunks(kb) == expected  # 0 lost, 0 duplicated
    assert DocumentVersion.objects.filter(document__knowledge_base=kb).count() == 1
    assert Document.objects.get(knowledge_base=kb).active_version.status == "active"
    assert not Chunk.objects.in_knowledge_base(kb).filter(embedding__isnull=True).exists()


def test_reembed_killed_mid_way_resumes_and_ends_with_every_chunk_on_the_new_model(redis_url, tmp_path):
    kb = _kb("reembed")
    run_import_job(_job(kb).pk)
    before = _chunks(kb)
    model = Chunk.objects.in_knowledge_base(kb).values_list("embedding_model", flat=True).first()
    # As if the base had been embedded by another model: every vector is now due for re-embedding.
    Chunk.objects.in_knowledge_base(kb).update(embedding_model="old-model")
    job = create_reembed_job(kb)

    def reembedded_some() -> bool:
        return Chunk.objects.in_knowledge_base(kb).filter(embedding_model=model).exists()

    log = _kill_after_first_batch(redis_url, tmp_path, lambda: reembed_knowledge_base.delay(job.pk),
                                  reembedded_some)
    done_before_kill = Chunk.objects.in_knowledge_base(kb).filter(embedding_model=model).count()
    assert 0 < done_before_kill < len(before)

    _finish(redis_url, tmp_path, log, lambda: ImportJob.objects.get(pk=job.pk).status == "succeeded")
    assert _chunks(kb) == before
    assert set(Chunk.objects.in_knowledge_base(kb).values_list("embedding_model", flat=True)) == {model}
    kb.refresh_from_db()
    assert kb.embedding_model == model


GATED_V1 = "# 售后手册\n## 保修\n本产品自购买之日起保修两年。\n## 退货\n签收后七天内可以无理由退货。"
GATED_V2 = "# 售后手册\n## 退货\n签收后七天内可以无理由退货。\n## 配送\n同城订单当日送达。"


def test_a_worker_killed_inside_the_publish_gate_leaves_the_live_version_and_the_job_resumes(redis_url, tmp_path):
    from agentmemory.knowledge.evaluate import create_case
    from agentmemory.knowledge.search import search_knowledge

    kb = KnowledgeBase.objects.create(slug="gated", name="gated", publish_gate=True)

    def job_for(text):
        return create_import_job(knowledge_base=kb, parsed=prepare_document(fmt="markdown", content=text),
                                 title="售后手册", fmt="markdown", external_id="service")

    assert run_import_job(job_for(GATED_V1).pk)["publication"] == "published"
    warranty = search_knowledge("保修期多久", knowledge_bases=["gated"]).hits[0]
    create_case(knowledge_base=kb, query="保修期多久", expected_chunk_ids=[warranty.chunk_id])
    job = job_for(GATED_V2)

    pause, log = tmp_path / "pause", tmp_path / "worker.log"
    query_pause, stalled = tmp_path / "pause.query", tmp_path / "pause.query.stalled"
    query_pause.write_text("1")  # the gate's "before" search passes; the next one (inside the trial) stalls
    worker = _start_worker(redis_url, pause, log)
    try:
        ingest_document.delay(job.pk)
        _wait(stalled.exists, 180, "the gate's trial search", worker, log)
        # Mid-gate, every other reader still sees the live version.
        hit = search_knowledge("保修期多久", knowledge_bases=["gated"]).hits[0]
        assert (hit.version, hit.chunk_id) == (1, warranty.chunk_id)
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(30)
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
    version = DocumentVersion.objects.get(document__knowledge_base=kb, number=2)
    assert version.status == "pending" and version.gate_report == {}
    assert not Chunk.objects.filter(version=version, status="active").exists()
    assert Document.objects.get(knowledge_base=kb).active_version.number == 1
    assert ImportJob.objects.get(pk=job.pk).status == "running"

    query_pause.unlink()
    _finish(redis_url, tmp_path, log, lambda: ImportJob.objects.get(pk=job.pk).status == "succeeded")
    assert ImportJob.objects.get(pk=job.pk).result["publication"] == "held"
    version.refresh_from_db()
    assert version.status == "held" and version.gate_report["broken"][0]["rank_before"] == 1
    assert search_knowledge("保修期多久", knowledge_bases=["gated"]).hits[0].version == 1
