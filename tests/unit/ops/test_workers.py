"""Several server processes on one sessions.db: turn ownership, heartbeats, who is dead.

Two stores on one database stand in for two processes: two ``SqliteStore`` connections on
one file (SQLite sees them as separate writers exactly as it would two processes), or two
``PostgresStore`` pools on one PostgreSQL database.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from partchat.ops.metrics import Metrics
from partchat.ops.workers import WorkerRegistry, new_boot_id
from partchat.store import TurnRunningElsewhere, WorkerRecord, empty_context
from partchat.store.sqlite import MIGRATIONS as SQLITE_MIGRATIONS
from partchat.store.sqlite import SCHEMA_VERSION, SqliteStore
from partchat.turns.engine import TurnEngine
from tests.support.stores import Backend, Store

pytestmark = pytest.mark.timeout(30)

HOST = "test-host|pid:[1]"


class Clock:
    def __init__(self, now: float = 10_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Pids:
    """A fake process table for the same-host pid rule."""

    def __init__(self, *alive: int) -> None:
        self.alive = set(alive)

    def __call__(self, pid: int) -> bool:
        return pid in self.alive


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "sessions.db"


@pytest.fixture
async def stores(backend: Backend, clock: Clock) -> AsyncIterator[tuple[Store, Store]]:
    """Two stores on one database, as two server processes have (on each backend)."""
    a = await backend.open(clock=clock)
    b = await backend.open(clock=clock)
    yield a, b
    await a.close()
    await b.close()


def registry(store: Store, pid: int, pids: Pids, host: str = HOST) -> WorkerRegistry:
    return WorkerRegistry(store, heartbeat_s=5.0, pid=pid, host=host, is_pid_alive=pids)


def rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return list(conn.execute(sql))


async def finish(store: Store, turn_id: str, last_seq: int) -> str:
    finished = await store.finish_turn(
        turn_id,
        text="done",
        status="complete",
        finish_reason="stop",
        tool_outputs=[],
        context=empty_context(),
        last_seq=last_seq,
        timings={},
    )
    return finished.message_id


# ----------------------------------------------------------------------------- schema


async def test_a_version_1_database_migrates_and_keeps_its_turns(db_path: Path) -> None:
    with sqlite3.connect(db_path) as conn:
        for statement in SQLITE_MIGRATIONS[0]:
            conn.execute(statement)
        conn.execute("PRAGMA user_version = 1")
        conn.execute(
            "INSERT INTO sessions VALUES ('s_legacy_session_01', 1.0, 1.0, '{}', 3, 100003)"
        )
        conn.execute(
            "INSERT INTO turns (id, session_id, client_message_id, status, started_at)"
            " VALUES ('t_legacy_turn_00001', 's_legacy_session_01', 'c1', 'running', 2.0)"
        )
    store = await SqliteStore.open(db_path)
    try:
        assert await store.schema_version() == SCHEMA_VERSION
        session = await store.get_session("s_legacy_session_01")
        assert session is not None and (session.last_seq, session.version) == (3, 0)
        turn = await store.get_turn("t_legacy_turn_00001")
        assert turn is not None and turn.status == "running" and turn.owner is None
        assert await store.workers() == []
        # A legacy turn has no owner: only an explicit ``unowned`` sweep closes it.
        assert await store.mark_interrupted(["w_someone_else_123"]) == 0
        assert await store.mark_interrupted((), unowned=True) == 1
        turn = await store.get_turn("t_legacy_turn_00001")
        assert turn is not None and turn.status == "interrupted"
    finally:
        await store.close()


# ----------------------------------------------------------------------------- store


async def test_begin_turn_records_the_owner_and_refuses_a_second_process(
    stores: tuple[Store, Store], backend: Backend
) -> None:
    a, b = stores
    session = await a.create_session()
    first = await a.begin_turn(session.id, "c1", "hi", seq_reserved=10, owner="w_process_a_0001")
    assert first.turn.owner == "w_process_a_0001"
    got = await b.get_turn(first.turn.id)
    assert got is not None and got.owner == "w_process_a_0001"

    with pytest.raises(TurnRunningElsewhere) as refused:
        await b.begin_turn(session.id, "c2", "again", seq_reserved=20, owner="w_process_b_0001")
    assert refused.value.turn.id == first.turn.id
    assert refused.value.turn.owner == "w_process_a_0001"
    # Nothing was written: no message, no seq reservation.
    assert len(await b.history(session.id)) == 1
    record = await b.get_session(session.id)
    assert record is not None and record.seq_reserved == 10

    # The same client message id is a duplicate, whichever process sees it.
    again = await b.begin_turn(session.id, "c1", "hi", seq_reserved=20, owner="w_process_b_0001")
    assert again.duplicate and again.turn.id == first.turn.id

    # Once A's turn is finished, B may start one.
    await finish(a, first.turn.id, last_seq=5)
    second = await b.begin_turn(
        session.id, "c2", "again", seq_reserved=20, owner="w_process_b_0001"
    )
    assert not second.duplicate and second.turn.owner == "w_process_b_0001"


async def test_mark_interrupted_closes_only_the_given_owners(
    stores: tuple[Store, Store],
) -> None:
    store, _ = stores
    turns = {}
    for owner in ("w_owner_a_000001", "w_owner_b_000001", None):
        session = await store.create_session()
        begun = await store.begin_turn(session.id, "c", "q", seq_reserved=1, owner=owner)
        turns[owner] = begun.turn.id

    async def status(owner: str | None) -> str:
        turn = await store.get_turn(turns[owner])
        assert turn is not None
        return turn.status

    assert await store.mark_interrupted([]) == 0
    assert await store.mark_interrupted(["w_owner_a_000001"]) == 1
    assert [await status(o) for o in turns] == ["interrupted", "running", "running"]
    assert await store.mark_interrupted([], unowned=True) == 1
    assert [await status(o) for o in turns] == ["interrupted", "running", "interrupted"]
    assert await store.mark_interrupted() == 1  # no owners given: every running turn
    assert await status("w_owner_b_000001") == "interrupted"
    history = await store.history((await store.get_turn(turns[None])).session_id)  # type: ignore[union-attr]
    assert [(m["role"], m["status"]) for m in history] == [
        ("user", "complete"),
        ("assistant", "interrupted"),
    ]


async def test_heartbeat_rows_and_running_owners(stores: tuple[Store, Store], clock: Clock) -> None:
    a, b = stores
    await a.heartbeat("w_process_a_0001", pid=11, host=HOST)
    clock.now += 3
    await a.heartbeat("w_process_a_0001", pid=11, host=HOST)  # the same row, refreshed
    assert await b.workers() == [
        WorkerRecord("w_process_a_0001", 11, HOST, clock.now - 3, clock.now)
    ]
    session = await a.create_session()
    await a.begin_turn(session.id, "c", "q", seq_reserved=1, owner="w_process_a_0001")
    other = await a.create_session()
    await a.begin_turn(other.id, "c", "q", seq_reserved=1, owner="w_gone_without_row")
    legacy = await a.create_session()
    await a.begin_turn(legacy.id, "c", "q", seq_reserved=1)
    owners = await b.running_owners()
    assert owners == {
        "w_process_a_0001": WorkerRecord("w_process_a_0001", 11, HOST, clock.now - 3, clock.now),
        "w_gone_without_row": None,
    }
    assert await b.get_worker("w_process_a_0001") == owners["w_process_a_0001"]
    assert await b.forget_workers(["w_process_a_0001", "w_not_there_00001"]) == 1
    assert await a.get_worker("w_process_a_0001") is None


async def test_data_version_moves_only_for_another_connections_commits(
    stores: tuple[Store, Store],
) -> None:
    a, b = stores
    start = await a.data_version()
    await a.create_session()
    assert await a.data_version() == start  # our own write
    await b.create_session()
    moved = await a.data_version()
    assert moved != start  # another process's write
    assert await a.data_version() == moved


async def test_a_session_version_moves_with_every_write_to_that_session_only(
    stores: tuple[Store, Store],
) -> None:
    a, b = stores
    session = await a.create_session()
    other = await b.create_session()
    assert session.version == 0
    seen = [await a.session_version(session.id)]

    async def moved() -> bool:
        now = await a.session_version(session.id)
        grew = now is not None and now > seen[-1]  # type: ignore[operator]
        seen.append(now)
        return grew

    await b.save_context(session.id, {**empty_context(), "productModel": "WRS325SDHZ"})
    assert await moved()
    begun = await b.begin_turn(session.id, "c1", "hello", seq_reserved=5, owner="w_b")
    assert await moved()
    await finish(b, begun.turn.id, 3)
    assert await moved()
    await b.begin_turn(session.id, "c2", "again", seq_reserved=6, owner="w_b")
    assert await moved()
    await b.mark_interrupted(["w_b"])
    assert await moved()
    # writes to another session, and a repeated message (nothing written), leave it alone
    await b.save_context(other.id, empty_context())
    await b.begin_turn(other.id, "c1", "hello", seq_reserved=5)
    await b.begin_turn(session.id, "c1", "hello", seq_reserved=5, owner="w_b")
    assert not await moved()
    record = await a.get_session(session.id)
    assert record is not None and record.version == seen[-1]
    assert await a.session_version("s_no_such_session_0") is None


async def test_a_write_returns_the_version_only_when_nobody_wrote_in_between(
    stores: tuple[Store, Store],
) -> None:
    a, b = stores
    session = await a.create_session()
    begun = await a.begin_turn(session.id, "c1", "hi", seq_reserved=5, expect_version=0)
    assert begun.session_version == await a.session_version(session.id)
    assert begun.session_version is not None and begun.session_version > 0
    saved = await a.save_context(session.id, empty_context(), expect_version=begun.session_version)
    assert saved == await a.session_version(session.id)
    await b.save_context(session.id, {**empty_context(), "partNumber": "PS11752778"})
    done = await a.finish_turn(
        begun.turn.id,
        text="done",
        status="complete",
        finish_reason="stop",
        tool_outputs=[],
        context=empty_context(),
        last_seq=2,
        timings={},
        expect_version=saved,
    )
    assert done.session_version is None  # B wrote the session since A's view of it
    assert (await a.save_context(session.id, empty_context())) is None  # nothing expected


# ----------------------------------------------------------------------------- the rule


async def test_liveness_rule(stores: tuple[Store, Store], clock: Clock) -> None:
    store, _ = stores
    me = registry(store, pid=100, pids=Pids(100, 200))
    now = clock.now

    def worker(pid: int, host: str = HOST, age: float = 1.0) -> WorkerRecord:
        return WorkerRecord(new_boot_id(), pid, host, now - 60, now - age)

    assert me.stale_after == 15.0
    assert me.is_alive(worker(200), now)  # same host, pid exists, fresh
    assert not me.is_alive(worker(300), now)  # same host, pid gone: kill -9, restart
    assert not me.is_alive(worker(100), now)  # our pid, another boot: a restarted container
    assert not me.is_alive(worker(200, age=16), now)  # heartbeat stale
    assert me.is_alive(worker(300, host="other|pid:[2]"), now)  # other host: trust the beat
    assert not me.is_alive(worker(300, host="other|pid:[2]", age=16), now)
    assert not me.is_alive(None, now)
    assert me.is_alive(WorkerRecord(me.boot_id, 1, "x", 0, 0), now)  # ourselves, always
    assert not await me.owner_alive(None)  # a legacy turn has no live owner
    assert not await me.owner_alive("w_never_registered")
    assert await me.owner_alive(me.boot_id)


async def test_starting_next_to_a_live_process_leaves_its_turn_alone(
    stores: tuple[Store, Store], clock: Clock, backend: Backend
) -> None:
    a_store, b_store = stores
    pids = Pids(100, 200)
    a = registry(a_store, pid=100, pids=pids)
    await a.heartbeat()
    session = await a_store.create_session()
    running = await a_store.begin_turn(session.id, "c", "q", seq_reserved=1, owner=a.boot_id)
    legacy_session = await a_store.create_session()
    legacy = await a_store.begin_turn(legacy_session.id, "c", "q", seq_reserved=1)

    b = registry(b_store, pid=200, pids=pids)
    try:
        assert await b.start() == 1  # the legacy (unowned) turn only
        assert (await b_store.get_turn(running.turn.id)).status == "running"  # type: ignore[union-attr]
        assert (await b_store.get_turn(legacy.turn.id)).status == "interrupted"  # type: ignore[union-attr]
        assert {w.boot_id for w in await b_store.workers()} == {a.boot_id, b.boot_id}

        # A keeps beating: B's periodic reaps leave its turn alone.
        for _ in range(3):
            clock.now += 5
            await a.heartbeat()
            assert await b.reap() == 0

        # A stops beating (frozen, or on another host): stale after 3 beats.
        clock.now += 15.5
        await b.heartbeat()
        assert await b.reap() == 1
        assert (await b_store.get_turn(running.turn.id)).status == "interrupted"  # type: ignore[union-attr]
        assert [w.boot_id for w in await b_store.workers()] == [b.boot_id]  # A's row forgotten
    finally:
        await b.stop()
    assert await backend.rows("SELECT COUNT(*) FROM workers") == [(0,)]  # clean shutdown


async def test_a_killed_process_is_found_dead_at_once_by_its_pid(
    stores: tuple[Store, Store],
) -> None:
    a_store, b_store = stores
    pids = Pids(100, 200)
    a = registry(a_store, pid=100, pids=pids)
    await a.heartbeat()
    session = await a_store.create_session()
    running = await a_store.begin_turn(session.id, "c", "q", seq_reserved=1, owner=a.boot_id)
    pids.alive.discard(100)  # kill -9: the heartbeat is still fresh, the pid is gone
    b = registry(b_store, pid=200, pids=pids)
    assert await b.reap() == 1
    assert (await b_store.get_turn(running.turn.id)).status == "interrupted"  # type: ignore[union-attr]


async def test_the_heartbeat_task_reaps_until_stopped(
    stores: tuple[Store, Store],
) -> None:
    a_store, b_store = stores
    b = WorkerRegistry(b_store, heartbeat_s=0.05, is_pid_alive=Pids())
    await b.start()
    try:
        # A process of the same host dies after B started: only B's loop can notice.
        dead = WorkerRegistry(a_store, boot_id="w_dead_process_01", pid=12345, host=b.host)
        await dead.heartbeat()
        session = await a_store.create_session()
        begun = await a_store.begin_turn(session.id, "c", "q", seq_reserved=1, owner=dead.boot_id)
        status, remembered = "running", True
        # Up to 20 s: B's loop may run late on a loaded machine. A reap marks the turns
        # and then forgets the rows, two writes: wait for both, not just the first.
        for _ in range(1000):
            turn = await b_store.get_turn(begun.turn.id)
            assert turn is not None
            status = turn.status
            remembered = await b_store.get_worker(dead.boot_id) is not None
            if status != "running" and not remembered:
                break
            await asyncio.sleep(0.02)
        assert status == "interrupted"
        assert not remembered  # forgotten
        assert await b_store.get_worker(b.boot_id) is not None
    finally:
        await b.stop()
    assert await b_store.get_worker(b.boot_id) is None


# ----------------------------------------------------------------------------- engine


class GatedGraph:
    """Stands in for the compiled graph: streams nothing until released."""

    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def astream(
        self, state: Any, config: Any = None, stream_mode: Any = None
    ) -> AsyncIterator[Any]:
        await self.release.wait()
        return
        yield  # an async generator


class Recorder:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def deliver(self, seq: int, frame: str) -> None:
        self.events.append(json.loads(frame))


async def test_a_turn_running_in_another_process_is_reported_and_blocks_a_second(
    stores: tuple[Store, Store],
) -> None:
    a_store, b_store = stores
    pids = Pids(100, 200)
    graph = GatedGraph()
    a_workers, b_workers = registry(a_store, 100, pids), registry(b_store, 200, pids)
    await a_workers.heartbeat()
    await b_workers.heartbeat()
    a = TurnEngine(a_store, graph, Metrics(), workers=a_workers)  # type: ignore[arg-type]
    b = TurnEngine(b_store, GatedGraph(), Metrics(), workers=b_workers)  # type: ignore[arg-type]

    a_hub, _ = await a.open_session(None)
    sid = a_hub.session_id
    first = await a.submit(a_hub, "m-1", "one")
    assert first.status == "started"

    # B sees the session, the user message, and that the turn runs elsewhere.
    b_hub, resumed = await b.open_session(sid)
    assert resumed and b_hub.turn is None
    assert b_hub.elsewhere is not None and b_hub.elsewhere.id == first.turn_id
    assert [m["id"] for m in b_hub.history] == ["m-1"]
    assert b_hub.last_seq == 0  # before A's turn: resuming on A replays it from its start

    # A message on B is refused and not stored; the HTTP-style path too.
    refused = await b.submit(b_hub, "m-2", "two")
    assert (refused.status, refused.elsewhere) == ("busy", True)
    assert len(await b_store.history(sid)) == 1
    assert await b.current_hub(sid) is None  # stale: re-read before use

    # A finishes; B's next look shows the answer and lets the session go on.
    graph.release.set()
    assert a_hub.turn is not None and a_hub.turn.task is not None
    await asyncio.wait_for(a_hub.turn.task, 5)
    again, _ = await b.open_session(sid)
    assert again is b_hub and again.elsewhere is None
    assert [(m["role"], m.get("status")) for m in again.history] == [
        ("user", "complete"),
        ("assistant", "complete"),
    ]
    assert again.last_seq == a_hub.last_seq == 2  # start, finish
    sub = Recorder()
    b.subscribe(again, sub)
    second = await b.submit(again, "m-2", "two")
    assert second.status == "started"
    assert sub.events[0]["type"] == "start" and sub.events[0]["seq"] == 3  # no seq reused
    await b.shutdown(0.1)

    # And A, whose hub is now behind, re-reads before it starts the next turn.
    third = await a.submit(a_hub, "m-3", "three")
    assert third.status == "started"
    assert [m["id"] for m in a_hub.history if m["role"] == "user"] == ["m-1", "m-2", "m-3"]
    assert a_hub.last_seq == 5  # after B's start (3) and finish (4)
    await a.shutdown(0.1)


async def test_a_hub_is_read_again_only_when_another_process_wrote_its_session(
    stores: tuple[Store, Store],
) -> None:
    a_store, b_store = stores
    pids = Pids(100, 200)
    graph = GatedGraph()
    graph.release.set()
    a_workers, b_workers = registry(a_store, 100, pids), registry(b_store, 200, pids)
    await a_workers.heartbeat()
    await b_workers.heartbeat()
    a = TurnEngine(a_store, graph, Metrics(), workers=a_workers)  # type: ignore[arg-type]
    reads: list[str] = []
    snapshot = a._snapshot

    async def counted(session_id: str, **kw: Any) -> Any:
        reads.append(session_id)
        return await snapshot(session_id, **kw)

    a._snapshot = counted  # type: ignore[method-assign]
    hub, _ = await a.open_session(None)

    async def turn(message_id: str) -> None:
        started = await a.submit(hub, message_id, "question")
        assert started.status == "started"
        assert hub.turn is not None and hub.turn.task is not None
        await asyncio.wait_for(hub.turn.task, 5)

    await turn("m-1")
    await turn("m-2")
    # another process commits, to other sessions: data_version moves, this session's not
    elsewhere = await b_store.create_session()
    await b_store.save_context(elsewhere.id, empty_context())
    await turn("m-3")
    assert reads == []
    # another process writes this session: the hub is read again before the next turn
    await b_store.save_context(hub.session_id, {**empty_context(), "productModel": "WDT780SAEM1"})
    await turn("m-4")
    assert reads == [hub.session_id]
    assert hub.context["productModel"] == "WDT780SAEM1"
    assert [m["id"] for m in hub.history if m["role"] == "user"] == ["m-1", "m-2", "m-3", "m-4"]
    await a.shutdown(0.1)


async def test_a_turn_left_by_a_dead_process_is_interrupted_when_its_session_is_opened(
    stores: tuple[Store, Store],
) -> None:
    a_store, b_store = stores
    pids = Pids(100, 200)
    a_workers, b_workers = registry(a_store, 100, pids), registry(b_store, 200, pids)
    await a_workers.heartbeat()
    a = TurnEngine(a_store, GatedGraph(), Metrics(), workers=a_workers)  # type: ignore[arg-type]
    b = TurnEngine(b_store, GatedGraph(), Metrics(), workers=b_workers)  # type: ignore[arg-type]
    a_hub, _ = await a.open_session(None)
    started = await a.submit(a_hub, "m-1", "one")
    pids.alive.discard(100)  # A is killed

    b_hub, _ = await b.open_session(a_hub.session_id)
    assert b_hub.elsewhere is None
    assert [(m["role"], m.get("status")) for m in b_hub.history] == [
        ("user", "complete"),
        ("assistant", "interrupted"),
    ]
    turn = await b_store.get_turn(started.turn_id or "")
    assert turn is not None and turn.status == "interrupted"
    assert (await b.submit(b_hub, "m-2", "two")).status == "started"
    await b.shutdown(0.1)
    await a.shutdown(0.1)  # the "dead" process's late answer is not stored
    assert (await b_store.get_turn(started.turn_id or "")).status == "interrupted"  # type: ignore[union-attr]
