"""A lean WebSocket client for load: open a session (``hello`` → ``ready``), run one
turn (``message`` → ``finish``) and record its timings, without parsing hot frames.

Every turn's user message ends in ``(ticket <tag>)``, a letters-only tag unique to the
turn: the fake LLM's request log names the turn by it (the extractor ignores tokens
without digits, so the tag changes nothing the server does).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass

import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

TEXT = "the ice maker on my Whirlpool WRS325SDHZ stopped making ice (ticket {tag})"


def tag(n: int) -> str:
    """A letters-only tag for turn number ``n`` (``qa``, ``qb``, …)."""
    out = ""
    while True:
        n, r = divmod(n, 26)
        out = chr(97 + r) + out
        if n == 0:
            return "q" + out


HELLO = '{"type":"hello","sessionId":null,"lastSeq":null}'
_PREFIX = '{"type":"'


def frame_type(frame: str | bytes) -> str:
    """The event type; the server encodes ``type`` first, so no JSON parse is needed."""
    if isinstance(frame, bytes):
        frame = frame.decode()
    if frame.startswith(_PREFIX):
        end = frame.find('"', 9)
        if end > 9:
            return frame[9:end]
    return str(orjson.loads(frame).get("type"))


@dataclass(slots=True)
class Turn:
    tag: str
    sent: int
    first: int = 0
    end: int = 0
    deltas: int = 0
    ok: bool = False
    error: str | None = None
    frames: list[tuple[int, int]] | None = None  # (received ns, content length so far)


class Run:
    """What the sessions record (one event loop: no locks)."""

    def __init__(self, sessions: int, timed: bool = False) -> None:
        self.sessions = sessions
        self.timed = timed  # the fake logs its writes: record frames for server-added gaps
        self.turns: list[Turn] = []
        self.gaps: list[int] = []  # ns, measured phase only
        self.errors: Counter[str] = Counter()
        self.next_tag = 0
        self.warm = 0
        self.all_warm = asyncio.Event()
        self.go = asyncio.Event()
        self.measuring = False
        self.deadline = float("inf")

    def new_tag(self) -> str:
        self.next_tag += 1
        return tag(self.next_tag)


async def open_session(url: str, compression: bool, sem: asyncio.Semaphore) -> ClientConnection:
    async with sem:
        ws = await connect(
            url,
            compression="deflate" if compression else None,
            ping_interval=None,
            open_timeout=60,
            close_timeout=5,
            max_size=2**22,
            proxy=None,
        )
        await ws.send(HELLO)
        while True:
            kind = frame_type(await ws.recv())
            if kind == "ready":
                return ws
            if kind == "error":
                await ws.close()
                raise RuntimeError("hello refused")


async def one_turn(ws: ClientConnection, run: Run, timeout: float) -> Turn:
    tag = run.new_tag()
    msg = orjson.dumps({"type": "message", "id": "m-" + tag, "text": TEXT.format(tag=tag)}).decode()
    gaps = run.gaps if run.measuring else None
    recv = ws.recv
    mono = time.monotonic_ns
    turn = Turn(tag, mono())
    # Paced runs: each frame's content length, matched afterwards to the fake's writes.
    frames = turn.frames = [] if run.timed and gaps is not None else None
    length = 0
    prev = 0
    try:
        async with asyncio.timeout(timeout):
            await ws.send(msg)
            while True:
                frame = await recv()
                now = mono()
                kind = frame_type(frame)
                if kind == "text-delta":
                    if prev:
                        if gaps is not None:
                            gaps.append(now - prev)
                    else:
                        turn.first = now
                    prev = now
                    turn.deltas += 1
                    if frames is not None:
                        length += len(orjson.loads(frame)["delta"])
                        frames.append((now, length))
                elif kind == "finish":
                    turn.end = now
                    text = frame if isinstance(frame, str) else frame.decode()
                    reason = orjson.loads(text).get("finishReason")
                    turn.ok = reason == "stop" and turn.error is None
                    if reason != "stop" and turn.error is None:
                        turn.error = f"finish:{reason}"
                    return turn
                elif kind == "error":
                    text = frame if isinstance(frame, str) else frame.decode()
                    ev = orjson.loads(text)
                    turn.error = f"error:{ev.get('code')}"
                    if not ev.get("turnId"):  # refused (busy, rate_limited, …): no finish
                        turn.end = mono()
                        return turn
    except TimeoutError:
        turn.error = "timeout"
    except ConnectionClosed as exc:
        turn.error = f"closed:{exc.rcvd.code if exc.rcvd else 'none'}"
    turn.end = mono()
    return turn
