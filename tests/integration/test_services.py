"""The throwaway PostgreSQL and Redis servers the fixtures start: reachable, restartable on
the same port, and gone afterwards."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

import asyncpg
import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from tests.support.pg import PostgresServer
from tests.support.redis_server import RedisServer


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


async def test_postgres_round_trip(postgres_dsn: str) -> None:
    conn = await asyncpg.connect(postgres_dsn, timeout=10)
    try:
        await conn.execute("CREATE TEMP TABLE t (id int PRIMARY KEY, body text)")
        await conn.execute("INSERT INTO t VALUES ($1, $2)", 7, "fridge")
        assert await conn.fetchval("SELECT body FROM t WHERE id = $1", 7) == "fridge"
        assert await conn.fetchval("SELECT current_database()") == "partchat"
        host = await conn.fetchval("SELECT current_setting('listen_addresses')")
        assert host == "127.0.0.1"
    finally:
        await conn.close()


async def test_postgres_stop_start_keeps_port_and_data(
    postgres_factory: Callable[[], PostgresServer],
) -> None:
    server = postgres_factory()
    conn = await asyncpg.connect(server.dsn, timeout=10)
    await conn.execute("CREATE TABLE kept (v int); INSERT INTO kept VALUES (41)")
    await conn.close()
    port = server.port

    await asyncio.to_thread(server.stop)
    assert not _listening(port)
    with pytest.raises((OSError, asyncpg.PostgresError)):
        await asyncpg.connect(server.dsn, timeout=2)

    await asyncio.to_thread(server.start)
    assert server.port == port
    conn = await asyncpg.connect(server.dsn, timeout=10)
    try:
        assert await conn.fetchval("SELECT v FROM kept") == 41
    finally:
        await conn.close()

    root = server.root
    assert root is not None and root.exists()
    await asyncio.to_thread(server.close)
    assert not root.exists()
    assert not _listening(port)


async def test_redis_round_trip(redis_url: str) -> None:
    client = aioredis.Redis.from_url(redis_url, socket_timeout=5)
    try:
        await client.set("services-test:k", "v", px=10_000)
        assert await client.get("services-test:k") == b"v"
        assert (await client.config_get("save"))["save"] == ""
    finally:
        await client.aclose()


async def test_redis_restart_keeps_port_and_starts_empty(
    redis_factory: Callable[[], RedisServer],
) -> None:
    server = redis_factory()
    port, url = server.port, server.url
    client = aioredis.Redis.from_url(url, socket_timeout=5)
    try:
        await client.set("k", "before")
        await asyncio.to_thread(server.restart)
        assert server.port == port and server.url == url
        # The pool's old connection is dead: the first command may fail, the next reconnects.
        with pytest.raises(RedisConnectionError):
            await client.get("k")
        assert await client.get("k") is None  # nothing persisted
        await client.set("k", "after")
        assert await client.get("k") == b"after"
    finally:
        await client.aclose()


async def test_redis_pause_hangs_until_resumed(redis_factory: Callable[[], RedisServer]) -> None:
    server = redis_factory()
    client = aioredis.Redis.from_url(server.url, socket_timeout=0.3)
    try:
        assert await client.ping()
        server.pause()
        with pytest.raises(RedisTimeoutError):
            await client.ping()
        server.resume()
        assert await client.ping()
    finally:
        server.resume()
        await client.aclose()
    root = server.root
    server.close()
    assert root is not None and not root.exists()
    assert not _listening(server.port)
