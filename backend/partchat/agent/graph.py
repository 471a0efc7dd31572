"""The agent graph: START → extract → llm ⇄ tools → END, built from its dependencies."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from partchat.agent.extract import make_extract_node
from partchat.agent.prompts import system_prompt
from partchat.agent.state import AgentState
from partchat.agent.streaming import stream_reply, text_sink
from partchat.catalog.types import CatalogReader
from partchat.nlu.model import Understanding
from partchat.toolbox.dispatch import Toolbox
from partchat.toolbox.records import ARGUMENTS_KEY, DURATION_KEY

MAX_TOOL_ROUNDS = 6
MAX_TOOL_FAILURES = 3

APOLOGY = (
    "I'm sorry, I couldn't look that up just now: the parts catalog did not answer the way "
    "I expected. Please try again, or rephrase with the part or model number."
)


def tool_result_json(result: dict[str, Any]) -> str:
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


async def _timed(toolbox: Toolbox, name: str, args: Any) -> tuple[dict[str, Any], float]:
    """The tool's result and how long it took (ms)."""
    started = time.perf_counter()
    result = await toolbox.call(name, args)
    return result, round((time.perf_counter() - started) * 1000, 3)


def build_graph(
    chat_model: BaseChatModel,
    toolbox: Toolbox,
    catalog: CatalogReader,
    understanding: Understanding,
    *,
    max_tool_rounds: int = MAX_TOOL_ROUNDS,
    max_tool_failures: int = MAX_TOOL_FAILURES,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    bound = chat_model.bind_tools(toolbox.openai_tools())

    # The llm and tools nodes name the next node themselves (``Command``) rather than
    # through conditional edges: a routing function is one more runnable per step
    # reading the whole state (docs/performance.md, d-graph-routing).
    async def llm(state: AgentState, config: RunnableConfig) -> Command[str]:
        wrap_up = state.get("tool_rounds", 0) >= max_tool_rounds
        prompt = SystemMessage(system_prompt(state, wrap_up=wrap_up))
        model = chat_model if wrap_up else bound
        messages = [prompt, *state.get("messages", [])]
        sink = text_sink(config)
        if sink is not None:
            response: BaseMessage = await stream_reply(model, messages, config, sink)
        else:
            response = await model.ainvoke(messages, config)
        update = AgentState(messages=[cast(AIMessage, response)])
        if wrap_up:
            update["finish_reason"] = "length"
        calls = isinstance(response, AIMessage) and (
            response.tool_calls or response.invalid_tool_calls
        )
        return Command(update=update, goto="tools" if calls and not wrap_up else END)

    async def tools(state: AgentState) -> Command[str]:
        last = state["messages"][-1]
        assert isinstance(last, AIMessage)
        calls = list(last.tool_calls)
        timed = await asyncio.gather(*(_timed(toolbox, c["name"], c["args"]) for c in calls))
        messages: list[ToolMessage] = []
        streak = state.get("tool_error_streak", 0)
        for call, (result, duration_ms) in zip(calls, timed, strict=True):
            ok = bool(result.get("ok"))
            streak = 0 if ok else streak + 1
            messages.append(
                ToolMessage(
                    content=tool_result_json(result),
                    tool_call_id=call["id"] or "",
                    name=call["name"],
                    status="success" if ok else "error",
                    artifact=result,
                    # for the turn's record (partchat.toolbox.records), never sent to the model
                    response_metadata={DURATION_KEY: duration_ms, ARGUMENTS_KEY: call["args"]},
                )
            )
        # Arguments that were not JSON arrive as invalid_tool_calls: answer them too.
        for bad in last.invalid_tool_calls:
            streak += 1
            result = {
                "ok": False,
                "error": {
                    "code": "invalid_input",
                    "message": "The arguments were not valid JSON; send a JSON object.",
                    "errors": [{"path": "", "message": bad.get("error") or "not JSON"}],
                },
            }
            messages.append(
                ToolMessage(
                    content=tool_result_json(result),
                    tool_call_id=bad.get("id") or "",
                    name=bad.get("name") or "unknown",
                    status="error",
                    artifact=result,
                    response_metadata={DURATION_KEY: 0.0, ARGUMENTS_KEY: bad.get("args")},
                )
            )
        update = AgentState(
            messages=list(messages),
            tool_rounds=state.get("tool_rounds", 0) + 1,
            tool_error_streak=streak,
        )
        return Command(update=update, goto="give_up" if streak >= max_tool_failures else "llm")

    async def give_up(state: AgentState) -> AgentState:
        return AgentState(messages=[AIMessage(content=APOLOGY)], finish_reason="error")

    builder = StateGraph(AgentState)
    builder.add_node("extract", make_extract_node(catalog, understanding))
    builder.add_node("llm", llm, destinations=("tools", END))
    builder.add_node("tools", tools, destinations=("llm", "give_up"))
    builder.add_node("give_up", give_up)
    builder.add_edge(START, "extract")
    builder.add_edge("extract", "llm")
    builder.add_edge("give_up", END)
    return builder.compile()
