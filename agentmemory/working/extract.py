"""Extraction: run the configured extractor over a session's new turns and write the drafts to long-term memory.

Each run is keyed by (session, kind, last turn covered), so a duplicate delivery finds the same run.
The extractor's output is stored on the run before anything is written, and every write commits
together with its result row; a run interrupted half-way (worker killed) resumes where it stopped
and the memories end up exactly those of a clean run. When the extractor fails, the run is marked
failed with the turns kept, and the task retries it.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from ..backends.extractors import ExistingMemory, Extractor, TurnText, get_extractor
from ..backends.extractors.base import BOOKKEEPING_TAGS, safe_key
from ..backends.extractors.rules import RuleBasedExtractor
from ..conf import app_settings
from ..exceptions import BackendError, ExtractionBusy, InvalidInput
from ..memory.embed import embedded_together
from ..models import ExtractionRun, Session, Turn
from ..redact import redact, redact_json
from ..text.dialect import standard_chinese, written_in_shanghainese
from ..timestamps import iso
from ..types import MemoryDraft, WriteResult
from ..usage import llm_usage
from . import corrections, grounding
from .corrections import without_retractions
from .episodes import with_episodes

logger = logging.getLogger("agentmemory.working")

#: How the write service's actions are reported per run.
REPORT_GROUPS = {"created": "created", "merged": "merged", "unchanged": "merged",
                 "superseded_previous": "superseded", "rejected": "rejected",
                 "quarantined": "quarantined"}


# --- drafts as JSON (stored on the run before any write) ---------------------------------------
def draft_to_json(draft: MemoryDraft) -> dict[str, Any]:
    data = dataclasses.asdict(draft)
    data["valid_from"] = iso(draft.valid_from)
    return data


def draft_from_json(data: dict[str, Any]) -> MemoryDraft:
    fields = {f.name for f in dataclasses.fields(MemoryDraft)}
    values = {k: v for k, v in data.items() if k in fields}
    if values.get("valid_from"):
        values["valid_from"] = dt.datetime.fromisoformat(values["valid_from"])
    values["tags"] = dict(values.get("tags") or {})
    values["supersedes_ids"] = tuple(values.get("supersedes_ids") or ())
    return MemoryDraft(**values)


def _for_store(draft: MemoryDraft) -> MemoryDraft:
    """The draft as the write service takes it: a valid key, and no extractor bookkeeping in the tags.

    Tags are context tags in the long-term store (they split conflict slots and filter recall): the
    extractor's own markers (slot, remember, correction, ...) stay on the run; context tags (project,
    product), the extractor's or the session's, go with the memory. The memory is shared by the user's
    agents unless EXTRACTION_AGENT_PRIVATE.
    """
    tags = {k: v for k, v in (draft.tags or {}).items() if k not in BOOKKEEPING_TAGS}
    # What the user says about themselves is one truth for all their agents, unless a deployment keeps
    # each agent's notes apart (EXTRACTION_AGENT_PRIVATE).
    agent_id = draft.agent_id if app_settings.EXTRACTION_AGENT_PRIVATE else ""
    return dataclasses.replace(draft, key=safe_key(draft.key), tags=tags, agent_id=agent_id)


def session_tags(session: Session) -> dict[str, str]:
    """The context tags a session was started with (``metadata["tags"]``): every memory extracted from
    it carries them. Anything but short strings is ignored."""
    raw = (session.metadata or {}).get("tags")
    if not isinstance(raw, dict):
        return {}
    return {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, str) and k and v
            and len(k) <= 100 and len(v) <= 200 and k not in BOOKKEEPING_TAGS}


def _turn_texts(session: Session, turns) -> list[TurnText]:
    """The turns as the extractors read them: a user's "俺"/"咱" as "我", Shanghainese "阿拉" as "我们" (text/dialect.py; a
    session the user writes in Shanghainese is read so in every turn); the stored turns keep their words."""
    turns = list(turns)
    shanghainese = any(t.role == "user" and written_in_shanghainese(t.content) for t in turns)
    return [TurnText(seq=t.seq, role=t.role, turn_id=t.pk, session_id=str(session.pk),
                     content=standard_chinese(t.content, shanghainese) if t.role == "user" else t.content,
                     agent_id=session.agent_id, said_at=t.created_at) for t in turns]


def _existing_memories(user_id: str, turns: list[TurnText], limit: int = 20) -> list[ExistingMemory]:
    """The user's memories most relevant to these turns, for extractors that compare (LLM)."""
    text = " ".join(t.content for t in turns if t.role == "user")[: app_settings.MAX_QUERY_CHARS].strip()
    if not text:
        return []
    try:
        from ..memory.recall import recall_memories

        found = recall_memories(user_id, text, top_k=limit, touch=False)
    except (ImportError, InvalidInput, BackendError) as exc:
        logger.info("extraction without existing memories for %s: %s", user_id, exc)
        return []
    return [ExistingMemory(id=r.memory.pk, type=r.memory.type, key=r.memory.key, content=r.memory.content)
            for r in found]


