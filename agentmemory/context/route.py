"""Stage 1, route: decide which layers a message needs (knowledge | personal | continuation | mixed).

Rules first (Chinese and English patterns, deterministic, microseconds); an optional classifier
(AGENTMEMORY['ROUTE_CLASSIFIER'] = "agentmemory.backends.routers.LLMRouteClassifier" for the
OpenAI-compatible chat backend, or the dotted path of any class with
``classify(query, *, recent_turns) -> str``) may overrule them. A classifier that
fails never fails the request: the rules' answer stands and the trace says why.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# The classifier is a network backend and lives in backends/; settings written for the path
# "agentmemory.context.route.LLMRouteClassifier" (the documented one before) still resolve here.
from ..backends.routers import LLMRouteClassifier  # noqa: F401
from ..conf import app_settings

KNOWLEDGE = "knowledge"
PERSONAL = "personal"
CONTINUATION = "continuation"
MIXED = "mixed"
ROUTES = (KNOWLEDGE, PERSONAL, CONTINUATION, MIXED)

# Layers each route retrieves. The profile is cheap (cached, no vector search) and always loaded,
# so even a pure knowledge question knows who is asking; working memory needs a session.
ROUTE_LAYERS: dict[str, tuple[str, ...]] = {
    KNOWLEDGE: ("profile", "knowledge", "working_memory"),
    PERSONAL: ("profile", "long_term_memory", "working_memory"),
    CONTINUATION: ("profile", "working_memory"),
    MIXED: ("profile", "long_term_memory", "knowledge", "working_memory"),
}

# Patterns are searched in the lower-cased, full-width-folded message.
_CONTINUATION = [
    r"刚才", r"刚刚", r"上面(?:说|讲|提|那)", r"上一(?:条|个|段|点)", r"前面(?:说|讲|提)", r"展开(?:说|讲|一下|谈)",
    r"再(?:说|讲|详细|具体|解释|展开)", r"详细(?:说|讲|点|些|一点)", r"具体(?:说|讲)说?", r"继续", r"接着(?:说|讲)",
    r"还有呢", r"换个说法", r"那个再", r"这个再", r"第[一二三四五六七八九十\d]+(?:点|条|个|步)(?:再|是什么|展开|详细)",
    r"\btell me more\b", r"\bexpand on\b", r"\belaborate\b", r"\bgo on\b", r"\bcontinue\b", r"\bsay more\b",
    r"\bwhat you just said\b", r"\byou just (?:said|mentioned|wrote)\b", r"\b(?:the )?(?:last|previous) (?:answer|point|one|reply)\b",
    r"\bmore details?\b", r"\bin more detail\b",
]
_PERSONAL = [
    r"我之前(?:说|提|讲|告诉)", r"我(?:以前|上次|早先)(?:说|提|讲|告诉)", r"我说过", r"我提过", r"我告诉过你", r"你还记得",
    r"记得我", r"关于我", r"我是谁", r"我(?:们)?的(?:偏好|喜好|习惯|公司|行业|预算|名字|要求|情况|项目|团队)",
    r"我(?:喜欢|不喜欢|偏好|讨厌)什么", r"帮我", r"给我", r"适合我", r"我们公司", r"预算", r"按我的",
    r"\bi (?:told|said|mentioned)\b", r"\bremember (?:when|that|what|my|me)\b", r"\bdo you remember\b",
    r"\babout me\b", r"\bmy (?:preferences?|company|budget|name|team|project|job|style)\b", r"\blast time\b",
    r"\bfor me\b", r"\bmy own\b", r"\bwhat do you know about me\b",
    # A question about the user, as the user asks it ("我的猫叫什么") or as an agent asks about them
    # ("用户的猫叫什么名字？", "What is the user's side project?"): the user's memories answer it.
    r"用户", r"我的", r"我家", r"\bthe user\b", r"\buser'?s\b", r"\bmy\b", r"\bme\b",
]
_KNOWLEDGE = [
    r"怎么(?:做|办|用|设置|配置|处理|申请|写|操作)", r"如何", r"什么是", r"是什么", r"为什么", r"步骤", r"流程", r"规定",
    r"政策", r"文档", r"手册", r"说明书", r"案例", r"模板", r"方法", r"教程", r"区别", r"介绍一下", r"方案", r"原理",
    r"\bhow (?:do|does|can|should|to)\b", r"\bwhat (?:is|are|does)\b", r"\bwhy\b", r"\bexplain\b", r"\bsteps?\b",
    r"\bpolicy\b", r"\bdocumentation\b", r"\bguide\b", r"\bexamples?\b", r"\btemplates?\b",
    r"\bdifference between\b", r"\bwhich\b",
]
_COMPILED = {
    CONTINUATION: [re.compile(p) for p in _CONTINUATION],
    PERSONAL: [re.compile(p) for p in _PERSONAL],
    KNOWLEDGE: [re.compile(p) for p in _KNOWLEDGE],
}


@dataclass(frozen=True)
class RouteDecision:
    """The route, how it was decided, and what matched (for the trace)."""

    route: str
    method: str  # rules | classifier | requested | fallback
    matched: dict[str, list[str]] = field(default_factory=dict)
    note: str = ""

    @property
    def layers(self) -> tuple[str, ...]:
        return ROUTE_LAYERS[self.route]

    def as_trace(self) -> dict[str, Any]:
        out: dict[str, Any] = {"route": self.route, "method": self.method, "matched": self.matched,
                               "layers": list(self.layers)}
        if self.note:
            out["note"] = self.note
        return out


def _fold(text: str) -> str:
    return text.translate({c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}).replace("\u3000", " ").lower()


def route_by_rules(query: str) -> RouteDecision:
    """Route a message by Chinese/English patterns alone; pure and deterministic.

    Continuation wins when the message points back at what was just said ("刚才那个再展开说说");
    personal and knowledge signals together, or none at all, give ``mixed`` (retrieve everything).
    """
    text = _fold(query)
    matched = {name: [m.group(0) for p in pats if (m := p.search(text))] for name, pats in _COMPILED.items()}
    matched = {k: v for k, v in matched.items() if v}
    if CONTINUATION in matched:
        route = CONTINUATION
    elif PERSONAL in matched and KNOWLEDGE in matched:
        route = MIXED
    elif PERSONAL in matched:
        route = PERSONAL
    elif KNOWLEDGE in matched:
        route = KNOWLEDGE
    else:
        route = MIXED
    return RouteDecision(route=route, method="rules", matched=matched)


def _classifier():
    if not app_settings.ROUTE_CLASSIFIER:
        return None
    from ..backends import load_backend

    return load_backend("ROUTE_CLASSIFIER")


def decide_route(query: str, *, requested: str | None = None, recent_turns: list[str] | None = None,
                 has_session: bool = True) -> RouteDecision:
    """The route for ``query``: the caller's choice if given, else the classifier's, else the rules'.

    Without a session there is nothing to continue, so ``continuation`` becomes ``mixed``.
    """
    rules = route_by_rules(query)
    if requested:
        decision = RouteDecision(route=requested, method="requested", matched=rules.matched)
    else:
        decision = rules
        classifier = _classifier()
        if classifier is not None:
            try:
                route = classifier.classify(query, recent_turns=recent_turns)
            except Exception as exc:  # a classifier outage must not fail the context
                decision = RouteDecision(route=rules.route, method="fallback", matched=rules.matched,
                                         note=f"classifier failed ({type(exc).__name__}: {str(exc)[:200]}); rules used")
            else:
                if route in ROUTES:
                    decision = RouteDecision(route=route, method="classifier", matched=rules.matched)
                else:
                    decision = RouteDecision(route=rules.route, method="fallback", matched=rules.matched,
                                             note=f"classifier answered {route!r}, not a route; rules used")
    if decision.route == CONTINUATION and not has_session:
        decision = RouteDecision(route=MIXED, method=decision.method, matched=decision.matched,
                                 note="continuation needs a session; none given, so every layer is retrieved")
    return decision
