"""The built-in offline chat model: deterministic, no network, grounded in tool results.

It reads what a real model would read (the system prompt's context block, the
conversation, the bound tools) and either plans one round of tool calls or writes an
answer from the tool results that follow the newest user message. Answers stream as
word-sized chunks, so LangGraph's ``messages`` stream mode yields tokens exactly as
with a remote model. Same input, same output.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from partchat.agent import offline_writer as w
from partchat.agent.extract import THAT_ONE
from partchat.agent.prompts import CONTEXT_HEADER
from partchat.catalog.vocab import APPLIANCE_NAMES, AppliancePattern
from partchat.nlu import rules
from partchat.nlu.features import part_type_named

_WORD = re.compile(r"\S+\s*|\s+")
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
    r"\b(i|i'm|im|i'd|need|needs|a|an|the|my|for|looking|look|find|search|searching|do|does|"
    r"you|have|has|had|sell|want|wanted|to|buy|order|new|where|can|could|would|get|please|some|"
    r"any|all|parts?|model|number|is|are|it|it's|its|this|that|these|those|of|with|me|show|"
    r"what|which|there|got|actually|also|hi|hello|hey|thanks|ok|okay|so|and|or|just|like|"
    r"mine|one|ones|available|list|carry|stock|in|on|from|about|pls|plz|please|u|ur|them|guys|"
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


class _Plan:
    """Either tool calls to make, or text to say."""

    def __init__(self, text: str = "", calls: list[tuple[str, dict[str, Any]]] | None = None):
        self.text = text
        self.calls = calls or []


class OfflineChatModel(BaseChatModel):
    """A deterministic, rule-based chat model that plans tool calls and writes answers."""

    tool_names: list[str] = Field(default_factory=list)
    token_delay_s: float = 0.0
    """A pause per streamed word (the demo's typing feel; tests of streaming UIs)."""

    @property
    def _llm_type(self) -> str:
        return "partchat-offline"

    def bind_tools(
        self, tools: Sequence[dict[str, Any] | Any], **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        names = [convert_to_openai_tool(t)["function"]["name"] for t in tools]
        return self.model_copy(update={"tool_names": names})

    # --- planning -----------------------------------------------------------------------
    def respond(self, messages: Sequence[BaseMessage]) -> AIMessage:
        newest, after = _turn_messages(messages)
        if newest is None:
            return AIMessage(content=w.GREETING)
        results = self._results(after)
        if results:
            prefix = self._prefix(messages)
            if rules.claims_a_price(newest.text):
                prefix += w.PRICE_CLAIM + "\n\n"
            return AIMessage(content=prefix + w.write_answer(results))
        plan = self._plan(messages, newest)
        if plan.calls and self.tool_names:
            calls = [c for c in plan.calls if c[0] in self.tool_names]
            if calls:
                return AIMessage(
                    content="", tool_calls=[self._call(n, a, messages) for n, a in calls]
                )
        text = plan.text or w.HELP
        return AIMessage(content=self._prefix(messages) + text)

    @staticmethod
    def _results(after: list[BaseMessage]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
        args_by_id: dict[str, tuple[str, dict[str, Any]]] = {}
        for m in after:
            if isinstance(m, AIMessage):
                for c in m.tool_calls:
                    args_by_id[c["id"] or ""] = (c["name"], c["args"])
        out = []
        for m in after:
            if isinstance(m, ToolMessage):
                name, args = args_by_id.get(m.tool_call_id, (m.name or "", {}))
                try:
                    result = json.loads(m.text)
                except ValueError:
                    result = {"ok": False, "error": {"code": "internal"}}
                out.append((name, args, result if isinstance(result, dict) else {"ok": False}))
        return out

    @staticmethod
    def _prefix(messages: Sequence[BaseMessage]) -> str:
        ctx = _context(messages)
        old, new = _value(ctx, "model changed from"), _value(ctx, "appliance model")
        if old and new:
            return f"Got it: I've switched your model from **{old}** to **{new}**.\n\n"
        return ""

    @staticmethod
    def _call(name: str, args: dict[str, Any], messages: Sequence[BaseMessage]) -> ToolCall:
        digest = hashlib.sha1(
            f"{len(messages)}|{name}|{json.dumps(args, sort_keys=True)}".encode()
        ).hexdigest()[:16]
        return ToolCall(name=name, args=args, id=f"call_{digest}")

    def _plan(self, messages: Sequence[BaseMessage], newest: HumanMessage) -> _Plan:
        text = newest.text.strip()
        ctx = _context(messages)
        model = _value(ctx, "appliance model")
        part = _value(ctx, "part number")
        appliance = _value(ctx, "appliance type")
        symptoms = [s for s in (_value(ctx, "symptoms") or "").split("; ") if s]
        unknown_model = _value(ctx, "unknown model")
        unknown_part = _value(ctx, "unknown part number")
        mentioned = _value(ctx, "part named in this message")
        this_turn_part = (
            _PS.search(text) is not None or unknown_part is not None or mentioned is not None
        )

        if rules.claims_a_price(text) or rules.INJECTION.search(text):
            ps = _PS.search(text)
            named = ps.group(0).upper() if ps else (mentioned or unknown_part)
            if named and rules.claims_a_price(text):
                # Quote the catalog's real figures instead of the asserted ones.
                number = part if part and not unknown_part else named
                return _Plan(
                    calls=[("get_part_details", _with_model({"partNumber": number}, model))]
                )
            return _Plan(w.INJECTION)
        in_scope = rules.IN_SCOPE.search(text) is not None
        read = _value(ctx, INTENT_KEY)
        if read is not None:
            # The extract node's reading (partchat.nlu): a job, the job a bare answer
            # continues, or a message that needs no tool.
            if read == "injection":
                return _Plan(w.INJECTION)
            if read in _CANNED:
                return _Plan(_CANNED[read])
            intent = read if read in _JOBS else None
        else:
            canned = _canned_by_rules(text, in_scope)
            if canned is not None:
                return _Plan(canned)
            intent = _intent(text)
        if intent in (None, "install") and _YES.match(text):
            previous_answer = _previous_answer(messages, newest)
            if "installation steps" in previous_answer:
                if not part_arg_of(part, unknown_part) and _NAMES_PARTS.search(previous_answer):
                    return _Plan(w.ASK_WHICH)
                intent = "install"
        if (
            not this_turn_part
            and THAT_ONE.match(text)
            and len(set(_PS.findall(_previous_answer(messages, newest)))) > 1
        ):
            return _Plan(w.ASK_WHICH_LISTED)  # "ok that one" after a list of several
        if intent in (None, "details") and w.ASK_WHICH in _previous_answer(messages, newest):
            intent = "install"  # "the first one" answers "Which one?" about installing
        if intent is None:
            # A bare answer ("it's WDT780SAEM1", "yes"): continue what the previous
            # message asked (the reading has done this already when there is one).
            if read is None:
                intent = _intent(_previous_user_text(messages, newest))
            if intent is None and this_turn_part:
                intent = "details"
        part_arg = unknown_part if unknown_part else part
        if unknown_model:
            name = unknown_model.split(" (", 1)[0]
            if intent == "compat" and part_arg and not unknown_part:
                # The tool reports the unknown model with the catalog's suggestions.
                return _Plan(
                    calls=[("check_compatibility", {"partNumber": part_arg, "model": name})]
                )
            offered = re.findall(r"[A-Z0-9./-]{3,}", unknown_model.split("(", 1)[-1])
            if intent == "diagnose" and (symptoms or appliance) and not offered:
                # A model the catalog lacks, not a typo of one: the usual fixes for the
                # appliance, and the answer says the model is not in the catalog.
                diag: dict[str, Any] = {"symptoms": (symptoms or [text[:200]])[:10], "model": name}
                if appliance:
                    diag["appliance"] = appliance
                return _Plan(calls=[("diagnose_repair", diag)])
            if intent in ("compat", "diagnose", None):
                return _Plan(w.unknown_model(name, [s for s in offered if s != name]))

        if intent == "install":
            if not part_arg:
                return _Plan(w.ask_part("you want to install"))
            args = _with_model({"partNumber": part_arg}, model)
            return _Plan(calls=[("get_installation_instructions", args)])
        if intent == "compat":
            if not part_arg:
                return _Plan(w.ask_part("you want to check"))
            if unknown_part:
                return _Plan(calls=[("get_part_details", {"partNumber": unknown_part})])
            if not model:
                return _Plan(w.ask_model("so I can check the fit"))
            return _Plan(calls=[("check_compatibility", {"partNumber": part_arg, "model": model})])
        if intent == "diagnose":
            if not model and not appliance:
                return _Plan(w.ask_appliance())
            wanted = symptoms or [text[:200]]
            diag = {"symptoms": wanted[:10]}
            if model:
                diag["model"] = model
            elif appliance:
                diag["appliance"] = appliance
            return _Plan(calls=[("diagnose_repair", diag)])
        if intent == "details" and part_arg:
            return _Plan(calls=[("get_part_details", _with_model({"partNumber": part_arg}, model))])
        if intent == "search" or (intent in ("details", None) and (in_scope or model)):
            query = _search_query(text)
            if (
                (not query or _APPLIANCE_ONLY.match(query))
                and model
                and not this_turn_part
                and _NAMES_PARTS.search(_previous_answer(messages, newest))
            ):
                # "actually the model is 10641124210" after a list: that search again
                query = _search_query(_previous_user_text(messages, newest))
            elif read == "search" and _value(ctx, CONTINUES_KEY) and not part_type_named(text):
                # "actually make that 2533111530C, thats my moms fridge": the request it
                # continues names the part
                query = _job_query(messages, newest) or query
            elif (
                _OF_THOSE.search(text)
                and not part_type_named(text)
                and w.SEARCH_HEAD in _previous_answer(messages, newest)
            ):
                # "which of those goes on the bottom? the lower one" after a search's list:
                # the same parts, narrowed
                query = f"{_job_query(messages, newest)} {query}".strip()
            if model:
                query = " ".join(_BRAND.sub(" ", query).split())  # the model says the brand
            if query and not _APPLIANCE_ONLY.match(query):
                search: dict[str, Any] = {"query": query, "limit": 5}
                if model:
                    search["model"] = model
                elif appliance:
                    search["appliance"] = appliance
                return _Plan(calls=[("search_parts", search)])
            if model:
                return _Plan(w.noted_model(model))
            if appliance:
                return _Plan(w.ask_need(appliance))
        if intent == "details":
            return _Plan(w.ask_part("you're asking about"))
        return _Plan(w.HELP + "\n\nWhat would you like to do?")

    # --- BaseChatModel ------------------------------------------------------------------
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.respond(messages))])

    def _chunks(self, messages: list[BaseMessage]) -> Iterator[ChatGenerationChunk]:
        message = self.respond(messages)
        if message.tool_calls:
            chunks = [
                tool_call_chunk(name=c["name"], args=json.dumps(c["args"]), id=c["id"], index=i)
                for i, c in enumerate(message.tool_calls)
            ]
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=chunks))
            return
        for token in _WORD.findall(message.text):
            yield ChatGenerationChunk(message=AIMessageChunk(content=token))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        yield from self._chunks(messages)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages):
            if self.token_delay_s:
                await asyncio.sleep(self.token_delay_s)
            yield chunk


