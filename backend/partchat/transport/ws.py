"""The WebSocket endpoint ``/ws``: one receive loop, one send task, one handler per frame.

Each connection has a bounded send queue. The publisher never waits on a slow client:
when the queue is full the connection is closed with 4000 and the client resumes with
``lastSeq``, so memory stays bounded.

A frame published while nothing is queued or being sent is written at once, in the
publisher's own step, when the transport takes it without waiting (it nearly always
does): a streamed token then costs no wake-up of the send task. Should the write have to
wait (the client reads slowly), the send task finishes it before anything queued after it.
That direct write is the ``ws`` fast path (``direct_write.py``); off, every frame goes
through the send task.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from typing import TYPE_CHECKING

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from partchat import fast_paths
from partchat.protocol.frames import (
    ErrorCode,
    FeedbackFrame,
    FeedbackSavedEvent,
    HelloFrame,
    Inflight,
    MessageFrame,
    ProtocolError,
    ReadyEvent,
    encode,
    error_event,
    parse_client_frame,
)
from partchat.store import StorageUnavailable, UnknownSession, UnknownTurn
from partchat.transport import direct_write
from partchat.transport.security import origin_allowed
from partchat.turns.engine import ServerClosing

if TYPE_CHECKING:
    from partchat.transport.services import Services
    from partchat.turns.hub import Hub

log = logging.getLogger(__name__)

SEND_QUEUE_FRAMES = 2048  # a client this far behind is disconnected (it can resume)
RATE_WINDOW_S = 10.0  # the window of Settings.messages_per_10s
MAX_BAD_FRAMES = 20  # then the connection is closed (1008)
CLOSE_TOO_SLOW = 4000
PONG = '{"type":"pong"}'
_RESUME = ""  # queued after a direct write that had to wait (no frame is empty)
# A turn of the session is streaming in another server process (several workers).
TURN_ELSEWHERE = (
    "Your previous answer is still being written on another server; "
    "reconnect in a moment to see it."
)
BUSY_ELSEWHERE = (
    "Your previous answer is still being written on another server, so this message was "
    "not sent. Reconnect in a moment to see the answer, then send it again."
)


class Connection:
    """One WebSocket: the subscriber side of a hub."""

    def __init__(self, ws: WebSocket, rate_limit: int, *, direct: bool = True) -> None:
        self.ws = ws
        self.direct = direct  # the ws fast path: write in the publisher's step
        self.rate_limit = rate_limit
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(SEND_QUEUE_FRAMES)
        self.last_seq = -1  # highest seq queued to this client
        self.hub: Hub | None = None
        self.too_slow = False
        self.sent: deque[float] = deque()
        self.bad_frames = 0
        self._sending = False  # the send task is writing a frame
        self._rest: direct_write.Unfinished | None = None  # a direct write that had to wait

    def deliver(self, seq: int, frame: str) -> None:
        if seq <= self.last_seq or self.too_slow:
            return
        if self._write_now(frame):
            self.last_seq = seq
            return
        try:
            self.queue.put_nowait(frame)
        except asyncio.QueueFull:
            # Drop what is queued and tell the sender to close: the client resumes.
            self.too_slow = True
            while not self.queue.empty():
                self.queue.get_nowait()
            if self._rest is not None:  # its write will not be finished either
                self._rest.close()
                self._rest = None
            self.queue.put_nowait(None)
            return
        self.last_seq = seq

    def resync(self) -> None:
        if self.hub is not None:
            self.last_seq = self.hub.last_seq
            self.send_now(encode(ready_event(self.hub, resumed=True)[0]))

    def send_now(self, frame: str) -> None:
        """A frame outside the seq stream (ready, errors without a turn, pong)."""
        if self.too_slow or self._write_now(frame):
            return
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(frame)

    def _write_now(self, frame: str) -> bool:
        """Write ``frame`` in this step if nothing is ahead of it; True if it was written
        or handed, in order, to the send task; False: queue it (the send task meets any
        error in its own task, as it would have)."""
        if not self.direct or self._sending or self._rest is not None or not self.queue.empty():
            return False
        try:
            rest = direct_write.start(self.ws.send_text(frame))
        except Exception:
            return False
        if rest is not None:
            self._rest = rest
            self.queue.put_nowait(_RESUME)
        return True

    def rate_limited(self, now: float) -> bool:
        while self.sent and now - self.sent[0] > RATE_WINDOW_S:
            self.sent.popleft()
        if len(self.sent) >= self.rate_limit:
            return True
        self.sent.append(now)
        return False

    async def sender(self) -> None:
        while True:
            frame = await self.queue.get()
            if frame is None:
                await self.ws.close(CLOSE_TOO_SLOW, "too slow: reconnect with lastSeq to resume")
                return
            self._sending = True
            try:
                if frame == _RESUME:
                    assert self._rest is not None
                    rest, self._rest = self._rest, None
                    await rest.finish()
                else:
                    await self.ws.send_text(frame)
            finally:
                self._sending = False


async def ws_endpoint(websocket: WebSocket) -> None:
    services: Services = websocket.app.state.services
    settings = services.settings
    if not origin_allowed(
        websocket.headers.get("origin"), websocket.headers.get("host"), settings.allowed_origins
    ):
        await websocket.accept()
        await websocket.close(1008, "origin not allowed")
        return
    address = websocket.client.host if websocket.client else "unknown"
    if not services.limiter.acquire(address):
        await websocket.accept()
        await websocket.close(1008, "too many connections from this address")
        return
    conn = Connection(
        websocket,
        settings.messages_per_10s,
        direct="ws" in fast_paths.active(settings.fast_paths),
    )
    services.metrics.connections.inc()
    services.connections.add(conn)
    try:
        await websocket.accept()
        sender = asyncio.create_task(conn.sender())
        receiver = asyncio.create_task(_receive_loop(services, conn))
        done, pending = await asyncio.wait({sender, receiver}, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        for task in pending:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for task in done:
            exc = task.exception()
            if exc and not isinstance(exc, WebSocketDisconnect | RuntimeError | OSError):
                log.error("connection failed: %s", type(exc).__name__, exc_info=exc)
    finally:
        if conn.hub is not None:
            services.engine.unsubscribe(conn.hub, conn)
        services.connections.discard(conn)
        services.limiter.release(address)
        services.metrics.connections.dec()
        if websocket.application_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await websocket.close(1011)


async def _receive_loop(services: Services, conn: Connection) -> None:
    ws = conn.ws
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        raw: str | bytes | None = message.get("text")
        if raw is None:
            raw = message.get("bytes") or b""
        try:
            frame = parse_client_frame(raw)
        except ProtocolError as exc:
            _send_error(services, conn, exc.code, exc.message, exc.message_id)
            conn.bad_frames += 1
            if conn.bad_frames > MAX_BAD_FRAMES:
                await ws.close(1008, "too many bad frames")
                return
            continue
        kind = frame["type"]
        if kind == "ping":
            conn.send_now(PONG)
        elif kind == "hello":
            await _on_hello(services, conn, frame)  # type: ignore[arg-type]
        elif conn.hub is None:
            _send_error(services, conn, "not_ready", "Send a hello frame first.")
        elif kind == "message":
            await _on_message(services, conn, frame)  # type: ignore[arg-type]
        elif kind == "stop":
            await services.engine.stop_anywhere(conn.hub)
        elif kind == "feedback":
            await _on_feedback(services, conn, frame)  # type: ignore[arg-type]


def _send_error(
    services: Services,
    conn: Connection,
    code: ErrorCode,
    message: str,
    message_id: str | None = None,
) -> None:
    services.metrics.errors.labels(code).inc()
    event = error_event(code, message)
    if message_id is not None:
        event["messageId"] = message_id  # the client message it refuses
    conn.send_now(encode(event))


async def _on_hello(services: Services, conn: Connection, frame: HelloFrame) -> None:
    engine = services.engine
    if conn.hub is not None:
        engine.unsubscribe(conn.hub, conn)
    try:
        hub, resumed = await engine.open_session(frame.get("sessionId"))
    except StorageUnavailable as exc:
        if services.engine.closing:  # the store is closing with the server
            _send_error(services, conn, "server_restarting", RESTARTING)
        else:
            _send_error(services, conn, "storage_unavailable", f"Cannot open the session: {exc}.")
        return
    # A turn another server runs: relayed here through Redis when it is configured (its
    # events so far are in the hub once this returns), else the client is told.
    relayed = hub.turn is None and hub.elsewhere is not None and await engine.follow_elsewhere(hub)
    conn.hub = hub
    last_seq = frame.get("lastSeq") if resumed else None
    # Events this hub never had (a turn that ran and ended on another server) are in the
    # session's Redis stream for a while: read before ready, so no await comes between
    # the replay and the subscription below.
    earlier = await engine.missed_events(hub, last_seq)
    ready, in_flight_id = ready_event(hub, resumed=resumed)
    # The client has every event up to its lastSeq: never send it one of those again (a
    # re-sent message's events, below). A lastSeq above ours is from an older stream.
    conn.last_seq = -1 if last_seq is None else min(last_seq, hub.last_seq)
    conn.send_now(encode(ready))
    if hub.turn is None and hub.elsewhere is not None and not relayed:
        # This process cannot stream that turn; its answer is in the history once it ends.
        services.metrics.errors.labels("turn_elsewhere").inc()
        conn.send_now(encode(error_event("turn_elsewhere", TURN_ELSEWHERE, hub.elsewhere.id)))
    # Replay and subscribe with no await in between: nothing can slip through the gap.
    for seq, text in earlier:
        if seq <= hub.last_seq:
            conn.deliver(seq, text)
    for item in hub.replay_after(last_seq, turn_id=in_flight_id):
        conn.deliver(item.seq, item.frame)
    engine.subscribe(hub, conn)


def ready_event(hub: Hub, *, resumed: bool) -> tuple[ReadyEvent, str | None]:
    """The ``ready`` frame of the hub's state, and the id of the turn in flight."""
    if hub.turn is not None:
        inflight: Inflight | None = Inflight(turnId=hub.turn.turn_id, messageId=hub.turn.message_id)
    elif hub.relay is not None and hub.elsewhere is not None:
        inflight = Inflight(turnId=hub.elsewhere.id, messageId=hub.elsewhere.client_message_id)
    else:
        inflight = None
    # The in-flight turn's answer is not in the history a client is sent (its events are
    # replayed from its start); its user message is: it was stored before the turn ran.
    in_flight_id = inflight["turnId"] if inflight else None
    history = [m for m in hub.history if m["turnId"] != in_flight_id or m["role"] == "user"]
    ready = ReadyEvent(
        type="ready",
        sessionId=hub.session_id,
        resumed=resumed,
        context=hub.context,
        history=history,
        inflight=inflight,
        seq=hub.last_seq,
    )
    return ready, in_flight_id


