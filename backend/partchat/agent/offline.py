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
    ToolCall,
    ToolMessage,
)
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from partchat.agent import offline_writer as w
from partchat.agent.offline_plan import plan_reply
from partchat.agent.offline_reading import _context, _turn_messages, _value
from partchat.nlu import rules

_WORD = re.compile(r"\S+\s*|\s+")


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
            text = prefix + w.write_answer(results)
            if rules.ORDERS.found(newest.text) and rules.orders_aside(newest.text):
                text += "\n\n" + w.ORDERS_ASIDE
            return AIMessage(content=text)
        plan = plan_reply(messages, newest)
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
