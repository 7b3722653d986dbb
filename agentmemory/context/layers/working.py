"""The working memory layer: a session's summary, task state and recent turns, the newest most relevant."""
from __future__ import annotations

from typing import Any

from ...types import ContextItem, LayerResult, WorkingContext, WorkingTurn
from ..render import task_state_text


def load_working_context(session: Any) -> WorkingContext:
    from ...working.window import get_working_context

    return WorkingContext.from_dict(get_working_context(session))


def turn_line(turn: WorkingTurn) -> str:
    return f"{turn.role}: {turn.content}"


def gather_working(working: WorkingContext, query: str, *, decay_per_turn: float = 0.85) -> LayerResult:
    """Summary, task state and recent turns; the newer a turn, the higher its relevance."""
    items: list[ContextItem] = []
    summary = (working.summary or "").strip()
    session_id = str(working.session_id or "")
    if summary:
        items.append(ContextItem(layer="working_memory", kind="summary", key=f"summary:{session_id}", text=summary,
                                 relevance=0.9, decay=1.0, timestamp=working.summary_updated_at,
                                 ref={"covers_up_to": working.covered_up_to}))
    if working.task_state:
        items.append(ContextItem(layer="working_memory", kind="task_state", key=f"task_state:{session_id}",
                                 text=task_state_text(working.task_state), relevance=1.0, decay=1.0))
    turns = working.recent_turns()
    dropped: list[dict[str, Any]] = []
    # The agent may have appended the current message as a turn already; it is rendered once, last.
    if turns and turns[-1].role == "user" and (turns[-1].content or "").strip() == query.strip():
        last = turns.pop()
        dropped.append({"key": f"turn:{last.id}", "layer": "working_memory",
                        "kind": "turn", "reason": "duplicate", "detail": "same as the current message"})
    n = len(turns)
    for age, turn in enumerate(reversed(turns)):
        relevance = decay_per_turn ** age
        if turn.high_priority:
            relevance = max(relevance, 0.7)
        items.append(ContextItem(
            layer="working_memory", kind="turn", key=f"turn:{turn.id}", text=(turn.content or "").strip(),
            relevance=relevance, decay=1.0, timestamp=turn.created_at,
            ref={"seq": turn.seq, "role": turn.role, "high_priority": bool(turn.high_priority), "position": n - age},
        ))
    return LayerResult(layer="working_memory", items=[it for it in items if it.text],
                       detail={"dropped": dropped} if dropped else {})
