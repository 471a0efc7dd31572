"""Chat turns: they belong to the session, not to a connection.

A ``Hub`` is one session's live state in this process: its context and recent history,
the next ``seq``, a replay buffer of recent events (already encoded once), the
subscribers (connections) and the turn in flight. The ``TurnEngine`` owns the hubs,
starts turns as tasks (a disconnect never cancels one; ``stop`` does), and always
stores the answer and publishes ``finish`` in the turn's ``finally``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.graph.state import CompiledStateGraph
from redis.exceptions import RedisError

from partchat.agent.llm import classify_llm_error
from partchat.agent.state import turn_input
from partchat.agent.streaming import with_text_sink
from partchat.ops.metrics import Metrics
from partchat.ops.workers import WorkerRegistry
from partchat.protocol.frames import (
    Feedback,
    FinishEvent,
    HistoryMessage,
    Rating,
    StartEvent,
    TextDeltaEvent,
    ToolOutput,
    TurnEvent,
    encode,
    error_event,
)
from partchat.protocol.shapes import Context, FinishReason, empty_context
from partchat.store import (
    BeginTurn,
    SavedFeedback,
    SessionRecord,
    SessionStore,
    StorageUnavailable,
    ToolCallRecord,
    TurnRecord,
    TurnRunningElsewhere,
    message_status,
)
from partchat.toolbox.records import tool_records_of
from partchat.turns.admission import TurnGate
from partchat.turns.stream_adapter import adapt, context_of_update, finish_reason_of

if TYPE_CHECKING:
    from partchat.live import RedisEventLog, StopListener
    from partchat.turns.relay import Relay

log = logging.getLogger(__name__)

SEQ_RESERVE = 100_000  # seq numbers reserved per turn, so a crash never reuses one
REPLAY_TTL_S = 120.0  # default: how long a finished turn's events stay replayable
# A resume reading a turn that ended on another server waits this long for its last
# frames to reach Redis (then the client has the answer from the history anyway).
MISSED_WAIT_TRIES = 20
MISSED_WAIT_S = 0.05
SNAPSHOT_TRIES = 4  # a session read again while other servers keep writing it
HISTORY_FOR_LLM = 20  # messages of history the model sees
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


SubmitStatus = Literal["started", "duplicate", "busy"]


@dataclass
class Submitted:
    status: SubmitStatus
    turn_id: str | None = None
    message_id: str | None = None
    elsewhere: bool = False  # busy: the running turn is another server process's


@dataclass
class _Snapshot:
    """A session as the store has it, for a hub to be built or refreshed from."""

    record: SessionRecord
    history: list[HistoryMessage]
    last_seq: int
    elsewhere: TurnRecord | None
    version: int


class ServerClosing(Exception):
    """The server is shutting down (a restart, a deploy): it starts no new turn. Nothing
    was stored; the client reconnects (to this server once it is back, or another)."""


@dataclass
class _SessionLock:
    """Loading one session: one caller at a time. Removed by the last caller out (the
    holder or a waiter), never while another still waits for it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0  # callers holding or waiting for it


