"""When the server process runs Python's full garbage collections.

A full collection walks every container object alive and stops the event loop meanwhile.
At startup the heap (catalog indexes, the graph, every imported module) is frozen
(``gc.freeze``) and never walked again. Under load what is left is the turns in flight:
with 1,000 sessions streaming, ~350 objects each, a full collection took 120-300 ms, on
Python's own schedule several times a minute, every one a stall of every stream. And it
freed nothing: a turn leaves no reference cycles behind (``gc.DEBUG_SAVEALL`` over 2,000
turns found only the 18-object cycle uvicorn leaves per WebSocket upgrade), its objects
go by reference counting.

So Python's automatic full collections are switched off (the younger generations keep
their schedule) and :class:`Collector` runs them itself: once no turn is running, and,
should the server never be idle, at the latest ``max_interval_s`` after the last one, so
that garbage cycles cannot pile up without bound.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable

# Python's third threshold counts middle-generation collections between full ones; this
# many never happen between two ticks of the collector.
NEVER = 2**30
TICK_S = 1.0
MAX_INTERVAL_S = 300.0


class Collector:
    def __init__(
        self,
        busy: Callable[[], bool],
        *,
        max_interval_s: float = MAX_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._busy = busy
        self._max_interval_s = max_interval_s
        self._clock = clock
        self._last = clock()
        self.collections = 0

    @staticmethod
    def install() -> None:
        """Freeze what is alive now; no more automatic full collections."""
        gc.collect()
        gc.freeze()
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, NEVER)

    def tick(self) -> bool:
        """Run a full collection if one is due; True if it ran."""
        if gc.get_count()[2] == 0:  # no middle-generation collection since the last one
            return False
        now = self._clock()
        if self._busy() and now - self._last < self._max_interval_s:
            return False
        gc.collect()
        self._last = self._clock()
        self.collections += 1
        return True

    async def run(self) -> None:
        """:meth:`tick` every ``TICK_S`` until cancelled."""
        while True:
            await asyncio.sleep(TICK_S)
            self.tick()
