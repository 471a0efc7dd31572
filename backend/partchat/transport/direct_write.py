"""A WebSocket write started in the caller's own step: the ``ws`` fast path.

``ws.Connection`` writes a frame published while nothing is queued on its connection at
once, in the publisher's step, instead of waking the connection's send task: 1,000
sessions' added gap p99 11.7–12.3 ms against 17.1–17.8 ms through the task
(docs/performance.md#d-direct-write). The write is ``WebSocket.send_text``'s coroutine,
driven here by hand: its first step runs now, and nearly always finishes (the transport
takes the bytes without waiting). When it has to wait (a client reading slowly), the
send task finishes it (``Unfinished.finish``) before anything queued after it.

Private API: driving a coroutine with ``send(None)`` and resuming it on the future it
yielded (asyncio's ``_asyncio_future_blocking`` protocol), and relying on what starlette's
``send_text`` awaits under uvicorn's websockets-sansio implementation (tested versions:
``partchat.fast_paths``). With ``PARTCHAT_FAST_PATHS`` leaving ``ws`` out, or other
versions installed, every frame goes through the send task's plain ``await
ws.send_text(frame)``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

__all__ = ["Unfinished", "start"]


class Unfinished:
    """A write whose first step had to wait: its coroutine and what it waits on."""

    __slots__ = ("coro", "waiting_on")

    def __init__(self, coro: Coroutine[Any, Any, None], waiting_on: Any) -> None:
        self.coro = coro
        self.waiting_on = waiting_on

    async def finish(self) -> None:
        """Drive the write to its end, as the task running it would have."""
        coro, waiting_on = self.coro, self.waiting_on
        try:
            while True:
                if waiting_on is None:  # a bare yield: asyncio.sleep(0)
                    await asyncio.sleep(0)
                else:
                    waiting_on._asyncio_future_blocking = False
                    await asyncio.wait([waiting_on])
                try:
                    waiting_on = coro.send(None)
                except StopIteration:
                    return
        except BaseException:
            coro.close()
            raise

    def close(self) -> None:
        """Abandon the write (its connection is being closed)."""
        self.coro.close()


def start(coro: Coroutine[Any, Any, None]) -> Unfinished | None:
    """Run ``coro``'s first step in this step: None when that finished it, else what is
    left to finish; raises what the step raised."""
    try:
        waiting_on = coro.send(None)
    except StopIteration:
        return None
    return Unfinished(coro, waiting_on)