class TurnEngine:
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
        self._locks: dict[str, _SessionLock] = {}
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

    def _new_hub(self, *args: Any, **kwargs: Any) -> Hub:
        hub = Hub(*args, **kwargs)
        if self.live is not None:
            hub.mirror = self.live.publish
        self.hubs[hub.session_id] = hub
        return hub

    # --- sessions -------------------------------------------------------------------
    async def open_session(self, session_id: str | None) -> tuple[Hub, bool]:
        """The session's hub, loading or creating it; ``resumed`` is False for a new one.

        A hub kept from earlier is read again from the store when it may be stale
        (:meth:`_outdated`): with several server processes, turns of the session may have
        run in another one since.
        """
        if session_id:
            cached = self.hubs.get(session_id)
            if cached is not None and (cached.starting or not await self._outdated(cached)):
                return cached, True
            entry = self._locks.setdefault(session_id, _SessionLock())
            entry.users += 1
            try:
                async with entry.lock:
                    cached = self.hubs.get(session_id)
                    if cached is not None and (cached.starting or not await self._outdated(cached)):
                        return cached, True
                    snapshot = await self._snapshot(session_id)
                    if snapshot is not None:
                        return self._install(snapshot), True
                    if cached is not None and cached.turn is None and not cached.subscribers:
                        del self.hubs[session_id]  # deleted (purged) by another process
            finally:
                entry.users -= 1
                if not entry.users:  # the last holder or waiter: no one else can use it
                    del self._locks[session_id]
        version = await self.store.data_version()
        record = await self.store.create_session()
        hub = self._new_hub(
            record.id,
            _context(record.context),
            [],
            record.last_seq,
            version=version,
            session_version=record.version,
        )
        return hub, False

    async def current_hub(self, session_id: str) -> Hub | None:
        """The session's hub if this process has it and it is up to date, else None."""
        hub = self.hubs.get(session_id)
        if hub is None or (not hub.starting and await self._outdated(hub)):
            return None
        return hub

    async def _outdated(self, hub: Hub) -> bool:
        """Whether the store may know more about the session than the hub does.

        Never while a turn of it runs here (the hub is the truth then). Always while a
        turn of it was running in another process. Otherwise when another process has
        written this session since the hub was whole: only then has the session's version
        moved past the hub's. That is read only when another process has committed
        anything at all (``PRAGMA data_version``: one process alone never sees it change,
        so a lone server never reads it).
        """
        if hub.turn is not None or hub.relay is not None:
            return False
        if hub.elsewhere is not None:
            return True
        data_version = await self.store.data_version()
        if data_version == hub.version:
            return False
        # data_version first: a write after it moves it again, so is caught next time.
        if await self.store.session_version(hub.session_id) != hub.session_version:
            return True
        hub.version = data_version
        return False

    async def _snapshot(self, session_id: str, *, reap: bool = True) -> _Snapshot | None:
        """The stored session (None: unknown). A turn of it left ``running`` by a dead
        process is marked interrupted first; one running in a live process is
        ``elsewhere``.

        The reads are several units: another server writing the session between them
        (a turn ending) would pair an old ``last_seq`` with a newer history. The
        session's version, which every write to it moves, is read again at the end, and
        the snapshot taken again when it moved."""
        for _ in range(SNAPSHOT_TRIES - 1):
            snapshot = await self._read_snapshot(session_id, reap=reap)
            if snapshot is None:
                return None
            if await self.store.session_version(session_id) == snapshot.record.version:
                return snapshot
        return await self._read_snapshot(session_id, reap=reap)

    async def _read_snapshot(self, session_id: str, *, reap: bool) -> _Snapshot | None:
        version = await self.store.data_version()
        record = await self.store.get_session(session_id)
        if record is None:
            return None
        running = await self.store.running_turn(session_id)
        mine = running is None or running.owner in (None, self.workers.boot_id)
        elsewhere = None if mine else running
        if elsewhere is not None and reap and not await self.workers.owner_alive(elsewhere.owner):
            await self.workers.interrupt(elsewhere.owner)
            return await self._snapshot(session_id, reap=False)
        history = await stored_history(self.store, record.id, HISTORY_FOR_READY)
        if elsewhere is not None:
            # Its events are the other process's: a client that resumes there from this
            # seq gets the whole turn replayed.
            last_seq = record.last_seq
        else:
            # seq_reserved (last_seq + SEQ_RESERVE, written when a turn begins) only
            # matters when the last turn did not end here: its events may have been sent
            # without last_seq being stored. After a turn that ended (finish stored)
            # last_seq is exact, and resuming from it keeps the stream contiguous across a
            # clean restart.
            ended = not history or (
                history[-1]["role"] == "assistant" and history[-1].get("status") != "interrupted"
            )
            last_seq = record.last_seq if ended else max(record.last_seq, record.seq_reserved)
        return _Snapshot(record, history, last_seq, elsewhere, version)

    def _install(self, snapshot: _Snapshot) -> Hub:
        """A new hub from the snapshot, or the cached one refreshed from it (unless a turn
        started on it meanwhile: then it is the truth)."""
        hub = self.hubs.get(snapshot.record.id)
        if hub is None:
            hub = self._new_hub(snapshot.record.id, _context(snapshot.record.context), [], 0)
        elif hub.turn is not None or hub.starting or hub.relay is not None:
            return hub
        _refresh(hub, snapshot)
        return hub

    def subscribe(self, hub: Hub, sub: Subscriber) -> None:
        hub.subscribers.add(sub)

    def unsubscribe(self, hub: Hub, sub: Subscriber) -> None:
        hub.subscribers.discard(sub)
        if not hub.subscribers:
            hub.idle_since = self.clock()

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
        when a turn of the session runs in another live process."""
        for attempt in range(2):
            if await self._outdated(hub):
                snapshot = await self._snapshot(hub.session_id)
                if snapshot is not None:
                    _refresh(hub, snapshot)
            try:
                begun = await self.store.begin_turn(
                    hub.session_id,
                    client_message_id,
                    text,
                    seq_reserved=hub.last_seq + SEQ_RESERVE,
                    owner=self.workers.boot_id,
                    expect_version=hub.session_version,
                )
                _wrote(hub, begun.session_version)
                return begun
            except TurnRunningElsewhere as exc:
                hub.elsewhere = exc.turn  # read the hub again before the next try
                if attempt or await self.workers.owner_alive(exc.turn.owner):
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
                _wrote(hub, saved.session_version)
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
            _refresh(hub, snapshot)
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

    async def _run(self, hub: Hub, run: TurnRun, text: str) -> None:
        run.running = True
        finish_reason: FinishReason = "stop"
        context = hub.context
        try:
            if run.stop_requested:
                raise asyncio.CancelledError
            ticket = await self.gate.admit()
            run.admitted = step_started = time.perf_counter()
            # Ids set here, unique within the turn: LangGraph's add_messages would give
            # each one a uuid4 (os.urandom) on every turn.
            messages: list[BaseMessage] = [
                _to_lc(m, f"history-{i}")
                for i, m in enumerate(hub.history[-HISTORY_FOR_LLM - 1 : -1])
            ]
            messages.append(HumanMessage(content=text, id="current"))
            state = {**turn_input(hub.context), "messages": messages}
            config = with_text_sink(None, self._text_sink(hub, run))
            async for mode, chunk in self.graph.astream(state, config, stream_mode=["updates"]):
                step_ended = time.perf_counter()
                if isinstance(chunk, dict):
                    if "llm" in chunk:
                        run.llm_s += step_ended - step_started
                    elif "tools" in chunk:
                        run.tools_s += step_ended - step_started
                        run.tool_calls.extend(tool_records_of(chunk["tools"]))
                run.flush_text()
                for event in adapt(mode, chunk, run.turn_id):
                    self._track(run, event)
                    hub.publish(event, run.turn_id)
                reason = finish_reason_of(mode, chunk)
                if reason in ("length", "error"):
                    finish_reason = reason  # type: ignore[assignment]
                new_context = context_of_update(mode, chunk)
                if new_context is not None and new_context != context:
                    context = new_context
                    hub.context = context
                    await self._save_context_early(hub, context)
                # The graph's next node runs when this loop asks for it: it waits its turn
                # while the server is saturated (answers streaming meanwhile go first).
                await self.gate.admit(step_of=ticket)
                step_started = time.perf_counter()
        except asyncio.CancelledError:
            finish_reason = "aborted"
            if not run.stop_requested:
                log.info("turn %s aborted by shutdown", run.turn_id)
        except Exception as exc:
            finish_reason = "error"
            code = classify_llm_error(exc)
            if code == "llm_unavailable":
                log.warning("turn %s: LLM unavailable: %s", run.turn_id, type(exc).__name__)
                message = "The assistant's language model is not answering right now. Please try again in a moment."
            else:
                log.exception("turn %s failed", run.turn_id)
                message = "Something went wrong while answering. Please try again."
            run.flush_text()
            hub.publish(
                error_event("llm_unavailable" if code else "internal", message, run.turn_id),
                run.turn_id,
            )
        finally:
            await asyncio.shield(self._finish(hub, run, finish_reason, context))

    @staticmethod
    def _text_sink(hub: Hub, run: TurnRun) -> Callable[[str], None]:
        """Where the ``llm`` node streams answer text: straight into the hub.

        The first delta after a quiet spell goes out at once; the ones that follow within
        the same pass of the event loop (one socket read from the LLM, or a backlog while
        the server was busy) are held and go out as one ``text-delta`` when the pass ends:
        fewer frames, seqs and sends, and no token waits for more than that pass. Every
        other event of the turn flushes first, so order is kept.
        """
        turn_id = run.turn_id
        parts = run.text_parts
        publish = hub.publish
        pending: list[str] = []
        holding = False
        loop = asyncio.get_running_loop()

        def emit(delta: str) -> None:
            publish(TextDeltaEvent(type="text-delta", turnId=turn_id, delta=delta), turn_id)

        def flush() -> None:
            if pending:
                delta = "".join(pending)
                pending.clear()
                emit(delta)

        def end_of_pass() -> None:
            nonlocal holding
            holding = False
            flush()

        def on_text(delta: str) -> None:
            nonlocal holding
            if run.first_token is None:
                run.first_token = time.perf_counter()
            parts.append(delta)
            if holding:
                pending.append(delta)
                return
            holding = True
            loop.call_soon(end_of_pass)
            emit(delta)

        run.flush_text = flush
        return on_text

    async def _save_context_early(self, hub: Hub, context: Context) -> None:
        """Persist what extract learned before the answer streams, so a crash mid-turn keeps it."""
        try:
            kept = await self.store.save_context(
                hub.session_id, dict(context), expect_version=hub.session_version
            )
            _wrote(hub, kept)
        except Exception as exc:  # the turn's finish saves it again; a failure here costs nothing
            log.warning("early context save failed: %s", type(exc).__name__)

    def _track(self, run: TurnRun, event: TurnEvent) -> None:
        if event["type"] == "tool-output-error":
            self.metrics.tool_call(event["toolName"], ok=False)
        elif event["type"] == "text-delta":
            if run.first_token is None:
                run.first_token = time.perf_counter()
            run.text_parts.append(event["delta"])
        elif event["type"] == "tool-output-available":
            self.metrics.tool_call(event["toolName"], ok=True)
            run.tool_outputs.append(
                {
                    "toolCallId": event["toolCallId"],
                    "toolName": event["toolName"],
                    "output": event["output"],
                }
            )

    async def _finish(self, hub: Hub, run: TurnRun, reason: FinishReason, context: Context) -> None:
        run.flush_text()
        text = "".join(run.text_parts)
        status = message_status(reason, text)
        hub.context = context
        ended = time.perf_counter()
        timings = {
            "queueMs": _ms(run.admitted - run.started) if run.admitted else None,
            "firstTokenMs": _ms(run.first_token - run.started) if run.first_token else None,
            "llmMs": _ms(run.llm_s),
            "toolsMs": _ms(run.tools_s),
            "totalMs": _ms(ended - run.started),
        }
        # The finish event's seq is what the store records as last_seq.
        finish_seq = hub.last_seq + 1
        try:
            finished = await self.store.finish_turn(
                run.turn_id,
                text=text,
                status=status,
                finish_reason=reason,
                tool_outputs=run.tool_outputs,
                context=dict(context),
                last_seq=finish_seq,
                timings=timings,
                expect_version=hub.session_version,
                tool_calls=run.tool_calls,
                model=self.model_name,
            )
            message_id = finished.message_id
            _wrote(hub, finished.session_version)
        except Exception:
            _wrote(hub, None)  # the hub now holds an answer the store does not
            log.exception("turn %s: could not store the answer", run.turn_id)
            message_id = "m_unsaved_" + run.turn_id
        hub.history.append(
            HistoryMessage(
                id=message_id,
                role="assistant",
                text=text,
                turnId=run.turn_id,
                status=status,
                toolOutputs=cast(list[ToolOutput], list(run.tool_outputs)),
            )
        )
        del hub.history[:-HISTORY_FOR_READY]
        hub.turn = None
        hub.publish(
            FinishEvent(type="finish", turnId=run.turn_id, text=text, finishReason=reason),
            run.turn_id,
        )
        self._turn_ended[run.turn_id] = self.clock()
        if self.live is not None:
            self.live.expire_after_turn(hub.session_id)
        if not hub.subscribers:
            hub.idle_since = self.clock()
        for call in run.tool_calls:
            if call["unknownParts"]:
                self.metrics.unknown_lookups.labels("part").inc(len(call["unknownParts"]))
            if call["unknownModels"]:
                self.metrics.unknown_lookups.labels("model").inc(len(call["unknownModels"]))
            if call["name"] == "diagnose_repair" and call["ok"] and call["result"]:
                for symptom in call["result"].get("symptoms") or ():
                    self.metrics.symptoms_diagnosed.labels(str(symptom)).inc()
        self.metrics.turn_finished(
            reason,
            ended - run.started,
            run.first_token and run.first_token - run.started,
            len(run.text_parts),
        )
        log.info(
            "turn %s session=%s finish=%s total_ms=%s first_token_ms=%s text_pieces=%d tools=%d",
            run.turn_id,
            hub.session_id[:6],
            reason,
            timings["totalMs"],
            timings["firstTokenMs"],
            len(run.text_parts),
            len(run.tool_outputs),
        )

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


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def _context(raw: Any) -> Context:
    data: dict[str, Any] = {**empty_context(), **(raw if isinstance(raw, dict) else {})}
    return Context(
        productModel=data["productModel"],
        partNumber=data["partNumber"],
        symptoms=list(data["symptoms"] or []),
        applianceType=data["applianceType"],
    )


def _refresh(hub: Hub, snapshot: _Snapshot) -> None:
    """Lay the stored state over a hub (its subscribers stay)."""
    if snapshot.last_seq != hub.last_seq:
        hub.buffer.clear()  # a stream the store has moved past: replay from history instead
    hub.context = _context(snapshot.record.context)
    hub.history = snapshot.history
    hub.last_seq = snapshot.last_seq
    hub.elsewhere = snapshot.elsewhere
    hub.version = snapshot.version
    hub.session_version = snapshot.record.version


def _wrote(hub: Hub, session_version: int | None) -> None:
    """After this process wrote the session: the hub stays whole at the new version, or,
    when another process had written it first (None), is read again next time."""
    hub.session_version = -1 if session_version is None else session_version


def _stored_turn(hub: Hub, client_message_id: str) -> str | None:
    """The turn id of a user message this hub's history holds under that client id."""
    for m in reversed(hub.history):
        if m["role"] == "user" and m["id"] == client_message_id:
            turn_id: str = m["turnId"]
            return turn_id
    return None


async def stored_history(store: SessionStore, session_id: str, limit: int) -> list[HistoryMessage]:
    """The session's stored history as the wire carries it: user messages under the
    client's message id (the store keys them by its own id)."""
    return await store.history(session_id, limit=limit, client_ids=True)


def _to_lc(m: HistoryMessage, message_id: str) -> BaseMessage:
    if m["role"] == "user":
        return HumanMessage(content=m["text"], id=message_id)
    return AIMessage(content=m["text"] or "(no answer)", id=message_id)
