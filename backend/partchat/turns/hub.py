"""A session's live state in this process: the ``Hub``.

Its context and recent history, the next ``seq``, a replay buffer of recent events
(already encoded once), the subscribers (connections) and the turn in flight
(``TurnRun``). The ``TurnEngine`` (``engine.py``) owns the hubs.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from partchat.protocol.frames import HistoryMessage, TurnEvent, encode
from partchat.protocol.shapes import Context
from partchat.store import ToolCallRecord, TurnRecord

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

REPLAY_TTL_S = 120.0  # default: how long a finished turn's events stay replayable
HISTORY_FOR_READY = 50  # messages sent to a (re)connecting client


class Subscriber(Protocol):
    """A connection: receives already-encoded frames, never blocks the publisher."""

    def deliver(self, seq: int, frame: str) -> None: ...

    def resync(self) -> None:
        """The hub was laid over from the store (a relayed turn's owner died): send the
        client the session's state again."""
        ...


@dataclass
class Buffered:
    seq: int
    turn_id: str
    frame: str


@dataclass
class TurnRun:
    turn_id: str
    message_id: str  # the client's message id: what start, inflight and history carry
    stored_message_id: str  # the store's id of the user message
    text_parts: list[str] = field(default_factory=list)
    tool_outputs: list[dict[str, Any]] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    stop_requested: bool = False
    flush_text: Callable[[], None] = lambda: None  # publishes text the sink holds back
    running: bool = False  # the task has taken its first step (cancel reaches its finally)
    started: float = field(default_factory=time.perf_counter)  # the message was received
    first_token: float | None = None
    admitted: float | None = None  # the turn started (the gate let it in)
    llm_s: float = 0.0  # time in the llm node's steps
    tools_s: float = 0.0  # time in the tools node's steps
    tool_calls: list[ToolCallRecord] = field(default_factory=list)


@dataclass
class Hub:
    session_id: str
    context: Context
    history: list[HistoryMessage]
    last_seq: int
    buffer: deque[Buffered] = field(default_factory=deque)
    subscribers: set[Subscriber] = field(default_factory=set)
    turn: TurnRun | None = None
    starting: bool = False  # a submit is storing its user message (the turn is not set yet)
    idle_since: float = field(default_factory=time.monotonic)
    # Multi-process serving: the store's data_version when the hub was last known whole
    # (another process's commit, to any session, changes it); the session's own version
    # then (only a write to this session changes it; -1: unknown, read the store); and
    # the turn of this session another live process was running (this process cannot
    # stream it; the hub is re-read until it ends).
    version: int = -1
    session_version: int = -1
    elsewhere: TurnRecord | None = None
    # With the Redis live log: where each published frame also goes, and the task that
    # relays the ``elsewhere`` turn into this hub (``partchat.turns.relay``).
    mirror: Callable[[str, int, str], None] | None = None
    relay: asyncio.Task[None] | None = None
    # The LangChain messages of the last turn's history window, kept for the next turn:
    # (role, id) -> (text, message); building them was a pydantic model per message.
    lc_history: dict[tuple[str, str], tuple[str, BaseMessage]] = field(default_factory=dict)

    def publish(self, event: TurnEvent | dict[str, Any], turn_id: str) -> int:
        """Give the event the next seq, encode it once, buffer it, fan it out."""
        self.last_seq += 1
        seq = self.last_seq
        frame = encode({**event, "seq": seq})
        self.buffer.append(Buffered(seq, turn_id, frame))
        for sub in tuple(self.subscribers):
            sub.deliver(seq, frame)
        if self.mirror is not None:
            self.mirror(self.session_id, seq, frame)
        return seq

    def relay_frame(self, seq: int, turn_id: str, frame: str) -> None:
        """A frame of a turn another server runs, under the seq it gave it (once)."""
        if seq <= self.last_seq:
            return
        self.last_seq = seq
        self.buffer.append(Buffered(seq, turn_id, frame))
        for sub in tuple(self.subscribers):
            sub.deliver(seq, frame)

    def replay_after(self, last_seq: int | None, *, turn_id: str | None = None) -> list[Buffered]:
        if last_seq is None:
            # A client with nothing: only the turn in flight (its history has the rest).
            return [b for b in self.buffer if b.turn_id == turn_id] if turn_id else []
        return [b for b in self.buffer if b.seq > last_seq]

    def trim(self, now: float, ends: dict[str, float], ttl: float = REPLAY_TTL_S) -> None:
        while self.buffer:
            first = self.buffer[0]
            ended = ends.get(first.turn_id)
            if ended is None or now - ended < ttl:
                break
            self.buffer.popleft()


def wrote(hub: Hub, session_version: int | None) -> None:
    """After this process wrote the session: the hub stays whole at the new version, or,
    when another process had written it first (None), is read again next time."""
    hub.session_version = -1 if session_version is None else session_version
