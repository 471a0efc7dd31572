"""Drive the compiled agent graph turn by turn on the served path: the ``TurnEngine``.

A ``Conversation`` sends each message through ``TurnEngine.submit`` as a connection
does, so the graph runs exactly as a shopper's turn does (``stream_mode=["updates"]``,
the answer text streamed into the engine's text sink, tool calls and context from the
updates), and it records the frames a subscribed connection receives. After the turn it
checks the answer three ways: the concatenated ``text-delta``s (what the shopper saw
stream), the ``finish`` event's text and the answer the store kept must be one text.

Each turn runs on a fresh in-memory ``SqliteStore``, in a hub laid with the history and
context the conversation carries (the hub's own, from the turn before), so nothing has
to be closed between tests. A ``Turn`` holds one turn's frames, the answer text, the
tool calls and their outputs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from partchat.agent.prompts import SYSTEM_PROMPT
from partchat.ops.metrics import Metrics
from partchat.protocol.frames import HistoryMessage
from partchat.protocol.shapes import Context, empty_context
from partchat.store.sqlite import SqliteStore
from partchat.turns.engine import TurnEngine

PS_RE = re.compile(r"\bPS\d+\b")  # not the "PS0" inside model KDTE334GPS0
PRICE_RE = re.compile(r"\$\d[\d,]*\.\d\d")
IN_MEMORY = Path(":memory:")


@dataclass
class Turn:
    user: str
    events: list[dict[str, Any]] = field(default_factory=list)  # every frame, start to finish
    context: Context = field(default_factory=empty_context)
    stored: HistoryMessage | None = None  # the answer as the store kept it

    @property
    def text(self) -> str:
        return "".join(e["delta"] for e in self.events if e["type"] == "text-delta")

    @property
    def finish(self) -> dict[str, Any]:
        (finish,) = [e for e in self.events if e["type"] == "finish"]
        return finish

    @property
    def finish_reason(self) -> str:
        return str(self.finish["finishReason"])

    @property
    def error(self) -> dict[str, Any] | None:
        """The turn's ``error`` event (the LLM failed, or the turn did)."""
        return next((e for e in self.events if e["type"] == "error"), None)

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


class Frames:
    """A subscriber: the frames a connection of the session would be sent."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def deliver(self, seq: int, frame: str) -> None:
        self.events.append(json.loads(frame))

    def resync(self) -> None:
        raise AssertionError("a single-process conversation is never laid over")


class Conversation:
    """A session against a compiled graph, served by a ``TurnEngine``: context and
    history carried between turns as the session's hub carries them."""

    def __init__(self, graph: Any, context: Context | None = None) -> None:
        self.graph = graph
        self.context: Context = context or empty_context()
        self.history: list[HistoryMessage] = []
        self.turns: list[Turn] = []

    async def say(self, text: str) -> Turn:
        store = await SqliteStore.open(IN_MEMORY)
        try:
            turn = await self._served(store, text)
        finally:
            await store.close()
        self.turns.append(turn)
        return turn

    async def _served(self, store: SqliteStore, text: str) -> Turn:
        engine = TurnEngine(store, self.graph, Metrics())
        hub, _ = await engine.open_session(None)
        hub.context, hub.history = self.context, list(self.history)
        frames = Frames()
        engine.subscribe(hub, frames)
        submitted = await engine.submit(hub, f"m{len(self.turns) + 1}", text)
        assert submitted.status == "started", submitted
        run = hub.turn
        assert run is not None and run.task is not None
        await run.task
        stored = (await store.history(hub.session_id))[-1]
        turn = Turn(user=text, events=frames.events, context=hub.context, stored=stored)
        assert stored["role"] == "assistant", stored
        assert turn.text == turn.finish["text"] == stored["text"], (
            f"streamed {turn.text!r}, finish {turn.finish['text']!r}, stored {stored['text']!r}"
        )
        self.context, self.history = hub.context, hub.history
        return turn
