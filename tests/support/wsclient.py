"""A small asyncio WebSocket client for the integration tests (the ``websockets`` package).

Every event received is validated against the protocol schema and kept in ``events``;
every await has a timeout so a hung server fails a test instead of stalling the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import Callable
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection, connect

from tests.support.protocol import validate_server_event

DEFAULT_TIMEOUT = 15.0
Event = dict[str, Any]


class Closed(Exception):
    """The server closed the socket; ``code`` / ``reason`` say how."""

    def __init__(self, code: int | None, reason: str) -> None:
        super().__init__(f"closed {code} {reason!r}")
        self.code = code
        self.reason = reason


class WsClient:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.events: list[Event] = []
        self.ready: Event | None = None

    @classmethod
    async def open(
        cls, url: str, *, origin: str | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> WsClient:
        headers = {"Origin": origin} if origin else None
        ws = await asyncio.wait_for(
            connect(url, additional_headers=headers, open_timeout=timeout, max_size=2**22),
            timeout,
        )
        return cls(ws)

    async def send(self, frame: Any) -> None:
        text = frame if isinstance(frame, str) else json.dumps(frame)
        await asyncio.wait_for(self.ws.send(text), DEFAULT_TIMEOUT)

    async def recv(self, timeout: float = DEFAULT_TIMEOUT) -> Event:
        try:
            raw = await asyncio.wait_for(self.ws.recv(), timeout)
        except websockets.ConnectionClosed as exc:
            rcvd = exc.rcvd
            raise Closed(rcvd.code if rcvd else None, rcvd.reason if rcvd else "") from None
        event = validate_server_event(json.loads(raw))
        self.events.append(event)
        return event

    async def until(self, predicate: Callable[[Event], bool], timeout: float = 20.0) -> list[Event]:
        """Events received up to and including the first that matches ``predicate``."""
        got: list[Event] = []
        async with asyncio.timeout(timeout):
            while True:
                event = await self.recv(timeout)
                got.append(event)
                if predicate(event):
                    return got

    async def hello(self, session_id: str | None = None, last_seq: int | None = None) -> Event:
        await self.send({"type": "hello", "sessionId": session_id, "lastSeq": last_seq})
        ready = (await self.until(lambda e: e["type"] == "ready"))[-1]
        self.ready = ready
        return ready

    async def message(self, text: str, message_id: str | None = None) -> str:
        message_id = message_id or str(uuid.uuid4())
        await self.send({"type": "message", "id": message_id, "text": text})
        return message_id

    async def turn(
        self, text: str, message_id: str | None = None, timeout: float = 30.0
    ) -> list[Event]:
        """Send a message; the events up to its ``finish``."""
        await self.message(text, message_id)
        return await self.until(lambda e: e["type"] == "finish", timeout)

    async def expect_closed(self, timeout: float = DEFAULT_TIMEOUT) -> Closed:
        try:
            async with asyncio.timeout(timeout):
                while True:
                    await self.recv(timeout)
        except Closed as exc:
            return exc
        raise AssertionError("unreachable")

    async def close(self) -> None:
        with contextlib.suppress(TimeoutError, websockets.WebSocketException, OSError):
            await asyncio.wait_for(self.ws.close(), 5.0)

    async def abort(self) -> None:
        """Drop the TCP connection without a closing handshake (a cut network)."""
        transport = self.ws.transport
        transport.abort()
        await asyncio.sleep(0)

    @property
    def session_id(self) -> str:
        assert self.ready is not None
        sid: str = self.ready["sessionId"]
        return sid


def of_turn(events: list[Event], turn_id: str) -> list[Event]:
    return [e for e in events if e.get("turnId") == turn_id]


def text_of(events: list[Event]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "text-delta")