def _with_earlier(draft: MemoryDraft, results: list[dict[str, Any]]) -> MemoryDraft:
    """``draft`` replacing, besides its ``supersedes_ids``, the episodes this run wrote from the turns its
    ``replaces_turns`` tag names (a correction of what the same session said earlier: those had no id yet)."""
    turns = str((draft.tags or {}).get("replaces_turns") or "")
    wanted = {int(t) for t in turns.split(",") if t.strip().isdigit()}
    if not wanted:
        return draft
    # Its episodes, and the slot facts heard with them of a slot the correction speaks of ("budget is around $1000"
    # then "I misspoke — I can actually do $1500": the budget fact goes with its episode).
    about = set((draft.value or {}).get("topics") or ()) if isinstance(draft.value, dict) else set()
    ids = [row["memory_id"] for row in results if row.get("turn_id") in wanted
           and (row.get("type") == "episode" or corrections.SLOT_TOPICS.get(str(row.get("key") or "").split(":")[0],
                                                                             frozenset()) & about)
           and row.get("memory_id") and row.get("action") in {"created", "merged", "superseded_previous"}]
    return dataclasses.replace(draft, supersedes_ids=tuple(dict.fromkeys([*draft.supersedes_ids, *ids])))


def _write(user_id: str, draft: MemoryDraft) -> WriteResult:
    from ..memory.write import write_memory

    return write_memory(user_id, _for_store(draft))


# --- runs ---------------------------------------------------------------------------------------
def start_extraction(session: Session, *, trigger: str = ExtractionRun.Trigger.END) -> ExtractionRun | None:
    """The run covering the session's turns after the last successful extraction (None: nothing new).

    Keyed by (session, last turn): calling it again for the same turns returns the same run.
    """
    session.refresh_from_db(fields=["turn_count", "extracted_up_to", "user_id"])
    last = session.turn_count
    first = session.extracted_up_to + 1
    same = ExtractionRun.objects.filter(session=session, kind=ExtractionRun.Kind.SESSION, last_seq=last).first()
    if same is not None:
        return same  # the same key: a repeated end or a duplicate trigger
    if last < first:
        return None
    run, _created = _get_or_create_run(session, kind=ExtractionRun.Kind.SESSION, first_seq=first, last_seq=last,
                                       trigger=trigger)
    return run


def _get_or_create_run(session: Session, *, kind: str, first_seq: int, last_seq: int,
                       trigger: str) -> tuple[ExtractionRun, bool]:
    key = {"session": session, "kind": kind, "last_seq": last_seq}
    existing = ExtractionRun.objects.filter(**key).first()
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            return ExtractionRun.objects.create(**key, user_id=session.user_id, first_seq=first_seq,
                                                trigger=trigger), True
    except IntegrityError:  # a concurrent caller created the same key first
        return ExtractionRun.objects.get(**key), False


