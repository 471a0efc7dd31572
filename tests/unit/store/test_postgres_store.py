"""What only the PostgreSQL backend has: two servers (two pools) racing on one database,
migrations under the advisory lock, the database's own constraints, and a PostgreSQL
that stops and starts again. The contract both backends keep is tested in
test_sessions.py and test_workers.py."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

import asyncpg
import pytest

from partchat.store import StorageUnavailable, StoreError, TurnRunningElsewhere, empty_context
from partchat.store.postgres import MIGRATIONS, SCHEMA_VERSION, PostgresStore
from tests.support.pg import PostgresServer
from tests.support.stores import PostgresBackend, create_database, drop_database

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def pair(pg_backend: PostgresBackend) -> AsyncIterator[tuple[PostgresStore, PostgresStore]]:
    """Two stores with their own pools on one database: two servers."""
    a = await PostgresStore.open(pg_backend.dsn, max_size=4)
    b = await PostgresStore.open(pg_backend.dsn, max_size=4)
    yield a, b
    await a.close()
    await b.close()


async def test_racing_begin_turns_from_two_servers_start_one_turn(
    pair: tuple[PostgresStore, PostgresStore], pg_backend: PostgresBackend
) -> None:
    a, b = pair
    sessions = [await a.create_session() for _ in range(40)]

    async def attempt(store: PostgresStore, session_id: str, owner: str) -> str:
        try:
            await store.begin_turn(session_id, f"from-{owner}", "hi", seq_reserved=1, owner=owner)
        except TurnRunningElsewhere as exc:
            assert exc.turn.owner != owner
            return "refused"
        return "started"

    outcomes = await asyncio.gather(
        *(
            attempt(store, s.id, owner)
            for s in sessions
            for store, owner in ((a, "w_server_a_000001"), (b, "w_server_b_000001"))
        )
    )
    for i in range(len(sessions)):
        assert sorted(outcomes[2 * i : 2 * i + 2]) == ["refused", "started"]
    assert await pg_backend.rows(
        "SELECT COUNT(*), COUNT(DISTINCT session_id) FROM turns WHERE status = 'running'"
    ) == [(40, 40)]
    assert await pg_backend.count("messages") == 40


async def test_a_message_sent_to_two_servers_at_once_is_stored_once(
    pair: tuple[PostgresStore, PostgresStore], pg_backend: PostgresBackend
) -> None:
    a, b = pair
    sessions = [await a.create_session() for _ in range(20)]
    results = await asyncio.gather(
        *(
            store.begin_turn(s.id, "same-client-id", "hello", seq_reserved=1, owner=owner)
            for s in sessions
            for store, owner in ((a, "w_server_a_000001"), (b, "w_server_b_000001"))
        )
    )
    for i in range(len(sessions)):
        first, second = results[2 * i], results[2 * i + 1]
        assert sorted([first.duplicate, second.duplicate]) == [False, True]
        assert first.turn.id == second.turn.id
        assert first.user_message_id == second.user_message_id
    assert await pg_backend.count("turns") == 20
    assert await pg_backend.count("messages") == 20


async def test_the_database_itself_refuses_a_second_running_turn_and_a_repeated_id(
    pair: tuple[PostgresStore, PostgresStore], pg_backend: PostgresBackend
) -> None:
    a, _ = pair
    session = await a.create_session()
    begun = await a.begin_turn(session.id, "c1", "hi", seq_reserved=1, owner="w_server_a_000001")
    conn = await asyncpg.connect(pg_backend.dsn)
    try:
        insert = (
            "INSERT INTO turns (id, session_id, client_message_id, status, started_at)"
            " VALUES ($1, $2, $3, $4, 0)"
        )
        with pytest.raises(asyncpg.UniqueViolationError, match="turns_one_running"):
            await conn.execute(insert, "t_by_hand_0000001", session.id, "c2", "running")
        with pytest.raises(asyncpg.UniqueViolationError):
            await conn.execute(insert, "t_by_hand_0000002", session.id, "c1", "complete")
    finally:
        await conn.close()
    # The same owner does not start a second one either (SQLite would allow it).
    with pytest.raises(TurnRunningElsewhere) as refused:
        await a.begin_turn(session.id, "c2", "again", seq_reserved=2, owner="w_server_a_000001")
    assert refused.value.turn.id == begun.turn.id


async def test_servers_starting_together_migrate_once(postgres_dsn: str) -> None:
    dsn = await create_database(postgres_dsn)
    try:
        stores = await asyncio.gather(*(PostgresStore.open(dsn, max_size=2) for _ in range(4)))
        try:
            for store in stores:
                assert await store.schema_version() == SCHEMA_VERSION
            session = await stores[0].create_session()
            assert await stores[3].get_session(session.id) == session
            begun = await stores[1].begin_turn(session.id, "c1", "hi", seq_reserved=1)
            assert (await stores[2].get_turn(begun.turn.id)) == begun.turn
        finally:
            for store in stores:
                await store.close()
        backend = PostgresBackend(dsn)
        assert await backend.rows("SELECT version, name FROM schema_migrations") == [
            (i + 1, name) for i, (name, _) in enumerate(MIGRATIONS)
        ]
        assert await backend.rows("SELECT COUNT(*) FROM pg_tables WHERE schemaname = 'public'") == [
            (8,)
        ]  # sessions, turns, messages, workers, store_writes, schema_migrations, tool_calls,
        # feedback
        # Opening again applies nothing; a database from a newer partchat is refused.
        again = await PostgresStore.open(dsn)
        await again.close()
        assert await backend.count("schema_migrations") == SCHEMA_VERSION
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute(
                "INSERT INTO schema_migrations (version, name) VALUES ($1, 'future')",
                SCHEMA_VERSION + 1,
            )
        finally:
            await conn.close()
        with pytest.raises(StoreError, match="newer"):
            await PostgresStore.open(dsn)
    finally:
        await drop_database(postgres_dsn, dsn)


async def test_data_version_ignores_own_writes_and_survives_another_store_closing(
    pair: tuple[PostgresStore, PostgresStore], pg_backend: PostgresBackend
) -> None:
    a, b = pair
    start = await a.data_version()
    session = await a.create_session()
    await a.begin_turn(session.id, "c1", "hi", seq_reserved=1)
    await a.heartbeat("w_server_a_000001", pid=1, host="h")
    assert await a.data_version() == start
    await b.save_context(session.id, empty_context())
    moved = await a.data_version()
    assert moved != start
    await b.close()  # its counters fold into the retired row: the sum stays
    assert await a.data_version() == moved
    c = await PostgresStore.open(pg_backend.dsn)
    try:
        await c.create_session()
        assert await a.data_version() != moved
    finally:
        await c.close()


async def test_nul_characters_are_stored_as_replacement_characters(
    pair: tuple[PostgresStore, PostgresStore],
) -> None:
    a, _ = pair
    session = await a.create_session()
    begun = await a.begin_turn(session.id, "c1", "nul\x00here", seq_reserved=1)
    await a.finish_turn(
        begun.turn.id,
        text="ok\x00",
        status="complete",
        finish_reason="stop",
        tool_outputs=[{"toolName": "t", "output": {"k\x00": "v\x00"}}],
        context={**empty_context(), "symptoms": ["a\x00b"]},
        last_seq=1,
        timings={},
    )
    history = await a.history(session.id)
    assert [m["text"] for m in history] == ["nul\ufffdhere", "ok\ufffd"]
    assert history[1]["toolOutputs"] == [{"toolName": "t", "output": {"k\ufffd": "v\ufffd"}}]
    record = await a.get_session(session.id)
    assert record is not None and record.context["symptoms"] == ["a\ufffdb"]


async def until(check: Callable[[], object], seconds: float) -> None:
    """Await ``check()`` until it returns without StorageUnavailable."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            await check()  # type: ignore[misc]
            return
        except StorageUnavailable:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def test_a_stopped_postgres_is_unavailable_and_the_store_recovers(
    postgres_factory: Callable[[], PostgresServer],
) -> None:
    server = postgres_factory()
    store = await PostgresStore.open(server.dsn, min_size=2, max_size=4, timeout_s=2.0)
    try:
        session = await store.create_session()
        await store.begin_turn(session.id, "c1", "before the outage", seq_reserved=1)
        server.stop()
        started = time.monotonic()
        with pytest.raises(StorageUnavailable) as info:
            await store.create_session()
        assert str(info.value) in ("storage unavailable", "storage is busy")
        assert info.value.__cause__ is not None
        with pytest.raises(StorageUnavailable):
            await store.ping()
        with pytest.raises(StorageUnavailable):
            await store.begin_turn(session.id, "c2", "during the outage", seq_reserved=2)
        assert time.monotonic() - started < 15  # bounded, not hanging
        server.start()
        await until(store.ping, 20)  # the pool reconnects
        assert [m["text"] for m in await store.history(session.id)] == ["before the outage"]
        running = await store.running_turn(session.id)
        assert running is not None and running.client_message_id == "c1"
        other = await store.create_session()
        assert await store.get_session(other.id) == other
    finally:
        await store.close()


async def test_opening_an_unreachable_database_is_unavailable(
    postgres_factory: Callable[[], PostgresServer],
) -> None:
    server = postgres_factory()
    server.stop()
    with pytest.raises(StorageUnavailable, match="storage unavailable"):
        await PostgresStore.open(server.dsn, timeout_s=2.0)
