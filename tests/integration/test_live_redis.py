"""The live event log against a real redis-server: exact replay across the seam, stops
between two servers' clients, a Redis restart and a hung Redis."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable

import pytest
from redis.asyncio import Redis

from partchat.live import LiveLogUnavailable, RedisEventLog
from partchat.live.keys import stream_key
from tests.support.redis_server import RedisServer


def sid() -> str:
    return "s_" + uuid.uuid4().hex


def new_log(url: str, **options: object) -> RedisEventLog:
    options.setdefault("block_ms", 200)
    return RedisEventLog.from_url(url, **options)  # type: ignore[arg-type]


@pytest.fixture
async def two_servers(redis_url: str) -> AsyncIterator[tuple[RedisEventLog, RedisEventLog]]:
    """Two event logs over separate clients, as two server processes would have."""
    a, b = new_log(redis_url), new_log(redis_url)
    yield a, b
    for live in (a, b):
        await live.close()


class Follower:
    """Runs replay_and_follow in a task, recording what it yields."""

    def __init__(self, live: RedisEventLog, session_id: str, last_seq: int) -> None:
        self.seen: list[int] = []
        self.frames: list[str] = []
        self.error: BaseException | None = None
        self.task = asyncio.create_task(self._run(live, session_id, last_seq))

    async def _run(self, live: RedisEventLog, session_id: str, last_seq: int) -> None:
        try:
            async for seq, frame in live.replay_and_follow(session_id, last_seq):
                self.seen.append(seq)
                self.frames.append(frame)
        except LiveLogUnavailable as exc:
            self.error = exc

    async def until(self, last: int, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while not self.seen or self.seen[-1] < last:
                if self.task.done():
                    raise AssertionError(f"follower ended: {self.error!r}")
                await asyncio.sleep(0.01)

    async def cancel(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


async def test_followers_get_each_seq_after_theirs_exactly_once(
    two_servers: tuple[RedisEventLog, RedisEventLog],
) -> None:
    owner, other = two_servers
    session = sid()
    followers: list[tuple[int, Follower]] = []
    for seq in range(1, 401):
        owner.publish(session, seq, f'{{"seq":{seq}}}')
        if seq % 50 == 0:
            # Followers (on the other server) join mid-stream, resuming from various
            # points, some behind what is written, one ahead of it.
            await asyncio.sleep(0.002)
            followers.append((seq - 37, Follower(other, session, seq - 37)))
        if seq == 120:
            followers.append((130, Follower(other, session, 130)))
    try:
        for _, follower in followers:
            await follower.until(400)
        for last_seq, follower in followers:
            assert follower.seen == list(range(last_seq + 1, 401))
            assert follower.frames[-1] == '{"seq":400}'
    finally:
        for _, follower in followers:
            await follower.cancel()
    assert owner.stats.published == 400 and owner.stats.dropped == 0


async def test_stop_reaches_the_owner_of_the_turn(
    two_servers: tuple[RedisEventLog, RedisEventLog],
) -> None:
    server_a, server_b = two_servers
    session = sid()
    stops: asyncio.Queue[str] = asyncio.Queue()
    listener = server_a.stop_listener("boot-a", stops.put_nowait)
    await listener.start()
    try:
        assert await server_b.send_stop(session, "boot-a")  # B tells the turn's owner, A
        assert await asyncio.wait_for(stops.get(), 5) == session
        assert not await server_b.send_stop(session, "boot-gone")  # its owner is not listening
        assert stops.empty()
    finally:
        await listener.close()
    assert not await server_b.send_stop(session, "boot-a")  # A stopped listening


async def test_read_after_returns_what_the_stream_holds_now(
    two_servers: tuple[RedisEventLog, RedisEventLog],
) -> None:
    owner, reader = two_servers
    session = sid()
    for seq in range(1, 1201):  # more than one XRANGE page
        owner.publish(session, seq, str(seq))
    assert await owner.flush(10)
    assert [s for s, _ in await reader.read_after(session, 0)] == list(range(1, 1201))
    assert await reader.read_after(session, 1150) == [(s, str(s)) for s in range(1151, 1201)]
    assert await reader.read_after(sid(), 0) == []


async def test_redis_restart_mid_follow_resumes_without_duplicates(
    redis_factory: Callable[[], RedisServer],
) -> None:
    server = redis_factory()
    owner, reader = new_log(server.url), new_log(server.url, reconnect_for_s=20)
    session = sid()
    stops: asyncio.Queue[str] = asyncio.Queue()
    listener = owner.stop_listener("boot-a", stops.put_nowait)
    await listener.start()
    try:
        for seq in range(1, 51):
            owner.publish(session, seq, str(seq))
        follower = Follower(reader, session, 0)
        await follower.until(50)

        await asyncio.to_thread(server.stop)
        for seq in range(51, 61):  # written while Redis is down: kept in the queue
            owner.publish(session, seq, str(seq))
        await asyncio.sleep(0.3)
        assert owner.stats.pending == 10
        await asyncio.to_thread(server.start)  # same port, empty
        for seq in range(61, 101):
            owner.publish(session, seq, str(seq))

        await follower.until(100, timeout=20)
        assert follower.seen == list(range(1, 101))
        assert follower.frames == [str(s) for s in range(1, 101)]
        assert owner.stats.dropped == 0 and owner.stats.batches_failed >= 1
        # The stop listener subscribes again by itself (within its backoff).
        for _ in range(200):
            if await reader.send_stop(session, "boot-a"):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the stop listener did not resubscribe after the restart")
        assert await asyncio.wait_for(stops.get(), 5) == session
        await follower.cancel()
    finally:
        await listener.close()
        for live in (owner, reader):
            await live.close(0.5)


async def test_follower_gives_up_after_reconnect_for_s(
    redis_factory: Callable[[], RedisServer],
) -> None:
    server = redis_factory()
    reader = new_log(server.url, reconnect_for_s=0.5, timeout_s=0.2)
    try:
        follower = Follower(reader, sid(), 0)
        await asyncio.sleep(0.3)
        await asyncio.to_thread(server.stop)
        async with asyncio.timeout(10):
            await follower.task
        assert isinstance(follower.error, LiveLogUnavailable)
    finally:
        await reader.close(0.1)


async def test_hung_redis_never_blocks_publish(redis_factory: Callable[[], RedisServer]) -> None:
    server = redis_factory()
    owner = new_log(server.url, timeout_s=0.3, max_pending=500)
    reader = new_log(server.url, timeout_s=0.3)
    session = sid()
    probe = Redis.from_url(server.url, socket_timeout=5)
    try:
        owner.publish(session, 1, "1")
        assert await owner.flush(5)
        follower = Follower(reader, session, 0)
        await follower.until(1)

        server.pause()  # SIGSTOP: connections stay open, nothing answers
        slowest = 0.0
        for seq in range(2, 2002):
            started = time.perf_counter()
            owner.publish(session, seq, str(seq))
            slowest = max(slowest, time.perf_counter() - started)
        assert slowest < 0.05  # each call only queues
        assert owner.stats.dropped == 1500  # the oldest, beyond max_pending
        assert not await owner.flush(1.0)  # nothing gets through while it hangs
        assert owner.stats.batches_failed >= 1
        server.resume()

        assert await owner.flush(10)
        stats = owner.stats
        assert stats.pending == 0 and stats.failed == 0 and stats.published == 501
        entries = await probe.xrange(stream_key(session))
        assert [int(e[0].split(b"-")[0]) for e in entries] == [1, *range(1502, 2002)]
        await follower.until(2001, timeout=20)
        assert follower.seen == [1, *range(1502, 2002)]  # the dropped ones never existed
        await follower.cancel()
    finally:
        server.resume()
        await probe.aclose()
        for live in (owner, reader):
            await live.close(0.5)