def remember_turn(turn: Turn, *, extractor: Extractor | None = None) -> ExtractionRun:
    """Write what a remember-intent user turn states, at once, as high-confidence user_stated memories."""
    session = turn.session
    run, _created = _get_or_create_run(session, kind=ExtractionRun.Kind.REMEMBER, first_seq=turn.seq,
                                       last_seq=turn.seq, trigger=ExtractionRun.Trigger.REMEMBER)
    if run.status == ExtractionRun.Status.SUCCEEDED:
        return run
    try:
        return run_extraction(run.pk, extractor=extractor)
    except BackendError:
        # The configured backend is down: the explicit instruction is still written now, by the rules.
        logger.warning("remember-intent extraction fell back to the rule-based extractor", exc_info=True)
        return run_extraction(run.pk, extractor=RuleBasedExtractor())


def _remembered_seqs(session: Session, first: int, last: int) -> set[int]:
    return set(ExtractionRun.objects.for_session(session).succeeded()
               .filter(kind=ExtractionRun.Kind.REMEMBER, last_seq__gte=first, last_seq__lte=last)
               .values_list("last_seq", flat=True))


def _extract_items(run: ExtractionRun, session: Session, extractor: Extractor) -> list[dict[str, Any]]:
    turns = list(Turn.objects.in_session(session).between(run.first_seq, run.last_seq))
    if run.kind == ExtractionRun.Kind.SESSION:
        done = _remembered_seqs(session, run.first_seq, run.last_seq)
        turns = [t for t in turns if t.seq not in done]  # written at once already
    texts = _turn_texts(session, turns)
    existing = _existing_memories(session.user_id, texts) if getattr(extractor, "name", "") != "rules" else []
    drafts = extractor.extract(texts, existing=existing)
    refused: list[MemoryDraft] = []
    if getattr(extractor, "name", "") != "rules":
        # A model's memories are checked against the user's words (language, whose fact, polarity); what
        # it refuses stays on the run with the reason.
        drafts = grounding.checked(texts, drafts)
        refused = [d for d in drafts if grounding.refused(d)]
        drafts = [d for d in drafts if not grounding.refused(d)]
        # A memory that replaces another says the new value only, as an episode does ("用户现在经营一家咖啡店",
        # not "…，不再在招商银行工作"): the old one stays in the history, not in the prompt beside the new.
        drafts = [dataclasses.replace(d, content=without_retractions(d.content)) if d.supersedes_ids else d
                  for d in drafts]
    if run.kind == ExtractionRun.Kind.REMEMBER:
        drafts = _as_remembered(drafts, texts, extractor)
    if app_settings.EXTRACTION_EPISODES:
        # Whatever the slots caught, each message that tells something about the user is kept in its words
        # (a remember request is already, as a note), and a correction replaces the episodes it corrects.
        drafts = with_episodes(session.user_id, texts, drafts, keep_episodes=run.kind == ExtractionRun.Kind.SESSION)
    drafts = [*drafts, *refused]
    seq_of = {t.turn_id: t.seq for t in texts}
    said_at = _imported_times(texts)
    context = session_tags(session)
    items = []
    for draft in drafts:
        if context:  # what the extractor found in the text wins over the session's default
            draft = dataclasses.replace(draft, tags={**context, **(draft.tags or {})})
        if draft.valid_from is None and said_at.get(draft.turn_id) is not None:
            draft = dataclasses.replace(draft, valid_from=said_at[draft.turn_id])
        item = draft_to_json(draft)
        item["turn_seq"] = seq_of.get(draft.turn_id)
        items.append(item)
    return items


def _imported_times(texts: list[TurnText]) -> dict[int | None, dt.datetime]:
    """When the turns of an imported conversation were said (``said_at`` given to the turns API, older than
    the extraction by more than IMPORTED_AFTER): what the user said then became true then. Live turns give
    none, so their memories hold the time they were written, as before."""
    cutoff = timezone.now() - IMPORTED_AFTER
    return {t.turn_id: t.said_at for t in texts if t.said_at is not None and t.said_at < cutoff}


#: A turn said this long before its extraction is from an imported conversation (``said_at``), not live.
IMPORTED_AFTER = dt.timedelta(hours=1)


