"""LangGraph ``astream`` chunks (``updates`` mode) → protocol events.

``adapt`` is pure: the same chunk always gives the same events. The ``llm`` node's
tokens do not pass through here: the turn engine gets them from the node's text sink
(``agent/streaming.py``). Tool calls, tool results, the context and text written by
other nodes (the circuit breaker's apology) come from the ``updates`` chunks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from partchat.protocol.frames import (
    FieldError,
    TextDeltaEvent,
    ToolInputAvailableEvent,
    ToolOutputAvailableEvent,
    ToolOutputErrorEvent,
    TurnEvent,
)
from partchat.protocol.shapes import Context, context_of

LLM_NODE = "llm"
TEXT_NODES = frozenset({"give_up"})  # nodes that write answer text without an LLM call


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "".join(
            b.get("text", "") if isinstance(b, dict) and b.get("type") == "text" else ""
            for b in content
        )
    return ""


def _tool_result(message: ToolMessage) -> dict[str, Any]:
    if isinstance(message.artifact, dict):
        return message.artifact
    try:
        value = json.loads(message.text)
    except ValueError:
        return {"ok": False, "error": {"code": "internal", "message": message.text[:500]}}
    return value if isinstance(value, dict) else {"ok": True, "value": value}


def _update_events(node: str, update: Mapping[str, Any], turn_id: str) -> list[TurnEvent]:
    events: list[TurnEvent] = []
    for message in update.get("messages") or []:
        if isinstance(message, AIMessage) and node == LLM_NODE:
            for call in message.tool_calls:
                events.append(
                    ToolInputAvailableEvent(
                        type="tool-input-available",
                        turnId=turn_id,
                        toolCallId=call["id"] or "",
                        toolName=call["name"],
                        input=dict(call["args"]),
                    )
                )
        elif isinstance(message, AIMessage) and node in TEXT_NODES:
            text = _text_of(message.content)
            if text:
                events.append(TextDeltaEvent(type="text-delta", turnId=turn_id, delta=text))
        elif isinstance(message, ToolMessage):
            result = _tool_result(message)
            name = message.name or ""
            if result.get("ok"):
                events.append(
                    ToolOutputAvailableEvent(
                        type="tool-output-available",
                        turnId=turn_id,
                        toolCallId=message.tool_call_id,
                        toolName=name,
                        output=result,
                    )
                )
            else:
                error = result.get("error") or {}
                errors = [
                    FieldError(path=str(e.get("path", "")), message=str(e.get("message", "")))
                    for e in error.get("errors") or []
                    if isinstance(e, dict)
                ]
                events.append(
                    ToolOutputErrorEvent(
                        type="tool-output-error",
                        turnId=turn_id,
                        toolCallId=message.tool_call_id,
                        toolName=name,
                        errorText=str(error.get("message") or error.get("code") or "tool failed"),
                        errors=errors,
                    )
                )
    return events


def adapt(mode: str, chunk: Any, turn_id: str) -> list[TurnEvent]:
    """The protocol events for one ``(mode, chunk)`` item of ``graph.astream``."""
    if mode == "updates" and isinstance(chunk, Mapping):
        events: list[TurnEvent] = []
        for node, update in chunk.items():
            if isinstance(update, Mapping):
                events.extend(_update_events(node, update, turn_id))
        return events
    return []


def finish_reason_of(mode: str, chunk: Any) -> str | None:
    """A finish reason a node set (``length`` after the tool-round cap, ``error``)."""
    if mode != "updates" or not isinstance(chunk, Mapping):
        return None
    for update in chunk.values():
        if isinstance(update, Mapping) and update.get("finish_reason"):
            return str(update["finish_reason"])
    return None


def ends_the_graph(mode: str, chunk: Any) -> bool:
    """Whether no node follows this update: the ``llm`` node answered without a tool call,
    or a text node (the apology) wrote the answer. False when unsure."""
    if mode != "updates" or not isinstance(chunk, Mapping):
        return False
    for node, update in chunk.items():
        if node in TEXT_NODES:
            return True
        if node != LLM_NODE or not isinstance(update, Mapping):
            return False
        messages = update.get("messages") or []
        last = messages[-1] if messages else None
        return isinstance(last, AIMessage) and not last.tool_calls and not last.invalid_tool_calls
    return False


def context_of_update(mode: str, chunk: Any) -> Context | None:
    """The session context the ``extract`` node's update gives, if this chunk is it."""
    if (
        mode == "updates"
        and isinstance(chunk, Mapping)
        and isinstance(chunk.get("extract"), Mapping)
    ):
        return context_of(chunk["extract"])
    return None