RESTARTING = "The server is restarting; reconnect in a moment."
MESSAGE_RESTARTING = "Your message was not accepted: the server is restarting; reconnect in a moment and send it again."


async def _on_message(services: Services, conn: Connection, frame: MessageFrame) -> None:
    assert conn.hub is not None
    message_id = frame["id"]
    if conn.rate_limited(time.monotonic()):
        _send_error(
            services,
            conn,
            "rate_limited",
            f"Too many messages: at most {conn.rate_limit} per 10 seconds.",
            message_id,
        )
        return
    hub = conn.hub
    try:
        submitted = await services.engine.submit(hub, frame["id"], frame["text"])
    except (ServerClosing, StorageUnavailable) as exc:
        if isinstance(exc, ServerClosing) or services.engine.closing:
            _send_error(services, conn, "server_restarting", MESSAGE_RESTARTING, message_id)
            return
        _send_error(
            services,
            conn,
            "storage_unavailable",
            "Your message was not accepted because storage is unavailable; please send it again.",
            message_id,
        )
        return
    if submitted.status == "busy":
        _send_error(
            services,
            conn,
            "busy",
            BUSY_ELSEWHERE
            if submitted.elsewhere and services.engine.live is None
            else "An answer is still streaming; wait for it or stop it.",
            message_id,
        )
    elif submitted.status == "duplicate" and submitted.turn_id:
        # Re-sent message: this connection gets the first turn's events it has not seen.
        for item in hub.buffer:
            if item.turn_id == submitted.turn_id:
                conn.deliver(item.seq, item.frame)


FEEDBACK_NOT_FOUND = "This session has no finished answer with that turnId."


async def _on_feedback(services: Services, conn: Connection, frame: FeedbackFrame) -> None:
    """Store the rating (any server: the store holds it) and answer ``feedback_saved``."""
    assert conn.hub is not None
    turn_id = frame["turnId"]
    reason = frame.get("reason")
    try:
        await services.engine.save_feedback(conn.hub.session_id, turn_id, frame["rating"], reason)
    except (UnknownSession, UnknownTurn):
        services.metrics.errors.labels("not_found").inc()
        conn.send_now(encode(error_event("not_found", FEEDBACK_NOT_FOUND, turn_id)))
        return
    except StorageUnavailable:
        services.metrics.errors.labels("storage_unavailable").inc()
        message = "Your rating was not saved because storage is unavailable; please send it again."
        conn.send_now(encode(error_event("storage_unavailable", message, turn_id)))
        return
    saved = FeedbackSavedEvent(type="feedback_saved", turnId=turn_id, rating=frame["rating"])
    if reason is not None:
        saved["reason"] = reason
    conn.send_now(encode(saved))