def _as_remembered(drafts: list[MemoryDraft], texts: list[TurnText], extractor: Extractor) -> list[MemoryDraft]:
    """An explicit remember instruction is user_stated with high confidence; never nothing."""
    stated = [dataclasses.replace(d, source="user_stated", confidence=max(d.confidence, 0.95),
                                  quality=max(d.quality or 0.0, 0.9), tags={**d.tags, "remember": "true"})
              for d in drafts]
    if stated or not texts:
        return stated
    turn = texts[0]
    return RuleBasedExtractor().extract_text(turn.content, turn=turn, remember=True)


def run_extraction(run_id: int, *, extractor: Extractor | None = None) -> ExtractionRun:
    """Run (or resume) one extraction; a succeeded run is returned untouched.

    Raises BackendError when the extractor or embedder fails: the run is then ``failed`` with the
    error, no turn is touched, and calling this again retries it.
    """
    run = ExtractionRun.objects.select_related("session").get(pk=run_id)
    if run.status == ExtractionRun.Status.SUCCEEDED:
        return run
    session = run.session
    extractor = extractor or get_extractor()
    _claim(run)
    run.refresh_from_db()
    try:
        if run.items is None:
            with llm_usage("extraction", user_id=session.user_id, job=f"extraction_run:{run.pk}"):
                items = redact_json(_extract_items(run, session, extractor))  # the stored payload, masked too
            run.items = items
            run.extractor = f"{type(extractor).__module__}.{type(extractor).__qualname__}"
            run.save(update_fields=["items", "extractor"])
        _write_items(run)
    except Exception as exc:  # BackendError above all: the run is failed, the turns are kept, retry later
        _fail(run, exc)
        raise
    now = timezone.now()
    ExtractionRun.objects.filter(pk=run.pk).update(status=ExtractionRun.Status.SUCCEEDED, finished_at=now, error="")
    if run.kind == ExtractionRun.Kind.SESSION:
        Session.objects.filter(pk=session.pk, extracted_up_to__lt=run.last_seq).update(extracted_up_to=run.last_seq)
    run.refresh_from_db()
    return run


def _claim(run: ExtractionRun) -> None:
    """Mark ``run`` running, unless another run of its user is running (started less than
    EXTRACTION_LEASE_SECONDS ago): runs of one user never interleave, whatever the number of workers, so
    the newer session's statements are written after the older one's. Raises ExtractionBusy (the task
    retries later; left pending, the sweep starts it again)."""
    now = timezone.now()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                           [f"agentmemory:extraction:{run.user_id}"])
        other = (ExtractionRun.objects.filter(user_id=run.user_id, status=ExtractionRun.Status.RUNNING,
                                              started_at__gte=now - dt.timedelta(
                                                  seconds=app_settings.EXTRACTION_LEASE_SECONDS))
                 .exclude(pk=run.pk).values_list("pk", flat=True).first())
        if other is not None:
            raise ExtractionBusy(f"run {other} of this user is running; run {run.pk} waits for it")
        ExtractionRun.objects.filter(pk=run.pk).update(status=ExtractionRun.Status.RUNNING, error="",
                                                       attempts=run.attempts + 1, started_at=now)


def _fail(run: ExtractionRun, exc: BaseException) -> None:
    ExtractionRun.objects.filter(pk=run.pk).update(status=ExtractionRun.Status.FAILED,
                                                   error=f"{type(exc).__name__}: {exc}"[:2000],
                                                   finished_at=timezone.now())


def _write_items(run: ExtractionRun) -> None:
    """Write each item not written yet; each write commits together with its result row. Their passages are
    embedded first, in one batch (memory/embed.py)."""
    written = {row.get("item") for row in run.results or []}
    texts = [redact(str(item.get("content") or "").strip().replace("\x00", ""))
             for index, item in enumerate(run.items or []) if index not in written]
    with embedded_together(texts):
        _write_each(run)


