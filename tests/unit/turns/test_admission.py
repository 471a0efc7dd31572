"""TurnGate: turns and their steps start while the event loop keeps up."""

from __future__ import annotations

import asyncio
import time

import pytest

from partchat.turns.admission import TurnGate

pytestmark = pytest.mark.timeout(30)


class Busy:
    """Keeps the event loop's passes long: a callback that blocks ``block_s`` and
    reschedules itself until stopped."""

    def __init__(self, block_s: float = 0.004) -> None:
        self.block_s = block_s
        self.stopped_at: float | None = None
        self._loop = asyncio.get_running_loop()
        self._loop.call_soon(self._tick)

    def _tick(self) -> None:
        if self.stopped_at is not None:
            return
        time.sleep(self.block_s)
        self._loop.call_soon(self._tick)

    def stop(self) -> None:
        self.stopped_at = time.perf_counter()


async def test_target_zero_never_waits() -> None:
    gate = TurnGate(0)
    busy = Busy()
    try:
        ticket = await gate.admit()
        await gate.admit(step_of=ticket)
    finally:
        busy.stop()
    assert (gate.admitted, gate.waited) == (2, 0)


async def test_an_idle_loop_admits_at_once() -> None:
    gate = TurnGate(2.0)
    for _ in range(5):
        await gate.admit()
    assert (gate.admitted, gate.waited, gate.waiting) == (5, 0, 0)


async def test_a_saturated_loop_holds_new_turns_until_it_keeps_up() -> None:
    gate = TurnGate(1.0)
    busy = Busy()
    admitted_at: list[float] = []

    async def turn() -> None:
        await gate.admit()
        admitted_at.append(time.perf_counter())

    task = asyncio.create_task(turn())
    await asyncio.sleep(0.2)
    assert not admitted_at and gate.waiting == 1  # held while every pass takes 4 ms
    busy.stop()
    await asyncio.wait_for(task, 5)
    assert busy.stopped_at is not None and admitted_at[0] > busy.stopped_at
    assert gate.waited == 1 and gate.waiting == 0


async def test_steps_of_turns_in_progress_go_before_new_turns() -> None:
    gate = TurnGate(1.0)
    busy = Busy()
    order: list[str] = []

    async def wait(name: str, step_of: int | None) -> None:
        await gate.admit(step_of=step_of)
        order.append(name)

    tasks = [asyncio.create_task(wait("new-1", None))]
    await asyncio.sleep(0.05)
    tasks.append(asyncio.create_task(wait("new-2", None)))
    await asyncio.sleep(0.05)
    tasks.append(asyncio.create_task(wait("step", 1)))
    await asyncio.sleep(0.05)
    assert order == [] and gate.waiting == 3
    busy.stop()
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert order == ["step", "new-1", "new-2"]


async def test_a_cancelled_waiter_is_skipped_and_the_next_one_goes() -> None:
    gate = TurnGate(1.0)
    busy = Busy()
    first = asyncio.create_task(gate.admit())
    second = asyncio.create_task(gate.admit())
    await asyncio.sleep(0.05)
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    assert gate.waiting == 1  # the cancelled one left the queue at once
    busy.stop()
    await asyncio.wait_for(second, 5)
    assert gate.admitted == 1 and gate.waiting == 0


async def test_each_wait_is_reported() -> None:
    waits: list[int] = []
    gate = TurnGate(1.0, on_wait=lambda: waits.append(1))
    await gate.admit()  # idle: no wait
    busy = Busy()
    task = asyncio.create_task(gate.admit(step_of=1))
    await asyncio.sleep(0.05)
    busy.stop()
    await asyncio.wait_for(task, 5)
    assert len(waits) == gate.waited == 1


async def test_the_oldest_turns_step_goes_first() -> None:
    """Turns reach their answers one after another, not all in lockstep."""
    gate = TurnGate(1.0)
    tickets = [await gate.admit() for _ in range(3)]
    assert tickets == sorted(tickets) and len(set(tickets)) == 3
    busy = Busy()
    order: list[int] = []

    async def step(ticket: int) -> None:
        await gate.admit(step_of=ticket)
        order.append(ticket)

    tasks = []
    for ticket in (tickets[2], tickets[0], tickets[1]):  # the youngest asks first
        tasks.append(asyncio.create_task(step(ticket)))
        await asyncio.sleep(0.02)
    assert order == [] and gate.waiting == 3
    busy.stop()
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert order == tickets


async def test_a_burst_of_new_turns_is_admitted_one_lag_sample_at_a_time() -> None:
    """Arrivals in one moment do not all pass on that moment's quiet loop: while one
    admission samples the lag the others queue, then go one per sample, in order."""
    gate = TurnGate(2.0)
    order: list[int] = []

    async def turn(i: int) -> None:
        await gate.admit()
        order.append(i)

    await asyncio.wait_for(asyncio.gather(*(turn(i) for i in range(20))), 5)
    assert order == list(range(20))
    # all but the first queued (the first too, should the machine stall its sample)
    assert gate.admitted == 20 and gate.waited >= 19 and gate.waiting == 0
