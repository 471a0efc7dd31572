"""direct_write: a coroutine's first step run in the caller's step, the rest finished later
exactly as a task would have run it."""

from __future__ import annotations

import asyncio

import pytest

from partchat.transport import direct_write

pytestmark = pytest.mark.timeout(10)


async def test_a_write_that_does_not_wait_finishes_in_the_callers_step() -> None:
    done: list[str] = []

    async def write() -> None:
        done.append("written")

    assert direct_write.start(write()) is None
    assert done == ["written"]


async def test_a_write_that_waits_is_finished_later_in_order() -> None:
    ready = asyncio.Event()
    steps: list[str] = []

    async def write() -> None:
        steps.append("first step")
        await asyncio.sleep(0)  # a bare yield
        steps.append("after a bare yield")
        await ready.wait()  # a future
        steps.append("done")

    rest = direct_write.start(write())
    assert rest is not None and steps == ["first step"]
    finishing = asyncio.create_task(rest.finish())
    await asyncio.sleep(0.01)
    assert steps == ["first step", "after a bare yield"]
    ready.set()
    await finishing
    assert steps == ["first step", "after a bare yield", "done"]


async def test_an_error_is_raised_where_it_happens() -> None:
    async def fails_at_once() -> None:
        raise OSError("closed")

    with pytest.raises(OSError, match="closed"):
        direct_write.start(fails_at_once())

    ready = asyncio.Event()

    async def fails_later() -> None:
        await ready.wait()
        raise OSError("reset")

    rest = direct_write.start(fails_later())
    assert rest is not None
    finishing = asyncio.create_task(rest.finish())
    await asyncio.sleep(0)
    ready.set()
    with pytest.raises(OSError, match="reset"):
        await finishing


async def test_an_abandoned_write_is_closed() -> None:
    closed: list[bool] = []

    async def write() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            closed.append(True)

    rest = direct_write.start(write())
    assert rest is not None
    rest.close()
    assert closed == [True]
