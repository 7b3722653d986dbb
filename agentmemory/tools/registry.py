"""The agent tools, defined once: name, when to use it, its arguments (a DRF serializer), its rule, its handler.

The same definitions serve the OpenAI-style tool schemas and their dispatcher (``tools/`` REST
endpoints, ``agentmemory_tool_schemas``) and the MCP server (stdio and streamable HTTP). Every call is
checked against the caller's principal exactly as the REST endpoints check it, and runs with the
principal as the audit actor.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rest_framework import serializers

from ..api.access import Principal, Rule, context_arguments, denial, read, visible_memory, write
from ..audit import audit_context
from ..exceptions import AccessDenied, InvalidInput, NotFound
from ..models import MemoryItem
from ..timestamps import iso


class ToolDenied(AccessDenied):
    """The caller may not run this tool (scope, permission, user or agent)."""


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    arguments: type[serializers.Serializer]
    rule: Rule
    handler: Callable[[Principal, dict], Any]


def _require_user(principal: Principal, user_id: str) -> None:
    if not principal.may_act_for(user_id):
        raise ToolDenied(f"You may not act for user {user_id!r}.")


def _require_agent(principal: Principal, agent_id: str | None) -> None:
    if not principal.may_use_agent(agent_id):
        raise ToolDenied(f"This API key may not act for agent {agent_id or '(shared)'!r}.")


def _memory_json(item: MemoryItem, scores: dict | None = None) -> dict:
    body = {"id": item.pk, "content": item.content, "type": item.type, "key": item.key, "value": item.value,
            "source": item.source, "confidence": item.confidence, "status": item.status,
            "agent_id": item.agent_id, "created_at": iso(item.created_at)}
    if scores is not None:
        body["score"] = scores.get("final")
    return body


# --- arguments ----------------------------------------------------------------------------------

_USER = {"max_length": 255, "help_text": "The end user's id."}
_AGENT = {"max_length": 255, "required": False, "allow_null": True, "default": None,
          "help_text": "The agent's id; its own memories are added to the shared ones."}


class RememberArgs(serializers.Serializer):
    user_id = serializers.CharField(**_USER)
    content = serializers.CharField(max_length=2000, help_text="The fact, preference or decision, in one sentence.")
    type = serializers.ChoiceField(choices=MemoryItem.Type.choices, default="fact",
                                   help_text="fact, preference, decision, event or feedback.")
    key = serializers.CharField(max_length=100, required=False, allow_blank=True, default="",
                                help_text="A slot such as budget or tech_stack: a new value supersedes the old.")
    agent_id = serializers.CharField(**_AGENT)


class RecallArgs(serializers.Serializer):
    user_id = serializers.CharField(**_USER)
    query = serializers.CharField(max_length=2000, help_text="What to look for, in the user's words.")
    top_k = serializers.IntegerField(min_value=1, max_value=50, default=5)
    agent_id = serializers.CharField(**_AGENT)
    tags = serializers.DictField(child=serializers.CharField(max_length=200), required=False, default=dict,
                                 help_text='Only memories with these context tags, e.g. {"project": "java-billing"}.')


class ForgetMemoryArgs(serializers.Serializer):
    user_id = serializers.CharField(**_USER)
    memory_id = serializers.IntegerField(min_value=1, help_text="The id recall returned.")
    reason = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")


class SearchKnowledgeArgs(serializers.Serializer):
    query = serializers.CharField(max_length=2000)
    knowledge_bases = serializers.ListField(child=serializers.CharField(max_length=100), required=False,
                                            allow_null=True, default=None, help_text="Slugs; default all.")
    top_k = serializers.IntegerField(min_value=1, max_value=50, default=5)


class GetContextArgs(serializers.Serializer):
    user_id = serializers.CharField(**_USER)
    query = serializers.CharField(max_length=2000, help_text="The user's current message.")
    session_id = serializers.CharField(max_length=64, required=False, allow_null=True, default=None)
    agent_id = serializers.CharField(**_AGENT)
    knowledge_bases = serializers.ListField(child=serializers.CharField(max_length=100), required=False,
                                            allow_null=True, default=None)
    token_budget = serializers.IntegerField(min_value=50, max_value=1_000_000, required=False, allow_null=True,
                                            default=None)


class AppendTurnArgs(serializers.Serializer):
    user_id = serializers.CharField(**_USER)
    content = serializers.CharField(max_length=100_000)
    role = serializers.ChoiceField(choices=["user", "assistant", "system", "tool"], default="user")
    session_id = serializers.CharField(max_length=64, required=False, allow_null=True, default=None,
                                       help_text="Omit to start a new session; its id is returned.")
    agent_id = serializers.CharField(**_AGENT)


class EndSessionArgs(serializers.Serializer):
    session_id = serializers.CharField(max_length=64)


class ContextFeedbackArgs(serializers.Serializer):
    context_id = serializers.IntegerField(min_value=1, help_text="The context_id get_context returned.")
    rating = serializers.ChoiceField(choices=[1, -1], help_text="1: helpful; -1: wrong or not helpful.")
    items = serializers.ListField(child=serializers.CharField(max_length=8), required=False, default=list,
                                  help_text='The markers it is about, e.g. ["M2", "K1"]; empty: the whole context.')
    comment = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
    correction = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="",
                                       help_text="What is true instead, in the user's words (with rating -1).")


# --- handlers ---------------------------------------------------------------------------------

def _remember(principal: Principal, args: dict) -> dict:
    from ..memory.write import write_memory
    from ..types import MemoryDraft

    _require_user(principal, args["user_id"])
    args["agent_id"] = principal.default_agent(args["agent_id"])
    _require_agent(principal, args["agent_id"])
    source = MemoryItem.Source.USER_STATED
    result = write_memory(args["user_id"], MemoryDraft(content=args["content"], type=args["type"], key=args["key"],
                                                       source=source, agent_id=args["agent_id"] or ""))
    item = (MemoryItem.objects.for_user(args["user_id"]).filter(pk=result.memory_id).first()
            if result.memory_id else None)
    return {"action": result.action, "reason": result.reason, "superseded_ids": list(result.superseded_ids),
            "memory": _memory_json(item) if item else None}


def _recall(principal: Principal, args: dict) -> dict:
    from ..memory.recall import recall_memories

    _require_user(principal, args["user_id"])
    agent_id = args["agent_id"]
    if agent_id is not None:
        _require_agent(principal, agent_id)
    results = recall_memories(args["user_id"], args["query"], top_k=args["top_k"], agent_id=agent_id,
                              agent_ids=principal.agent_limit if agent_id is None else None,
                              tags=args.get("tags") or None)
    return {"mode": results.mode, "degraded_reason": results.degraded_reason,
            "memories": [_memory_json(r.memory, r.as_dict()["scores"]) for r in results]}


def _forget_memory(principal: Principal, args: dict) -> dict:
    from ..memory.forget import delete_memory

    _require_user(principal, args["user_id"])
    item = visible_memory(principal, args["memory_id"], user_id=args["user_id"])
    receipt = delete_memory(args["user_id"], item.pk, reason=args["reason"])
    return {"deleted": True, "receipt_id": receipt.pk, "counts": receipt.counts}


def _search_knowledge(principal: Principal, args: dict) -> dict:
    from ..knowledge.search import search_knowledge

    result = search_knowledge(args["query"], knowledge_bases=args["knowledge_bases"], top_k=args["top_k"])
    body = result.as_dict()
    return {"hits": [{k: hit.get(k) for k in ("chunk_id", "document_id", "document_title", "heading_path", "text",
                                              "citation", "score") if k in hit} for hit in body["hits"]],
            "degraded": body.get("trace", {}).get("degraded", [])}


def _get_context(principal: Principal, args: dict) -> dict:
    from ..context.assemble import assemble_context

    args = context_arguments(principal, args)  # the same user, agent and session checks as REST context/
    bundle = assemble_context(user_id=args["user_id"], query=args["query"], agent_id=args["agent_id"],
                              session_id=args["session_id"], knowledge_bases=args["knowledge_bases"],
                              token_budget=args["token_budget"], via="tool")
    citations = [{"label": it.label, "layer": it.layer, "ref": it.ref}
                 for items in bundle.sections.values() for it in items if it.label]
    return {"prompt": bundle.prompt, "route": bundle.route, "citations": citations,
            "degraded": bundle.trace.get("degraded", []), "context_id": bundle.context_id}


def _session_for(principal: Principal, session_id: str):
    from ..working import sessions as service

    try:
        session = service.get_session(session_id)
    except NotFound:
        raise NotFound(f"Session {session_id} does not exist.") from None
    if not principal.may_act_for(session.user_id) or not principal.may_use_agent(session.agent_id or None):
        raise NotFound(f"Session {session_id} does not exist.")
    return session


def _append_turn(principal: Principal, args: dict) -> dict:
    from ..tasks.working import enqueue_summary
    from ..working import sessions as service

    _require_user(principal, args["user_id"])
    args["agent_id"] = principal.default_agent(args["agent_id"])
    _require_agent(principal, args["agent_id"])
    if args["session_id"]:
        session = _session_for(principal, args["session_id"])
        if session.user_id != args["user_id"]:
            raise NotFound(f"Session {args['session_id']} does not exist.")
    else:
        session = service.create_session(user_id=args["user_id"], agent_id=args["agent_id"] or "")
    result = service.append_turn(session, role=args["role"], content=args["content"])
    if result.summary_due:
        enqueue_summary(session.pk)
    return {"session_id": str(session.pk), "seq": result.turn.seq, "memories": result.memories}


def _end_session(principal: Principal, args: dict) -> dict:
    from ..tasks.working import enqueue_extraction
    from ..working import sessions as service

    session = _session_for(principal, args["session_id"])
    run = service.end_session(session)
    if run is not None and run.status != run.Status.SUCCEEDED:
        enqueue_extraction(run.pk)
    return {"session_id": str(session.pk), "status": "ended",
            "extraction": {"run_id": run.pk, "status": run.status} if run else None}


def _context_feedback(principal: Principal, args: dict) -> dict:
    from ..context.feedback import give_feedback
    from ..models import ContextRecord

    record = ContextRecord.objects.filter(pk=args["context_id"]).first()
    if (record is None or not principal.may_act_for(record.user_id)
            or (record.agent_id and not principal.may_use_agent(record.agent_id))):
        raise NotFound(f"Context {args['context_id']} does not exist.")
    row = give_feedback(record, rating=args["rating"], items=args["items"], comment=args["comment"],
                        correction=args["correction"], actor=principal.actor)
    return {"feedback_id": row.pk, "effects": row.effects}


_MEMORY = "agentmemory.view_memoryitem"
TOOLS: dict[str, Tool] = {tool.name: tool for tool in (
    Tool("remember", "Store something the user said about themselves that should be known in later "
         "conversations: a fact, preference, decision or event. Give a key (e.g. budget) when the value may "
         "change later; a new value then supersedes the old one.", RememberArgs,
         write("agentmemory.add_memoryitem"), _remember),
    Tool("recall", "Look up what is remembered about the user that is relevant to a question. Use it before "
         "answering anything that depends on the user (their company, preferences, earlier decisions).",
         RecallArgs, read(_MEMORY), _recall),
    Tool("forget_memory", "Delete one remembered item when the user asks to forget it or says it is wrong "
         "(use the id recall returned).", ForgetMemoryArgs, write("agentmemory.delete_memoryitem"), _forget_memory),
    Tool("search_knowledge", "Search the shared knowledge base (manuals, policies, documents) for passages "
         "with citations. Use it for questions about products or documents, not about the user.",
         SearchKnowledgeArgs, read("agentmemory.view_knowledgebase"), _search_knowledge),
    Tool("get_context", "Build the whole labelled prompt context for the user's current message: profile, "
         "relevant memories, knowledge with citations and the session's recent turns, within a token budget. "
         "Use it once per user message when you want everything at once.", GetContextArgs,
         read(_MEMORY, "agentmemory.view_session"), _get_context),
    Tool("append_turn", "Record one message of the conversation (omit session_id to start a session). A "
         "user message with an explicit remember request is stored as a memory at once.", AppendTurnArgs,
         write("agentmemory.add_turn"), _append_turn),
    Tool("end_session", "End the conversation: what the user said is extracted into long-term memory in "
         "the background.", EndSessionArgs, write("agentmemory.change_session"), _end_session),
    Tool("context_feedback", "Tell the memory that a context helped or was wrong: rate it, or the items the "
         "user objected to by their markers (M2, K1); with rating -1 a correction in the user's words replaces "
         "a wrong memory.", ContextFeedbackArgs, write("agentmemory.add_contextfeedback"), _context_feedback),
)}


def call_tool(principal: Principal, name: str, arguments: dict | str | None) -> dict:
    """Validate, authorize and run one tool call; raises AgentMemoryError subclasses on failure."""
    tool = TOOLS.get(name)
    if tool is None:
        raise NotFound(f"Unknown tool {name!r}; the tools are: {', '.join(TOOLS)}.")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            raise InvalidInput("arguments must be a JSON object.", field="arguments") from None
    if not isinstance(arguments, dict):
        raise InvalidInput("arguments must be a JSON object.", field="arguments")
    reason = denial(principal, tool.rule)
    if reason:
        raise ToolDenied(reason)
    serializer = tool.arguments(data=arguments)
    if not serializer.is_valid():
        field, messages = next(iter(serializer.errors.items()))
        raise InvalidInput(f"{field}: {' '.join(str(m) for m in messages)}", field=field)
    with audit_context(principal.actor, f"tool {name}"):
        return tool.handler(principal, dict(serializer.validated_data))
