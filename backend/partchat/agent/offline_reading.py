"""What the offline model reads in a conversation: the context block, the turn, a message's job."""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from partchat.agent.prompts import CONTEXT_HEADER
from partchat.catalog.vocab import APPLIANCE_NAMES, AppliancePattern
from partchat.nlu import rules
from partchat.nlu.features import part_type_named

_PS = re.compile(r"\bPS\d{3,12}\b", re.IGNORECASE)
# An answer that names parts: a PS number, or the writer's "**Name** (NUMBER)" for any
# catalog's numbers.
_NAMES_PARTS = re.compile(r"(?i:\bPS\d{3,12}\b)|\*\*[^*\n]+\*\* \([A-Z0-9][A-Z0-9-]{2,29}\)")

_YES = re.compile(
    r"^\s*(yes|yeah|yep|yup|sure|ok(ay)?|please|please do|go ahead|yes please)\b[\s!.,]*"
    r"(please|thanks?|thank you)?[\s!.]*$",
    re.IGNORECASE,
)
_INSTALL = re.compile(
    r"\b(install|installing|installation|replace|replacing|put (it |this |the \w+ )?in|swap|"
    r"change (it|the|this))\b",
    re.IGNORECASE,
)
_COMPAT = re.compile(
    r"compatib|\b(fits?|fitting|work(s)? (with|in|on)|right part for|"
    r"go(es)? with)\b",
    re.IGNORECASE,
)
_PROBLEM = re.compile(
    r"\b(not working|stopped|broken|won'?t|wont|doesn'?t|does not|isn'?t|is not|fix|problem|"
    r"issue|leak\w*|nois\w*|repair|troubleshoot\w*|making (a )?noise|too (warm|cold)|"
    r"not (cooling|cold|draining|drain|cleaning|starting|dispensing|making))\b",
    re.IGNORECASE,
)
_DETAILS = re.compile(
    r"\b(price|cost|how much|in stock|stock|details?|tell me about|what is|what's|info|"
    r"information|available|availability)\b",
    re.IGNORECASE,
)
_SEARCH_FILLER = AppliancePattern(
    r"\b(i|i'm|im|wheres|maybe|i'd|need|needs|a|an|the|my|for|looking|look|find|search|searching|do|does|"
    r"you|have|has|had|sell|want|wanted|to|buy|order|new|where|can|could|would|get|please|some|"
    r"any|all|parts?|model|number|is|are|it|it's|its|this|that|these|those|of|with|me|show|"
    r"what|which|there|got|actually|also|hi|hello|hey|thanks|ok|okay|so|and|or|just|like|"
    r"mine|one|ones|available|list|carry|stock|in|on|from|about|pls|plz|please|u|ur|them|guys|"
    r"anyway|anyways|btw|um+|uh+|hm+|well|oh|ah|then|"
    r"{appliance}|replacement|new)\b",
    APPLIANCE_NAMES,
)
# A question about the parts just listed ("which of those …", "any of them …").
_OF_THOSE = re.compile(r"\b(of|among) (those|these|them)\b", re.IGNORECASE)
# Appliance brands: a part's brand is its maker's (Whirlpool makes Kenmore's), so with a
# model known the shopper's brand word only adds noise to a search.
_BRAND = AppliancePattern(r"\b({brand})\b")
_APPLIANCE_ONLY = AppliancePattern(
    r"^(\s|\b({appliance}|appliances?|{brand}|brand)\b)*$", (*APPLIANCE_NAMES, "compartment")
)


def _context(messages: Sequence[BaseMessage]) -> dict[str, str]:
    """Parse the ``## Session context`` block of the system prompt into {key: value}."""
    ctx: dict[str, str] = {}
    for m in messages:
        if isinstance(m, SystemMessage) and CONTEXT_HEADER in m.text:
            block = m.text.split(CONTEXT_HEADER, 1)[1]
            for line in block.splitlines():
                if line.startswith("- ") and ": " in line:
                    key, value = line[2:].split(": ", 1)
                    ctx[key.strip().lower()] = value.strip()
    return ctx


def _value(ctx: dict[str, str], key: str) -> str | None:
    v = ctx.get(key)
    return None if v in (None, "", "unknown", "none") else v


def _turn_messages(
    messages: Sequence[BaseMessage],
) -> tuple[HumanMessage | None, list[BaseMessage]]:
    """The newest user message and what came after it (tool calls and results)."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if isinstance(m, HumanMessage):
            return m, list(messages[i + 1 :])
    return None, []


def _previous_answer(messages: Sequence[BaseMessage], newest: HumanMessage) -> str:
    """The assistant's answer just before the newest user message."""
    seen = False
    for m in reversed(messages):
        if m is newest:
            seen = True
        elif seen:
            return m.text if isinstance(m, AIMessage) else ""
    return ""


def part_arg_of(part: str | None, unknown_part: str | None) -> str | None:
    return unknown_part or part


def _previous_user_text(messages: Sequence[BaseMessage], newest: HumanMessage) -> str:
    seen = False
    for m in reversed(messages):
        if m is newest:
            seen = True
            continue
        if seen and isinstance(m, HumanMessage):
            return m.text
    return ""


INTENT_KEY = "shopper intent (best guess)"
CONTINUES_KEY = "continues the shopper's earlier request"


def _intent(text: str) -> str | None:
    if not text:
        return None
    if _INSTALL.search(text):
        return "install"
    if _COMPAT.search(text):
        return "compat"
    if _PROBLEM.search(text):
        return "diagnose"
    if _DETAILS.search(text):
        return "details"
    if re.search(
        r"\b(need|looking for|find|search|sell|buy|where|parts? for|show me)\b", text, re.I
    ):
        return "search"
    return None


def _job_query(messages: Sequence[BaseMessage], newest: HumanMessage) -> str:
    """The search words of the latest of the shopper's three earlier messages that names
    a part ("need the door gasket for …"), else empty."""
    users = [m for m in messages if isinstance(m, HumanMessage) and m is not newest][-3:]
    for m in reversed(users):
        if part_type_named(m.text) and (query := _search_query(m.text)):
            return query
    return ""


def _search_query(text: str) -> str:
    text = rules.orders_head(text) or text  # "…, also how long does shipping take"
    text = re.sub(r"['’]\w*", "", text)  # "there's" → "there", "fridge's" → "fridge"
    words = _SEARCH_FILLER.sub(" ", re.sub(r"[^\w\s-]", " ", text))
    words = re.sub(r"(?<!\w)-+|-+(?!\w)", " ", words)  # a dash between words, not "ice-maker"
    words = re.sub(r"\b[A-Z0-9]*\d[A-Z0-9]*\b", " ", words, flags=re.IGNORECASE)  # numbers
    return " ".join(words.split())[:200]