INTENT_KEY = "shopper intent (best guess)"
CONTINUES_KEY = "continues the shopper's earlier request"
_JOBS = frozenset({"search", "details", "compat", "diagnose", "install"})
_CANNED = {
    "greeting": w.GREETING,
    "thanks": w.THANKS,
    "orders": w.ORDERS,
    "out_of_scope": w.OUT_OF_SCOPE,
}


def _canned_by_rules(text: str, in_scope: bool) -> str | None:
    """Without a reading in the context (the model used on its own): the fixed answers
    by keyword."""
    if rules.GREETING.match(text):
        return w.GREETING
    if rules.THANKS.match(text):
        return w.THANKS
    if rules.ORDERS.search(text) and not _INSTALL.search(text):
        return w.ORDERS
    ours = rules.OUR_APPLIANCE.search(text) is not None or _PS.search(text) is not None
    other = rules.OTHER_APPLIANCE.search(text) is not None and not ours
    if other or (rules.CHITCHAT.search(text) and not in_scope):
        return w.OUT_OF_SCOPE
    return None


def _with_model(args: dict[str, Any], model: str | None) -> dict[str, Any]:
    return {**args, "model": model} if model else args


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
    text = re.sub(r"['’]\w*", "", text)  # "there's" → "there", "fridge's" → "fridge"
    words = _SEARCH_FILLER.sub(" ", re.sub(r"[^\w\s-]", " ", text))
    words = re.sub(r"\b[A-Z0-9]*\d[A-Z0-9]*\b", " ", words, flags=re.IGNORECASE)  # numbers
    return " ".join(words.split())[:200]
