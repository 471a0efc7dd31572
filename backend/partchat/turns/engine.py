"""Chat turns: they belong to the session, not to a connection.

A ``Hub`` (``hub.py``) is one session's live state in this process: its context and
recent history, the next ``seq``, a replay buffer of recent events (already encoded
once), the subscribers (connections) and the turn in flight. The ``TurnEngine`` owns the
hubs (loaded by ``sessions.py``), starts turns as tasks (a disconnect never cancels one;
``stop`` does), and always stores the answer and publishes ``finish`` in the turn's
``finally`` (``run.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from langgraph.graph.state import CompiledStateGraph
from redis.exceptions import RedisError

from partchat.ops.metrics import Metrics
from partchat.ops.workers import WorkerRegistry
from partchat.protocol.frames import Feedback, HistoryMessage, Rating, StartEvent
from partchat.store import (
    BeginTurn,
    SavedFeedback,
    SessionChanged,
    SessionStore,
    StorageUnavailable,
    TurnRunningElsewhere,
)
from partchat.turns.admission import TurnGate
from partchat.turns.hub import REPLAY_TTL_S, Hub, TurnRun, wrote
from partchat.turns.run import TurnRunner
from partchat.turns.sessions import SessionHubs, SessionLock, refresh

if TYPE_CHECKING:
    from partchat.live import RedisEventLog, StopListener
    from partchat.turns.relay import Relay

log = logging.getLogger(__name__)

SEQ_RESERVE = 100_000  # seq numbers reserved per turn, so a crash never reuses one
BEGIN_TRIES = 3  # a begin refused for a stale hub or a turn elsewhere, read again, retried
# A resume reading a turn that ended on another server waits this long for its last
# frames to reach Redis (then the client has the answer from the history anyway).
MISSED_WAIT_TRIES = 20
MISSED_WAIT_S = 0.05


SubmitStatus = Literal["started", "duplicate", "busy"]


@dataclass
class Submitted:
    status: SubmitStatus
    turn_id: str | None = None
    message_id: str | None = None
    elsewhere: bool = False  # busy: the running turn is another server process's


class ServerClosing(Exception):
    """The server is shutting down (a restart, a deploy): it starts no new turn. Nothing
    was stored; the client reconnects (to this server once it is back, or another)."""


class TurnEngine(SessionHubs, TurnRunner):
    def __init__(
        self,
        store: SessionStore,
        graph: CompiledStateGraph[Any, Any, Any, Any],
        metrics: Metrics,
        *,
        clock: Callable[[], float] = time.monotonic,
        workers: WorkerRegistry | None = None,
        hub_ttl_s: float = REPLAY_TTL_S,
        gate: TurnGate | None = None,
        live: RedisEventLog | None = None,
        model_name: str | None = None,
    ) -> None:
        self.store = store
        self.model_name = model_name  # recorded with each turn
        self.gate = gate or TurnGate(0)
        self.hub_ttl_s = hub_ttl_s
        self.graph = graph
        self.metrics = metrics
        self.clock = clock
        self.workers = workers or WorkerRegistry(store)
        self.hubs: dict[str, Hub] = {}
        self._turn_ended: dict[str, float] = {}
        self._locks: dict[str, SessionLock] = {}
        self._closing = False
        self.live = live
        self._relay: Relay | None = None
        if live is not None:
            from partchat.turns.relay import Relay

            self._relay = Relay(live, self)
        self._stops: StopListener | None = None

    async def start_live(self, timeout_s: float = 5.0) -> None:
        """Listen for stops other servers send to this one (Redis configured)."""
        if self.live is not None and self._stops is None:
            self._stops = self.live.stop_listener(self.workers.boot_id, self._remote_stop)
            await self._stops.start(timeout_s)

    def _remote_stop(self, session_id: str) -> None:
        hub = self.hubs.get(session_id)
        if hub is not None:
            self.stop(hub)

    # --- turns ----------------------------------------------------------------------
    async def submit(self, hub: Hub, client_message_id: str, text: str) -> Submitted:
        """Store the user message and start the turn; ``busy`` stores nothing.

        Raises ``StorageUnavailable`` when the message could not be stored, ``ServerClosing``
        (nothing stored) once the server is shutting down.
        """
        received = time.perf_counter()
        if hub.turn is not None:
            if hub.turn.message_id == client_message_id:
                return Submitted("duplicate", hub.turn.turn_id, hub.turn.message_id)
            stored = _stored_turn(hub, client_message_id)
            if stored is not None:
                return Submitted("duplicate", stored, client_message_id)
            return Submitted("busy")
        if hub.starting:  # another connection is storing a message for this session
            return Submitted("busy")
        if self._closing:
            raise ServerClosing
        hub.starting = True
        try:
            begin_result = await self._begin(hub, client_message_id, text)
        finally:
            hub.starting = False
        if begin_result is None:
            return Submitted("busy", elsewhere=True)
        if begin_result.duplicate:
            return Submitted("duplicate", begin_result.turn.id, client_message_id)
        run = TurnRun(
            begin_result.turn.id,
            client_message_id,
            begin_result.user_message_id,
            started=received,
        )
        hub.turn = run
        hub.history.append(
            HistoryMessage(
                id=run.message_id, role="user", text=text, turnId=run.turn_id, status="complete"
            )
        )
        hub.publish(
            StartEvent(type="start", turnId=run.turn_id, messageId=run.message_id), run.turn_id
        )
        run.task = asyncio.create_task(self._run(hub, run, text), name=f"turn-{run.turn_id}")
        self.metrics.turns_started.inc()
        return Submitted("started", run.turn_id, run.message_id)

    async def _begin(self, hub: Hub, client_message_id: str, text: str) -> BeginTurn | None:
        """``begin_turn`` on an up-to-date hub (this submit holds ``hub.starting``); None
        when a turn of the session runs in another live process.

        The store checks that the hub is whole in the begin's own statement: it begins
        only at the session version the hub holds (``only_at_version``), else the hub is
        read again and the begin tried again. The last try begins without that check,
        as a turn always could begin after a write another process made meanwhile.
        """
        for attempt in range(BEGIN_TRIES):
            if hub.elsewhere is not None or hub.session_version < 0:
                snapshot = await self._snapshot(hub.session_id)
                if snapshot is not None:
                    refresh(hub, snapshot)
            try:
                begun = await self.store.begin_turn(
                    hub.session_id,
                    client_message_id,
                    text,
                    seq_reserved=hub.last_seq + SEQ_RESERVE,
                    owner=self.workers.boot_id,
                    expect_version=hub.session_version,
                    only_at_version=hub.session_version if attempt < BEGIN_TRIES - 1 else None,
                )
                wrote(hub, begun.session_version)
                return begun
            except SessionChanged:
                hub.session_version = -1  # another process wrote the session: read it
            except TurnRunningElsewhere as exc:
                hub.elsewhere = exc.turn  # read the hub again before the next try
                if attempt == BEGIN_TRIES - 1 or await self.workers.owner_alive(exc.turn.owner):
                    return None
        return None

    async def save_feedback(
        self, session_id: str, turn_id: str, rating: Rating, reason: str | None = None
    ) -> SavedFeedback:
        """Store the shopper's rating of a finished turn of the session, from any server.

        This process's hub of the session (if it has one) shows it in its history at
        once; other processes' hubs are read again (the write moves the session's
        version). Raises ``UnknownSession``, ``UnknownTurn``, ``StorageUnavailable``.
        """
        hub = self.hubs.get(session_id)
        saved = await self.store.save_feedback(
            session_id,
            turn_id,
            rating,
            reason,
            expect_version=hub.session_version if hub is not None else None,
        )
        if saved.changed:
            self.metrics.feedback.labels(rating).inc()
        hub = self.hubs.get(session_id)
        if hub is not None:
            feedback: Feedback = {"rating": rating}
            if reason is not None:
                feedback["reason"] = reason
            for message in hub.history:
                if message["turnId"] == turn_id and message["role"] == "assistant":
                    message["feedback"] = feedback
            if saved.changed:
                wrote(hub, saved.session_version)
        return saved

    async def follow_elsewhere(self, hub: Hub) -> bool:
        """Relay into the hub the turn another server runs (Redis configured); False:
        this server cannot show it."""
        return self._relay is not None and await self._relay.follow(hub)

    async def missed_events(self, hub: Hub, last_seq: int | None) -> list[tuple[int, str]]:
        """``(seq, frame)`` after ``last_seq`` that the hub's buffer does not hold, from
        the Redis stream (a turn another server ran); [] without Redis or a gap."""
        if self.live is None or last_seq is None or last_seq >= hub.last_seq:
            return []
        first = hub.buffer[0].seq if hub.buffer else hub.last_seq + 1
        if first <= last_seq + 1:
            return []
        frames: list[tuple[int, str]] = []
        try:
            for _ in range(MISSED_WAIT_TRIES):
                frames = await self.live.read_after(hub.session_id, last_seq)
                if frames and frames[-1][0] >= first - 1:
                    break
                # The owner stores a turn's end before its publisher has written the last
                # frames to Redis (it writes in batches): wait for them briefly.
                await asyncio.sleep(MISSED_WAIT_S)
        except (RedisError, OSError, TimeoutError) as exc:
            log.warning("could not read the live log for a resume: %r", exc)
        return [(seq, frame) for seq, frame in frames if seq < first]

    async def relay_ended(self, hub: Hub, *, finished: bool) -> None:
        """A relayed turn ended: with its ``finish`` (the hub is read again next time),
        or its owner died or Redis failed (the hub is read again now and the connections
        are sent the stored state)."""
        hub.elsewhere = None
        hub.version = hub.session_version = -1  # the store has the turn's end: read it next
        if finished:
            self._turn_ended[hub.buffer[-1].turn_id] = self.clock()
            return
        try:
            snapshot = await self._snapshot(hub.session_id, reap=False)
        except StorageUnavailable:
            snapshot = None
        if snapshot is not None:
            refresh(hub, snapshot)
        for sub in tuple(hub.subscribers):
            sub.resync()

    async def stop_anywhere(self, hub: Hub) -> bool:
        """Stop the session's turn here, or ask the server running it (Redis configured)."""
        if self.stop(hub):
            return True
        turn = hub.elsewhere
        if self.live is None or turn is None or turn.owner is None:
            return False
        try:
            return await self.live.send_stop(hub.session_id, turn.owner)
        except (RedisError, OSError, TimeoutError) as exc:
            log.warning("could not send stop to %s: %r", turn.owner, exc)
            return False

    def stop(self, hub: Hub) -> bool:
        run = hub.turn
        if run is None or run.task is None or run.task.done():
            return False
        run.stop_requested = True
        if run.running:
            run.task.cancel()
        # else: the task has not started; it sees stop_requested first thing and aborts
        # (cancelling it now would skip its finally: no finish, the session stuck busy).
        return True

    # --- housekeeping ---------------------------------------------------------------
    def sweep(self) -> int:
        """Drop expired replay events and idle hubs; returns how many hubs were evicted."""
        now = self.clock()
        evicted = 0
        for sid, hub in list(self.hubs.items()):
            hub.trim(now, self._turn_ended, self.hub_ttl_s)
            if hub.turn is None and not hub.subscribers and now - hub.idle_since > self.hub_ttl_s:
                for b in hub.buffer:
                    self._turn_ended.pop(b.turn_id, None)
                del self.hubs[sid]
                evicted += 1
        for turn_id, ended in list(self._turn_ended.items()):
            if now - ended > self.hub_ttl_s * 2:
                del self._turn_ended[turn_id]
        return evicted

    @property
    def closing(self) -> bool:
        """Shutting down: no new turn starts, and the store closes next."""
        return self._closing

    def busy(self) -> bool:
        """A turn is running."""
        return any(h.turn is not None for h in self.hubs.values())

    def running_turns(self) -> list[TurnRun]:
        return [h.turn for h in self.hubs.values() if h.turn is not None]

    async def shutdown(self, grace_s: float = 10.0) -> None:
        """Stop taking turns, give running ones ``grace_s``, then abort them (stored)."""
        self._closing = True
        for hub in self.hubs.values():
            if hub.relay is not None:
                hub.relay.cancel()
        if self._stops is not None:
            await self._stops.close()
        tasks = [t.task for t in self.running_turns() if t.task is not None]
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=grace_s)
            for task in pending:
                task.cancel()
            if pending:
                with contextlib.suppress(Exception):
                    await asyncio.wait(pending, timeout=5.0)


def _stored_turn(hub: Hub, client_message_id: str) -> str | None:
    """The turn id of a user message this hub's history holds under that client id."""
    for m in reversed(hub.history):
        if m["role"] == "user" and m["id"] == client_message_id:
            turn_id: str = m["turnId"]
            return turn_id
    return None
