"""Drive the compiled agent graph turn by turn, the way ``turns.py`` does.

A ``Conversation`` carries the session context (from each turn's ``data-context``
event) and the history (the user and assistant texts) between turns, runs
``graph.astream(..., stream_mode=["messages", "updates"])`` and turns every chunk into
protocol events with ``stream_adapter.adapt``. A ``Turn`` holds one turn's events, the
answer text (the concatenated ``text-delta``s), the tool calls and their outputs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from partchat.agent.prompts import SYSTEM_PROMPT
from partchat.agent.state import Context, empty_context, turn_input
from partchat.stream_adapter import adapt, context_of_update, finish_reason_of

PS_RE = re.compile(r"\bPS\d+\b")  # not the "PS0" inside model KDTE334GPS0
PRICE_RE = re.compile(r"\$\d[\d,]*\.\d\d")


@dataclass
class Turn:
    user: str
    events: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str = "stop"
    context: Context = field(default_factory=empty_context)

    @property
    def text(self) -> str:
        return "".join(e["delta"] for e in self.events if e["type"] == "text-delta")

    @property
    def calls(self) -> list[tuple[str, dict[str, Any]]]:
        return [
            (e["toolName"], e["input"]) for e in self.events if e["type"] == "tool-input-available"
        ]

    @property
    def tool_names(self) -> list[str]:
        return [name for name, _ in self.calls]

    @property
    def outputs(self) -> list[dict[str, Any]]:
        return [e["output"] for e in self.events if e["type"] == "tool-output-available"]

    @property
    def tool_errors(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == "tool-output-error"]

    def outputs_json(self) -> str:
        """The JSON text of this turn's tool-output events (what grounding checks read)."""
        return "\n".join(
            json.dumps(e, ensure_ascii=False)
            for e in self.events
            if e["type"] in ("tool-output-available", "tool-output-error")
        )


def grounding_problems(turn: Turn) -> list[str]:
    """Part numbers and prices in the answer that no tool output of the turn contains,
    and system prompt lines the answer repeats."""
    problems: list[str] = []
    source = turn.outputs_json()
    for ps in sorted(set(PS_RE.findall(turn.text))):
        if ps not in source:
            problems.append(f"part number {ps} is not in a tool output")
    for price in sorted(set(PRICE_RE.findall(turn.text))):
        if price not in source:
            problems.append(f"price {price} is not in a tool output")
    for line in system_prompt_lines():
        if line in turn.text:
            problems.append(f"system prompt line repeated: {line!r}")
    return problems


def system_prompt_lines() -> list[str]:
    """The system prompt's substantial lines (headers like "Scope" are too short to count)."""
    return [ln.strip() for ln in SYSTEM_PROMPT.splitlines() if len(ln.strip()) >= 25]


class Conversation:
    """A session against a compiled graph: context and history carried between turns."""

    def __init__(self, graph: Any, context: Context | None = None) -> None:
        self.graph = graph
        self.context: Context = context or empty_context()
        self.history: list[BaseMessage] = []
        self.turns: list[Turn] = []
        self._n = 0

    async def say(self, text: str) -> Turn:
        self._n += 1
        turn = Turn(user=text, context=self.context)
        state = {**turn_input(self.context), "messages": [*self.history, HumanMessage(text)]}
        async for mode, chunk in self.graph.astream(state, stream_mode=["messages", "updates"]):
            for event in adapt(mode, chunk, f"t{self._n}"):
                turn.events.append(dict(event))
            reason = finish_reason_of(mode, chunk)
            if reason in ("length", "error"):
                turn.finish_reason = reason
            new_context = context_of_update(mode, chunk)
            if new_context is not None:
                turn.context = new_context
        self.context = turn.context
        self.history += [HumanMessage(text), AIMessage(turn.text)]
        self.turns.append(turn)
        return turn
