"""Connection: the send side of one WebSocket, timed by hand (a fake socket)."""

from __future__ import annotations

import asyncio

import pytest

from partchat.transport.ws import CLOSE_TOO_SLOW, SEND_QUEUE_FRAMES, Connection

pytestmark = pytest.mark.timeout(30)


class FakeSocket:
    """Takes every frame at once, or, while ``stalled``, waits until ``resume()`` (a
    client that does not read: the transport has stopped taking writes)."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None
        self.writable = asyncio.Event()
        self.writable.set()

    def stall(self) -> None:
        self.writable.clear()

    def resume(self) -> None:
        self.writable.set()

    async def send_text(self, text: str) -> None:
        await self.writable.wait()
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = (code, reason or "")


async def test_a_frame_is_written_in_the_publishers_step_when_nothing_is_ahead() -> None:
    ws = FakeSocket()
    conn = Connection(ws, 10)  # type: ignore[arg-type]
    conn.deliver(1, "one")
    conn.send_now("pong")
    conn.deliver(2, "two")
    assert ws.sent == ["one", "pong", "two"]  # no send task ran: nothing awaited
    assert conn.queue.empty() and conn.last_seq == 2


async def test_a_write_that_must_wait_keeps_its_place_ahead_of_later_frames() -> None:
    ws = FakeSocket()
    conn = Connection(ws, 10)  # type: ignore[arg-type]
    sender = asyncio.create_task(conn.sender())
    ws.stall()
    conn.deliver(1, "one")  # starts, has to wait: handed to the send task
    conn.deliver(2, "two")
    conn.send_now("pong")
    await asyncio.sleep(0.05)
    assert ws.sent == []
    ws.resume()
    await asyncio.sleep(0.05)
    assert ws.sent == ["one", "two", "pong"]
    conn.deliver(3, "three")  # nothing ahead again: written at once
    assert ws.sent[-1] == "three"
    sender.cancel()


async def test_a_frame_waits_behind_one_the_send_task_is_writing() -> None:
    ws = FakeSocket()
    conn = Connection(ws, 10)  # type: ignore[arg-type]
    sender = asyncio.create_task(conn.sender())
    ws.stall()
    conn.queue.put_nowait("queued")  # as if queued before: the send task takes it
    await asyncio.sleep(0.01)
    assert conn.queue.empty()  # taken, and waiting to be written
    conn.deliver(1, "after")
    ws.resume()
    await asyncio.sleep(0.05)
    assert ws.sent == ["queued", "after"]
    sender.cancel()


async def test_send_queue_overflow_closes_with_4000() -> None:
    ws = FakeSocket()
    ws.stall()  # a client that stopped reading
    conn = Connection(ws, 10)  # type: ignore[arg-type]
    conn.deliver(1, "one")  # waits for the transport
    conn.deliver(1, "one again")  # a duplicate seq is dropped
    assert conn.queue.qsize() == 1
    for seq in range(2, SEND_QUEUE_FRAMES + 2):  # one more than the queue holds
        conn.deliver(seq, f"frame {seq}")
    assert conn.too_slow
    conn.deliver(SEND_QUEUE_FRAMES + 5, "later")  # ignored once too slow
    conn.send_now("pong")  # likewise
    await asyncio.wait_for(conn.sender(), 2)
    ws.resume()
    await asyncio.sleep(0.01)
    assert ws.sent == []
    assert ws.closed is not None and ws.closed[0] == CLOSE_TOO_SLOW


# -- the ws fast path off (PARTCHAT_FAST_PATHS without ws): the public send only ----------
async def test_with_the_direct_write_off_every_frame_goes_through_the_send_task() -> None:
    ws = FakeSocket()
    conn = Connection(ws, 10, direct=False)  # type: ignore[arg-type]
    conn.deliver(1, "one")
    conn.send_now("pong")
    conn.deliver(2, "two")
    assert ws.sent == []  # nothing written in the publisher's step
    assert conn.queue.qsize() == 3 and conn.last_seq == 2
    sender = asyncio.create_task(conn.sender())
    await asyncio.sleep(0.01)
    assert ws.sent == ["one", "pong", "two"]
    ws.stall()
    conn.deliver(3, "three")
    conn.deliver(4, "four")
    await asyncio.sleep(0.01)
    ws.resume()
    await asyncio.sleep(0.01)
    assert ws.sent == ["one", "pong", "two", "three", "four"]
    sender.cancel()


async def test_with_the_direct_write_off_overflow_still_closes_with_4000() -> None:
    ws = FakeSocket()
    conn = Connection(ws, 10, direct=False)  # type: ignore[arg-type]
    for seq in range(1, SEND_QUEUE_FRAMES + 2):
        conn.deliver(seq, f"frame {seq}")
    assert conn.too_slow
    await asyncio.wait_for(conn.sender(), 2)
    assert ws.sent == []
    assert ws.closed is not None and ws.closed[0] == CLOSE_TOO_SLOW
