"""Start turns, and their CPU-heavy steps, while the event loop keeps up.

Every turn in progress puts work on the one event loop. When more work is ready than the
CPU can serve, each pass of the loop gets longer and *every* answer that is streaming
stutters: a token waits for the work of all the others. :class:`TurnGate` lets a turn
start, and let it take its next step (the graph's next node: extraction, a model call,
a tool), only while the loop's lag — how long a callback waits to run — is under a
target. Tokens of answers already streaming are never held; steps of turns in progress go
before new turns (finishing work beats starting it), the oldest turn's first, so that a
burst of turns reaches its answers one after another instead of in lockstep (1,000 turns
started together would otherwise all begin streaming in the same second); new turns
first come first served. One admission is decided per lag sample, so a burst of arrivals
cannot all pass on one quiet moment.

Without CPU saturation (an LLM that takes hundreds of milliseconds per answer) the lag
stays far under the target and nothing waits. The lag is sampled with one ``call_soon``
per admission: nothing runs while the server is idle.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import time
from collections import deque
from collections.abc import Callable
from typing import Any

__all__ = ["TurnGate"]

SMOOTHING = 0.1  # weight of the newest lag sample


class TurnGate:
    """Admission by event-loop lag (``target_ms`` 0: never wait)."""

    def __init__(self, target_ms: float, *, on_wait: Callable[[], None] | None = None) -> None:
        self._target_s = target_ms / 1000
        self._on_wait = on_wait
        # Steps of turns in progress, oldest turn first: (ticket, arrival, future).
        self._steps: list[tuple[int, int, asyncio.Future[None]]] = []
        self._starts: deque[asyncio.Future[None]] = deque()  # new turns
        self._pump: asyncio.Task[None] | None = None
        self._checking = False  # a lag sample is in flight for an admission
        self._lag_s = 0.0  # smoothed: one short pass between long ones is not room
        self._tickets = 0
        self._arrivals = 0
        self.admitted = 0
        self.waited = 0

    @property
    def waiting(self) -> int:
        return len(self._steps) + len(self._starts)

    async def admit(self, *, step_of: int | None = None) -> int:
        """Return when the turn may start, with its ticket; ``step_of`` (a ticket): when
        that turn may take its next step (the order is the module's). Raises
        ``CancelledError`` if cancelled while waiting.
        """
        ticket = step_of if step_of is not None else self._new_ticket()
        if self._target_s <= 0:
            self.admitted += 1
            return ticket
        if (
            not self._checking
            and not self._steps
            and (step_of is not None or not self._starts)
            and await self._checked_room()
        ):
            self.admitted += 1
            return ticket
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = None
        if step_of is None:
            self._starts.append(fut)
        else:
            self._arrivals += 1
            entry = (step_of, self._arrivals, fut)
            heapq.heappush(self._steps, entry)
        self.waited += 1
        if self._on_wait is not None:
            self._on_wait()
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
            if fut.cancelled():  # not waiting any more: off the queue (and the gauge)
                self._forget(fut, entry)
        self.admitted += 1
        return ticket

    def _new_ticket(self) -> int:
        self._tickets += 1
        return self._tickets

    def _forget(self, fut: asyncio.Future[None], entry: tuple[int, int, Any] | None) -> None:
        if entry is None:
            with contextlib.suppress(ValueError):
                self._starts.remove(fut)
        elif entry in self._steps:
            self._steps.remove(entry)
            heapq.heapify(self._steps)

    async def _admit_waiters(self) -> None:
        while self._steps or self._starts:
            if await self._checked_room():
                self._pass_on()

    async def _checked_room(self) -> bool:
        self._checking = True
        try:
            return await self._room()
        finally:
            self._checking = False

    async def _room(self) -> bool:
        """Both this pass and the recent ones kept under the target."""
        lag = await _lag()
        self._lag_s += (lag - self._lag_s) * SMOOTHING
        return lag <= self._target_s and self._lag_s <= self._target_s

    def _pass_on(self) -> None:
        while self._steps or self._starts:
            fut = heapq.heappop(self._steps)[2] if self._steps else self._starts.popleft()
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
