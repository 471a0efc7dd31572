"""RedisEventLog over fakeredis (its streams), and the publisher against no Redis at all;
tests/integration/test_live_redis.py has the real redis-server."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import fakeredis
import pytest
from redis.asyncio import Redis

from partchat.live import RedisEventLog
from partchat.live.keys import stream_key
from tests.support.servers import free_port


@pytest.fixture
async def log() -> AsyncIterator[RedisEventLog]:
    live = RedisEventLog(fakeredis.FakeAsyncRedis(), block_ms=100)
    yield live
    await live.close()


async def collect(live: RedisEventLog, sid: str, last_seq: int, n: int) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    async with asyncio.timeout(10):
        async for item in live.replay_and_follow(sid, last_seq):
            out.append(item)
            if len(out) == n:
                break
    return out


async def test_replay_is_exactly_the_entries_after_last_seq(log: RedisEventLog) -> None:
    for seq in range(1, 11):
        log.publish("s1", seq, f'{{"seq":{seq}}}')
    assert await log.flush(5)
    assert await collect(log, "s1", 6, 4) == [(s, f'{{"seq":{s}}}') for s in range(7, 11)]
    assert [s for s, _ in await collect(log, "s1", 0, 10)] == list(range(1, 11))
    assert await log.oldest_seq("s1") == 1
    assert await log.oldest_seq("nobody") is None
    assert log.stats.published == 10 and log.stats.pending == 0


async def test_follow_across_the_seam_with_a_concurrent_publisher(log: RedisEventLog) -> None:
    async def produce() -> None:
        for seq in range(1, 201):
            log.publish("s2", seq, str(seq))
            if seq % 7 == 0:
                await asyncio.sleep(0.001)

    producer = asyncio.create_task(produce())
    await asyncio.sleep(0.005)  # the follower starts while entries are being written
    got = await collect(log, "s2", 30, 170)
    await producer
    assert [s for s, _ in got] == list(range(31, 201))
    assert all(frame == str(seq) for seq, frame in got)


async def test_a_seq_written_twice_is_stored_once(log: RedisEventLog) -> None:
    log.publish("s3", 1, "a")
    log.publish("s3", 2, "b")
    assert await log.flush(5)
    log.publish("s3", 2, "b")  # as a retry whose first reply was lost would
    log.publish("s3", 3, "c")
    assert await log.flush(5)
    assert await log.client.xlen(stream_key("s3")) == 3
    assert log.stats.failed == 0 and log.stats.published == 4


async def test_stream_ttl_long_while_running_short_after_the_turn(log: RedisEventLog) -> None:
    log.publish("s4", 1, "start")
    assert await log.flush(5)
    assert await log.client.ttl(stream_key("s4")) > 3000  # an owner that dies leaks nothing
    log.expire_after_turn("s4", 120)
    assert await log.flush(5)
    assert 110 < await log.client.ttl(stream_key("s4")) <= 120
    log.publish("s4", 2, "next turn")  # a new turn must not vanish 2 minutes in
    assert await log.flush(5)
    assert await log.client.ttl(stream_key("s4")) > 3000


async def test_unreachable_redis_never_blocks_publish_and_bounds_the_queue() -> None:
    client = Redis.from_url(f"redis://127.0.0.1:{free_port()}/0", socket_connect_timeout=0.2)
    live = RedisEventLog(client, timeout_s=0.2, max_pending=100)
    try:
        started = time.perf_counter()
        for seq in range(1, 1001):
            live.publish("s5", seq, "x" * 100)
        elapsed = time.perf_counter() - started
        assert elapsed < 0.5  # no I/O in publish: a thousand calls are a few ms
        assert live.stats.dropped == 900 and live.stats.pending == 100
        assert not await live.flush(0.5)  # nothing can be written
        stats = live.stats
        assert stats.batches_failed >= 1 and stats.published == 0 and stats.pending == 100
    finally:
        await live.close(0.1)
        await client.aclose()
