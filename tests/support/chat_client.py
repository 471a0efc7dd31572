"""A small asyncio WebSocket client that speaks the partchat protocol, for tests."""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection


@dataclass
class ChatClient:
    url: str
    origin: str | None = None
    ws: ClientConnection | None = None
    session_id: str | None = None
    events: list[dict[str, Any]] = field(default_factory=list)

    async def connect(
        self, session_id: str | None = None, last_seq: int | None = None
    ) -> dict[str, Any]:
        headers = {"Origin": self.origin} if self.origin else None
        self.ws = await websockets.connect(self.url, additional_headers=headers, max_size=2**22)
        await self.send({"type": "hello", "sessionId": session_id, "lastSeq": last_seq})
        ready = await self.recv_type("ready")
        self.session_id = ready["sessionId"]
        return ready

    async def send(self, frame: dict[str, Any] | str) -> None:
        assert self.ws is not None
        await self.ws.send(frame if isinstance(frame, str) else json.dumps(frame))

    async def recv(self, timeout: float = 15.0) -> dict[str, Any]:
        assert self.ws is not None
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        event: dict[str, Any] = json.loads(raw)
        self.events.append(event)
        return event

    async def recv_type(self, kind: str, timeout: float = 15.0) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            event = await self.recv(max(0.01, deadline - loop.time()))
            if event["type"] == kind:
                return event

    async def ask(
        self, text: str, timeout: float = 30.0
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Send a message and read until its finish; returns (finish, events of the turn)."""
        start_index = len(self.events)
        await self.send({"type": "message", "id": uuid.uuid4().hex, "text": text})
        finish = await self.recv_type("finish", timeout)
        return finish, self.events[start_index:]

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None
