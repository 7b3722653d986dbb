"""Route classifiers: an OpenAI-compatible chat model says which layers a message needs.

Named in AGENTMEMORY['ROUTE_CLASSIFIER'] (``"agentmemory.backends.routers.LLMRouteClassifier"``; the
older path ``agentmemory.context.route.LLMRouteClassifier`` names the same class). Any class with
``classify(query, *, recent_turns) -> str`` will do; ``context.route`` keeps the rules and the decision.
"""
from __future__ import annotations

from .llm import ChatClient


class LLMRouteClassifier:
    """Route classifier over the OpenAI-compatible chat backend (LLM_URL, LLM_MODEL)."""

    SYSTEM = (
        "You route a user's message for an assistant with a memory of the user and a knowledge base. "
        "Answer with one JSON object {\"route\": R} where R is one of: "
        "\"knowledge\" (a question the domain knowledge base answers), "
        "\"personal\" (about the user: their facts, preferences, what they said before), "
        "\"continuation\" (refers to the last turns: expand, continue, 'that one', 刚才那个), "
        "\"mixed\" (needs both the user's memory and the knowledge base, or unclear)."
    )

    def classify(self, query: str, *, recent_turns: list[str] | None = None) -> str:
        recent = "\n".join(recent_turns or [])[-2000:]
        user = f"Recent turns:\n{recent or '(none)'}\n\nMessage:\n{query}"
        answer = ChatClient().complete_json(
            [{"role": "system", "content": self.SYSTEM}, {"role": "user", "content": user}], max_tokens=20
        )
        return str(answer.get("route", "")).strip().lower()
