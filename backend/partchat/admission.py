"""Start turns while the event loop keeps up.

Every turn in progress puts work on the one event loop. When more turns are ready to run
than the CPU can serve, each pass of the loop gets longer and *every* answer that is
streaming stutters: a token waits for the work of all the others. :class:`TurnGate`
admits a new turn only while the loop's lag — how long a callback waits to run — is
under a target, so the answers already streaming stay smooth and new turns wait their
turn, first come first served, instead of all slowing down together.

Without CPU saturation (an LLM that takes hundreds of milliseconds per answer) the lag
stays far under the target and every turn starts at once. The lag is sampled with one
``call_soon`` per admission: no timer runs while the server is idle.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque

__all__ = ["TurnGate"]

SMOOTHING = 0.1  # weight of the newest lag sample


class TurnGate:
    """FIFO admission of turns by event-loop lag (``target_ms`` 0: admit all at once)."""

    def __init__(self, target_ms: float) -> None:
        self._target_s = target_ms / 1000
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._pump: asyncio.Task[None] | None = None
        self._lag_s = 0.0  # smoothed: one short pass between long ones is not room
        self.admitted = 0
        self.waited = 0

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    async def admit(self) -> None:
        """Return when the turn may start (raises ``CancelledError`` if cancelled)."""
        if self._target_s <= 0:
            self.admitted += 1
            return
        if not self._waiters and await self._room():
            self.admitted += 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        self.waited += 1
        if self._pump is None or self._pump.done():
            self._pump = asyncio.create_task(self._admit_waiters(), name="turn-gate")
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self._pass_on()  # admitted just as it was cancelled: the next one goes
            raise
        finally:
            if not fut.done():
                fut.cancel()
        self.admitted += 1

    async def _admit_waiters(self) -> None:
        while self._waiters:
            if await self._room():
                self._pass_on()

    async def _room(self) -> bool:
        lag = await _lag()
        self._lag_s += (lag - self._lag_s) * SMOOTHING
        return self._lag_s <= self._target_s

    def _pass_on(self) -> None:
        while self._waiters:
            fut = self._waiters.popleft()
            if not fut.done():
                fut.set_result(None)
                return


async def _lag() -> float:
    """How long a callback scheduled now waits for the loop to run it."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[float] = loop.create_future()
    start = time.perf_counter()
    loop.call_soon(_resolve, fut, start)
    return await fut


def _resolve(fut: asyncio.Future[float], start: float) -> None:
    if not fut.done():
        fut.set_result(time.perf_counter() - start)