def _write_each(run: ExtractionRun) -> None:
    for index, item in enumerate(run.items or []):
        with transaction.atomic():
            # Re-read under a row lock: a concurrent duplicate delivery waits here and then sees the row.
            locked = ExtractionRun.objects.select_for_update().get(pk=run.pk)
            if any(row.get("item") == index for row in locked.results):
                run.results = locked.results
                continue
            draft = _with_earlier(draft_from_json(item), locked.results)
            try:
                result = (WriteResult(action="rejected", reason=grounding.refused(draft)) if grounding.refused(draft)
                          else _write(run.user_id, draft))
            except InvalidInput as exc:
                result = WriteResult(action="rejected", reason=f"invalid: {exc.detail}")
            row = {
                "item": index,
                "action": result.action,
                "group": REPORT_GROUPS.get(result.action, result.action),
                "memory_id": result.memory_id,
                "reason": result.reason,
                "superseded_ids": list(result.superseded_ids),
                "type": draft.type,
                "key": safe_key(draft.key),
                "content": draft.content,
                "source": draft.source,
                "confidence": draft.confidence,
                "turn_id": draft.turn_id,
                "turn_seq": item.get("turn_seq"),
            }
            locked.results = [*locked.results, row]
            locked.save(update_fields=["results"])
            run.results = locked.results


def due_extractions(*, now: dt.datetime | None = None, limit: int = 500) -> list[int]:
    """Runs to start now: interim runs of idle active sessions, failed runs due for another try, and
    runs still pending after two minutes (their message was never sent: the broker was down).

    A session idle for SESSION_IDLE_MINUTES with turns not yet extracted gets a run (trigger
    ``idle``); a failed run is tried again after 5 x 2^attempts minutes, up to
    EXTRACTION_MAX_RETRIES + 1 attempts (its turns are kept meanwhile).
    """
    now = now or timezone.now()
    cutoff = now - dt.timedelta(minutes=app_settings.SESSION_IDLE_MINUTES)
    run_ids = []
    for session in Session.objects.idle_since(cutoff).order_by("last_activity_at")[:limit]:
        run = start_extraction(session, trigger=ExtractionRun.Trigger.IDLE)
        if run is not None and run.status != ExtractionRun.Status.SUCCEEDED:
            run_ids.append(run.pk)
    max_attempts = app_settings.EXTRACTION_MAX_RETRIES + 1
    for run in ExtractionRun.objects.filter(status=ExtractionRun.Status.FAILED,
                                            attempts__lt=max_attempts).order_by("finished_at")[:limit]:
        backoff = dt.timedelta(minutes=5 * 2 ** max(0, run.attempts - 1))
        if run.finished_at is None or run.finished_at + backoff <= now:
            if run.pk not in run_ids:
                run_ids.append(run.pk)
    stranded = ExtractionRun.objects.filter(status=ExtractionRun.Status.PENDING,
                                            created_at__lt=now - dt.timedelta(minutes=2))
    for run_id in stranded.order_by("created_at").values_list("pk", flat=True)[:limit]:
        if run_id not in run_ids:
            run_ids.append(run_id)
    return run_ids


def extraction_report(session: Session) -> dict[str, Any]:
    """What extraction did for the session: runs, and memories created, merged, superseded and rejected."""
    runs = list(ExtractionRun.objects.for_session(session).order_by("created_at", "id"))
    groups: dict[str, list[dict]] = {"created": [], "merged": [], "superseded": [], "rejected": []}
    for run in runs:
        for row in run.results or []:
            groups.setdefault(row.get("group") or REPORT_GROUPS.get(row.get("action"), "other"), []).append(
                {**row, "run_id": run.pk})
    latest = next((r for r in reversed(runs) if r.kind == ExtractionRun.Kind.SESSION), None)
    return {
        "session_id": str(session.pk),
        "status": latest.status if latest else "none",
        "extracted_up_to": session.extracted_up_to,
        "turn_count": session.turn_count,
        "runs": [run_summary(r) for r in reversed(runs)],
        "memories": groups,
        "counts": {k: len(v) for k, v in groups.items()},
    }


def run_summary(run: ExtractionRun) -> dict[str, Any]:
    return {
        "id": run.pk, "kind": run.kind, "trigger": run.trigger, "first_seq": run.first_seq,
        "last_seq": run.last_seq, "status": run.status, "attempts": run.attempts, "error": run.error,
        "extractor": run.extractor, "items": len(run.items or []), "counts": run.counts(),
        "created_at": run.created_at, "started_at": run.started_at, "finished_at": run.finished_at,
    }
