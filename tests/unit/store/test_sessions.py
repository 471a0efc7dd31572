"""The session store's contract on both backends (``store``: SQLite files and fresh
PostgreSQL databases), and what only the SQLite backend has (``sqlite_store``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from partchat.store import (
    SessionChanged,
    StorageUnavailable,
    StoreError,
    UnknownSession,
    UnknownTurn,
    empty_context,
    new_message_id,
    new_session_id,
    new_turn_id,
)
from partchat.store.postgres import PostgresStore
from partchat.store.records import message_status
from partchat.store.sqlite import SCHEMA_VERSION, SqliteStore, purge_sessions
from tests.support.stores import Backend, Store

URL_SAFE = re.compile(r"[A-Za-z0-9_-]+")
# an answer's status per finish reason, the web client's expectations too (reducer.test.ts)
FINISH_STATUS_CASES = json.loads(
    (Path(__file__).parents[3] / "frontend/src/chat/finishStatus.cases.json").read_text("utf-8")
)["cases"]


class Clock:
    """A settable clock."""

    def __init__(self, now: float = 1_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "sessions.db"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def store(backend: Backend, clock: Clock) -> AsyncIterator[Store]:
    """The store on each backend (see ``backend`` in tests/unit/conftest.py)."""
    s = await backend.open(clock=clock)
    yield s
    await s.close()


@pytest.fixture
async def sqlite_store(db_path: Path, clock: Clock) -> AsyncIterator[SqliteStore]:
    """For the tests of what only SQLite has (pragmas, sqlite3 errors, files)."""
    s = await SqliteStore.open(db_path, clock=clock)
    yield s
    await s.close()


def rows(path: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Read committed data through a separate, plain sqlite3 connection."""
    with sqlite3.connect(path) as conn:
        return list(conn.execute(sql, params))


async def pragma(store: SqliteStore, name: str) -> Any:
    """A pragma's value on the store's own connection."""
    assert store._conn is not None
    return next(iter(await store._conn.execute_fetchall(f"PRAGMA {name}")))[0]


async def cap_pages(store: SqliteStore) -> None:
    """Let the store's database grow no further: a write that needs a new page fails
    with SQLITE_FULL part-way through its statement (as a full disk would)."""
    count = await pragma(store, "page_count")
    assert store._conn is not None
    await store._conn.execute(f"PRAGMA max_page_count = {count}")


async def uncap_pages(store: SqliteStore) -> None:
    assert store._conn is not None
    await store._conn.execute("PRAGMA max_page_count = 1073741823")


def count(path: Path, table: str) -> int:
    return int(rows(path, f"SELECT COUNT(*) FROM {table}")[0][0])


async def finish(
    store: Store,
    turn_id: str,
    text: str = "answer",
    *,
    status: Any = "complete",
    finish_reason: Any = "stop",
    last_seq: int = 5,
    context: dict[str, Any] | None = None,
    tool_outputs: list[dict[str, Any]] | None = None,
) -> str:
    finished = await store.finish_turn(
        turn_id,
        text=text,
        status=status,
        finish_reason=finish_reason,
        tool_outputs=tool_outputs or [],
        context=context or empty_context(),
        last_seq=last_seq,
        timings={"llm_ms": 12.5},
    )
    return finished.message_id


# ----------------------------------------------------------------------------- open


async def test_open_configures_the_database(sqlite_store: SqliteStore, db_path: Path) -> None:
    store = sqlite_store
    assert await store.schema_version() == SCHEMA_VERSION
    assert rows(db_path, "PRAGMA user_version")[0][0] == SCHEMA_VERSION
    assert rows(db_path, "PRAGMA journal_mode")[0][0] == "wal"
    assert await pragma(store, "foreign_keys") == 1
    assert await pragma(store, "synchronous") == 1  # NORMAL
    # Statements run on aiosqlite's thread: waiting for another process's lock is fine.
    assert await pragma(store, "busy_timeout") == 5000
    # Automatic checkpoints (their fsync too) run on that thread, after a commit.
    assert await pragma(store, "wal_autocheckpoint") == 1000


async def test_open_refuses_a_newer_schema(db_path: Path) -> None:
    store = await SqliteStore.open(db_path)
    await store.close()
    with sqlite3.connect(db_path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer"):
        await SqliteStore.open(db_path)


async def test_closed_store_reports_unavailable(backend: Backend) -> None:
    store = await backend.open()
    await store.close()
    await store.close()  # twice is fine
    with pytest.raises(StorageUnavailable):
        await store.create_session()
    with pytest.raises(StorageUnavailable):
        await store.get_session(new_session_id())


# ----------------------------------------------------------------------------- sessions


async def test_create_and_get_session(store: Store, clock: Clock) -> None:
    created = await store.create_session()
    assert created.created_at == created.updated_at == clock.now
    assert created.context == empty_context()
    assert (created.last_seq, created.seq_reserved) == (0, 0)

    got = await store.get_session(created.id)
    assert got == created


async def test_empty_context_is_fresh_each_time() -> None:
    a = empty_context()
    a["symptoms"].append("leaking")
    assert empty_context() == {
        "productModel": None,
        "partNumber": None,
        "symptoms": [],
        "applianceType": None,
    }


@pytest.mark.parametrize(
    "bad_id",
    ["", "short", "a" * 65, "../../etc/passwd", "abc def ghi jkl mno", "x" * 20 + "\n", "é" * 22],
)
async def test_malformed_session_ids_are_none_without_a_query(
    store: Store, monkeypatch: pytest.MonkeyPatch, bad_id: str
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("queried the database for a malformed id")

    if isinstance(store, SqliteStore):
        assert store._conn is not None
        monkeypatch.setattr(store._conn, "execute", boom)
        monkeypatch.setattr(store._conn, "execute_fetchall", boom)
    else:
        assert isinstance(store, PostgresStore)
        monkeypatch.setattr(store, "_run", boom)
    assert await store.get_session(bad_id) is None
    assert await store.running_turn(bad_id) is None
    assert await store.history(bad_id) == []
    assert await store.get_turn(bad_id) is None
    with pytest.raises(UnknownSession):
        await store.begin_turn(bad_id, "c1", "hi", seq_reserved=1)


async def test_unknown_session_id_is_none(store: Store) -> None:
    assert await store.get_session(new_session_id()) is None
    with pytest.raises(UnknownSession):
        await store.begin_turn(new_session_id(), "c1", "hi", seq_reserved=1)
    with pytest.raises(UnknownSession):
        await store.save_context(new_session_id(), empty_context())


async def test_save_context(store: Store, clock: Clock) -> None:
    session = await store.create_session()
    clock.now += 10
    ctx = {**empty_context(), "productModel": "WRS325SDHZ", "symptoms": ["no ice"]}
    await store.save_context(session.id, ctx)
    got = await store.get_session(session.id)
    assert got is not None
    assert got.context == ctx
    assert got.updated_at == clock.now


async def test_session_ids_are_unique_url_safe_and_long() -> None:
    ids = [new_session_id() for _ in range(10_000)]
    assert len(set(ids)) == len(ids)
    assert all(len(i) >= 22 and URL_SAFE.fullmatch(i) for i in ids)
    turn, message = new_turn_id(), new_message_id()
    assert turn.startswith("t_") and URL_SAFE.fullmatch(turn) and len(turn) >= 16
    assert message.startswith("m_") and URL_SAFE.fullmatch(message) and len(message) >= 16


async def test_created_sessions_have_distinct_ids(store: Store) -> None:
    sessions = [await store.create_session() for _ in range(50)]
    assert len({s.id for s in sessions}) == 50


# ----------------------------------------------------------------------------- turns


async def test_begin_turn_stores_user_message(store: Store, backend: Backend, clock: Clock) -> None:
    session = await store.create_session()
    clock.now += 5
    begun = await store.begin_turn(session.id, "client-1", "my ice maker stopped", seq_reserved=7)
    assert begun.duplicate is False
    assert begun.turn.status == "running"
    assert begun.turn.session_id == session.id
    assert begun.turn.client_message_id == "client-1"
    assert begun.turn.finish_reason is None
    assert begun.turn.started_at == clock.now

    # committed: visible through another connection
    assert (await backend.rows("SELECT role, text, status, turn_id FROM messages")) == [
        ("user", "my ice maker stopped", "complete", begun.turn.id)
    ]
    assert await store.get_turn(begun.turn.id) == begun.turn
    assert await store.running_turn(session.id) == begun.turn
    got = await store.get_session(session.id)
    assert got is not None
    assert got.seq_reserved == 7
    assert got.updated_at == clock.now
    assert await store.history(session.id) == [
        {
            "id": begun.user_message_id,
            "role": "user",
            "text": "my ice maker stopped",
            "turnId": begun.turn.id,
            "status": "complete",
            "toolOutputs": [],
        }
    ]


async def test_begin_turn_is_idempotent_on_client_message_id(
    store: Store, backend: Backend
) -> None:
    session = await store.create_session()
    first = await store.begin_turn(session.id, "client-1", "hello", seq_reserved=3)
    again = await store.begin_turn(session.id, "client-1", "hello (resent)", seq_reserved=9)
    assert again.duplicate is True
    assert again.turn == first.turn
    assert again.user_message_id == first.user_message_id
    assert (await backend.count("turns")) == 1
    assert (await backend.count("messages")) == 1
    assert await store.count_user_messages() == 1
    got = await store.get_session(session.id)
    assert got is not None
    assert got.seq_reserved == 3  # the duplicate wrote nothing

    # the same client id in another session is a different message
    other = await store.create_session()
    elsewhere = await store.begin_turn(other.id, "client-1", "hello", seq_reserved=1)
    assert elsewhere.duplicate is False
    assert elsewhere.turn.id != first.turn.id

    # a duplicate of a finished turn returns the finished turn
    await finish(store, first.turn.id)
    done = await store.begin_turn(session.id, "client-1", "hello", seq_reserved=3)
    assert done.duplicate is True
    assert done.turn.status == "complete"


async def test_begin_turn_only_at_version_refuses_a_changed_session(
    store: Store, backend: Backend
) -> None:
    session = await store.create_session()
    version = await store.session_version(session.id)
    assert version is not None
    with pytest.raises(SessionChanged):
        await store.begin_turn(session.id, "c1", "hi", seq_reserved=7, only_at_version=version + 1)
    assert (await backend.count("turns")) == 0  # refused: nothing written
    assert (await backend.count("messages")) == 0
    got = await store.get_session(session.id)
    assert got is not None and got.seq_reserved == 0
    begun = await store.begin_turn(
        session.id, "c1", "hi", seq_reserved=7, expect_version=version, only_at_version=version
    )
    assert begun.duplicate is False
    assert begun.session_version == await store.session_version(session.id)
    # a duplicate is one whatever the version; a stale one never begins a second turn
    again = await store.begin_turn(session.id, "c1", "hi", seq_reserved=7, only_at_version=version)
    assert again.duplicate is True and again.turn == begun.turn
    await finish(store, begun.turn.id)
    with pytest.raises(SessionChanged):
        await store.begin_turn(session.id, "c2", "again", seq_reserved=9, only_at_version=version)
    assert (await backend.count("turns")) == 1


async def test_begin_turn_rejects_bad_client_message_ids(store: Store) -> None:
    session = await store.create_session()
    with pytest.raises(ValueError):
        await store.begin_turn(session.id, "", "hi", seq_reserved=1)
    with pytest.raises(ValueError, match="1-64 characters"):  # the protocol's limit
        await store.begin_turn(session.id, "x" * 65, "hi", seq_reserved=1)
    begun = await store.begin_turn(session.id, "x" * 64, "hi", seq_reserved=1)
    assert begun.duplicate is False


async def test_finish_turn_stores_answer_and_updates_turn_and_session(
    store: Store, backend: Backend, clock: Clock
) -> None:
    session = await store.create_session()
    begun = await store.begin_turn(session.id, "c1", "part for WRS325SDHZ?", seq_reserved=20)
    clock.now += 3
    ctx = {
        "productModel": "WRS325SDHZ",
        "partNumber": "PS11752778",
        "symptoms": ["ice maker not making ice"],
        "applianceType": "refrigerator",
    }
    outputs = [{"toolName": "search_parts", "output": {"parts": [{"partNumber": "PS11752778"}]}}]
    message_id = await finish(
        store, begun.turn.id, "Try PS11752778.", last_seq=17, context=ctx, tool_outputs=outputs
    )
    assert message_id.startswith("m_")

    turn = await store.get_turn(begun.turn.id)
    assert turn is not None
    assert turn.status == "complete"
    assert turn.finish_reason == "stop"
    assert turn.ended_at == clock.now
    assert turn.timings == {"llm_ms": 12.5}
    assert await store.running_turn(session.id) is None

    got = await store.get_session(session.id)
    assert got is not None
    assert got.context == ctx
    assert got.last_seq == 17
    assert got.seq_reserved == 20
    assert got.updated_at == clock.now

    history = await store.history(session.id)
    assert [(m["role"], m["text"], m["status"]) for m in history] == [
        ("user", "part for WRS325SDHZ?", "complete"),
        ("assistant", "Try PS11752778.", "complete"),
    ]
    assert history[1]["id"] == message_id
    assert history[1]["toolOutputs"] == outputs
    assert (await backend.rows("SELECT role FROM messages WHERE id = ?", message_id)) == [
        ("assistant",)
    ]


@pytest.mark.parametrize(
    ("text", "status", "reason", "turn_status"),
    [
        ("The ice maker", "partial", "aborted", "aborted"),
        ("", "failed", "error", "failed"),
        ("Wrapped up at the tool-round cap", "complete", "length", "complete"),
    ],
)
async def test_finish_turn_partial_and_failed(
    store: Store, text: str, status: str, reason: str, turn_status: str
) -> None:
    session = await store.create_session()
    begun = await store.begin_turn(session.id, "c1", "hi", seq_reserved=4)
    await finish(store, begun.turn.id, text, status=status, finish_reason=reason)
    turn = await store.get_turn(begun.turn.id)
    assert turn is not None
    assert (turn.status, turn.finish_reason) == (turn_status, reason)
    answer = (await store.history(session.id))[-1]
    assert (answer["role"], answer["text"], answer["status"]) == ("assistant", text, status)


async def test_finish_turn_twice_is_a_no_op(store: Store, backend: Backend) -> None:
    session = await store.create_session()
    begun = await store.begin_turn(session.id, "c1", "hi", seq_reserved=4)
    first = await finish(store, begun.turn.id, "answer", last_seq=4)
    second = await finish(
        store,
        begun.turn.id,
        "other",
        status="partial",
        finish_reason="error",
        last_seq=99,
        context={**empty_context(), "partNumber": "X"},
    )
    assert second == first
    assert (await backend.count("messages")) == 2
    turn = await store.get_turn(begun.turn.id)
    assert turn is not None
    assert turn.status == "complete"
    got = await store.get_session(session.id)
    assert got is not None
    assert (got.last_seq, got.context) == (4, empty_context())


async def test_finish_turn_validates(store: Store) -> None:
    session = await store.create_session()
    begun = await store.begin_turn(session.id, "c1", "hi", seq_reserved=1)
    with pytest.raises(UnknownTurn):
        await finish(store, "t_" + "a" * 16)
    with pytest.raises(UnknownTurn):
        await finish(store, "nope")
    with pytest.raises(ValueError):
        await finish(store, begun.turn.id, status="done")
    with pytest.raises(ValueError):
        await finish(store, begun.turn.id, finish_reason="timeout")
    turn = await store.get_turn(begun.turn.id)
    assert turn is not None and turn.status == "running"


async def test_last_seq_and_seq_reserved_never_go_back(store: Store) -> None:
    session = await store.create_session()
    t1 = await store.begin_turn(session.id, "c1", "a", seq_reserved=50)
    await finish(store, t1.turn.id, last_seq=40)
    t2 = await store.begin_turn(session.id, "c2", "b", seq_reserved=10)
    await finish(store, t2.turn.id, last_seq=5)
    got = await store.get_session(session.id)
    assert got is not None
    assert (got.last_seq, got.seq_reserved) == (40, 50)


# ----------------------------------------------------------------------------- history


async def test_history_order_and_limit(store: Store, clock: Clock) -> None:
    session = await store.create_session()
    other = await store.create_session()
    expected: list[str] = []
    for i in range(6):
        clock.now -= 1  # a clock going backwards must not reorder history
        begun = await store.begin_turn(session.id, f"c{i}", f"question {i}", seq_reserved=i)
        noise = await store.begin_turn(other.id, f"c{i}", "noise", seq_reserved=i)
        await finish(store, noise.turn.id, "noise")
        await finish(store, begun.turn.id, f"answer {i}")
        expected += [f"question {i}", f"answer {i}"]

    full = await store.history(session.id)
    assert [m["text"] for m in full] == expected
    assert [m["role"] for m in full] == ["user", "assistant"] * 6
    assert [m["text"] for m in await store.history(session.id, limit=3)] == expected[-3:]
    assert [m["text"] for m in await store.history(session.id, limit=100)] == expected
    assert await store.history(session.id, limit=0) == []
    assert await store.history(new_session_id()) == []


async def test_history_with_client_ids_names_user_messages_as_the_client_did(
    store: Store,
) -> None:
    session = await store.create_session()
    first = await store.begin_turn(session.id, "client-1", "question 1", seq_reserved=1)
    await finish(store, first.turn.id, "answer 1")
    second = await store.begin_turn(session.id, "client-2", "question 2", seq_reserved=2)

    own = await store.history(session.id)
    wire = await store.history(session.id, client_ids=True)
    assert [m["id"] for m in own] == [first.user_message_id, own[1]["id"], second.user_message_id]
    assert [m["id"] for m in wire] == ["client-1", own[1]["id"], "client-2"]
    assert [{**m, "id": ""} for m in wire] == [{**m, "id": ""} for m in own]


# ----------------------------------------------------------------------------- restart


async def test_reopen_keeps_sessions_context_and_history(backend: Backend, clock: Clock) -> None:
    store = await backend.open(clock=clock)
    session = await store.create_session()
    begun = await store.begin_turn(session.id, "c1", "dishwasher leaks", seq_reserved=9)
    ctx = {**empty_context(), "applianceType": "dishwasher", "symptoms": ["leaking"]}
    await finish(store, begun.turn.id, "Check the door gasket.", context=ctx, last_seq=8)
    before = await store.history(session.id)
    await store.close()

    reopened = await backend.open(clock=clock)
    try:
        got = await reopened.get_session(session.id)
        assert got is not None
        assert got.context == ctx
        assert (got.last_seq, got.seq_reserved) == (8, 9)
        assert await reopened.history(session.id) == before
        assert len(before) == 2
        turn = await reopened.get_turn(begun.turn.id)
        assert turn is not None and turn.status == "complete"
        # still idempotent after a restart
        again = await reopened.begin_turn(session.id, "c1", "dishwasher leaks", seq_reserved=9)
        assert again.duplicate is True and again.turn.id == begun.turn.id
    finally:
        await reopened.close()


async def test_mark_interrupted_after_a_crash(backend: Backend, clock: Clock) -> None:
    store = await backend.open(clock=clock)
    session = await store.create_session()
    done = await store.begin_turn(session.id, "c0", "first", seq_reserved=2)
    await finish(store, done.turn.id, "fine")
    crashed = await store.begin_turn(session.id, "c1", "second", seq_reserved=6)
    await store.close()  # the process dies mid-turn: finish_turn never runs

    clock.now += 60
    store = await backend.open(clock=clock)
    try:
        assert await store.running_turn(session.id) is not None
        assert await store.mark_interrupted() == 1
        assert await store.mark_interrupted() == 0
        turn = await store.get_turn(crashed.turn.id)
        assert turn is not None
        assert turn.status == "interrupted"
        assert turn.ended_at == clock.now
        assert await store.running_turn(session.id) is None
        history = await store.history(session.id)
        assert [(m["role"], m["text"], m["status"]) for m in history] == [
            ("user", "first", "complete"),
            ("assistant", "fine", "complete"),
            ("user", "second", "complete"),
            ("assistant", "", "interrupted"),
        ]
        # a late finish_turn for the interrupted turn changes nothing
        assert await finish(store, crashed.turn.id, "late") == history[-1]["id"]
        assert len(await store.history(session.id)) == 4
    finally:
        await store.close()


# ----------------------------------------------------------------------------- purge


async def test_purge_by_age(backend: Backend, clock: Clock) -> None:
    store = await backend.open(clock=clock)
    clock.now = 0.0
    old = await store.create_session()
    t = await store.begin_turn(old.id, "c1", "old question", seq_reserved=1)
    await finish(store, t.turn.id, "old answer")
    clock.now = 100.0
    fresh = await store.create_session()
    await store.begin_turn(fresh.id, "c1", "new question", seq_reserved=1)

    clock.now = 200.0
    assert await store.purge_older_than(150) == 1
    assert await store.get_session(old.id) is None
    assert await store.get_session(fresh.id) is not None
    assert await store.history(old.id) == []
    assert (await backend.rows("SELECT COUNT(*) FROM turns WHERE session_id = ?", old.id)) == [(0,)]
    assert (await backend.count("messages")) == 1
    assert await store.purge_older_than(150) == 0
    with pytest.raises(ValueError):
        await store.purge_older_than(-1)
    await store.close()


async def test_purge_sessions_of_a_sqlite_file(db_path: Path, clock: Clock) -> None:
    """The CLI's convenience function: a missing database is not created."""
    store = await SqliteStore.open(db_path, clock=clock)
    await store.create_session()
    await store.close()
    assert await purge_sessions(db_path, 50, clock=Clock(clock.now + 100)) == 1
    assert count(db_path, "sessions") == 0
    missing = db_path.parent / "missing.db"
    assert await purge_sessions(missing, 0) == 0
    assert not missing.exists()


# ----------------------------------------------------------------------------- failures


async def test_a_start_refused_by_a_turn_that_then_ends_goes_through(
    sqlite_store: SqliteStore, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """begin_turn's statement is refused while another process's turn runs; when that
    turn has ended by the time the refusal is looked into (under the write lock), the
    turn starts there and then."""
    store = sqlite_store
    other = await SqliteStore.open(db_path)
    try:
        session = await store.create_session()
        running = await other.begin_turn(
            session.id, "c1", "hi", seq_reserved=10, owner="w_process_a_0001"
        )
        real_write = store._write

        async def write(work: Any, *, single: bool = False) -> Any:
            if not single:  # the refusal's unit: the other turn ends just before it
                await finish(other, running.turn.id)
            return await real_write(work, single=single)

        monkeypatch.setattr(store, "_write", write)
        begun = await store.begin_turn(
            session.id, "c2", "again", seq_reserved=20, owner="w_process_b_0001"
        )
    finally:
        await other.close()
    assert not begun.duplicate and begun.turn.owner == "w_process_b_0001"
    assert [m["text"] for m in await store.history(session.id)] == ["hi", "answer", "again"]


async def test_begin_turn_disk_full_leaves_nothing(
    sqlite_store: SqliteStore, db_path: Path
) -> None:
    store = sqlite_store
    session = await store.create_session()
    await cap_pages(store)
    # The user message is written last, after the session's reservation and the turn
    # row: it needs new pages, and the whole statement is undone.
    with pytest.raises(StorageUnavailable, match="storage is full") as info:
        await store.begin_turn(session.id, "c1", "x" * 200_000, seq_reserved=5)
    assert isinstance(info.value.__cause__, sqlite3.OperationalError)
    assert count(db_path, "turns") == 0
    assert count(db_path, "messages") == 0
    got = await store.get_session(session.id)
    assert got is not None and got.seq_reserved == 0 and got.version == session.version

    # the connection is not left inside a transaction: the retry goes through
    await uncap_pages(store)
    begun = await store.begin_turn(session.id, "c1", "x" * 200_000, seq_reserved=5)
    assert begun.duplicate is False
    assert count(db_path, "turns") == 1


async def test_finish_turn_failure_rolls_back(sqlite_store: SqliteStore, db_path: Path) -> None:
    store = sqlite_store
    session = await store.create_session()
    begun = await store.begin_turn(session.id, "c1", "hello", seq_reserved=5)
    before = await store.get_session(session.id)
    await cap_pages(store)
    # The answer is written after the turn's status: it needs new pages.
    with pytest.raises(StorageUnavailable, match="storage is full"):
        await finish(store, begun.turn.id, "y" * 200_000, context={"brand": "Whirlpool"})
    assert count(db_path, "messages") == 1
    turn = await store.get_turn(begun.turn.id)
    assert turn is not None and turn.status == "running"
    assert await store.get_session(session.id) == before
    # and it can be retried
    await uncap_pages(store)
    await finish(store, begun.turn.id, "y" * 200_000)
    assert count(db_path, "messages") == 2


async def test_query_only_connection_refuses_writes(
    sqlite_store: SqliteStore, db_path: Path
) -> None:
    store = sqlite_store
    session = await store.create_session()
    begun = await store.begin_turn(session.id, "c1", "hello", seq_reserved=1)
    assert store._conn is not None
    await store._conn.execute("PRAGMA query_only = ON")
    with pytest.raises(StorageUnavailable, match="read-only"):
        await store.begin_turn(session.id, "c2", "again", seq_reserved=2)
    with pytest.raises(StorageUnavailable):
        await finish(store, begun.turn.id)
    assert count(db_path, "turns") == 1
    assert count(db_path, "messages") == 1
    assert len(await store.history(session.id)) == 1  # reads still work


async def test_readonly_store(db_path: Path) -> None:
    writer = await SqliteStore.open(db_path)
    session = await writer.create_session()
    await writer.close()

    reader = await SqliteStore.open(db_path, readonly=True)
    try:
        got = await reader.get_session(session.id)
        assert got is not None and got.id == session.id
        with pytest.raises(StorageUnavailable):
            await reader.begin_turn(session.id, "c1", "hello", seq_reserved=1)
        with pytest.raises(StorageUnavailable):
            await reader.create_session()
    finally:
        await reader.close()
    assert count(db_path, "turns") == 0


async def test_readonly_open_of_a_missing_file_fails(tmp_path: Path) -> None:
    with pytest.raises(StorageUnavailable):
        await SqliteStore.open(tmp_path / "nothing.db", readonly=True)


async def test_locked_database_is_unavailable(db_path: Path) -> None:
    store = await SqliteStore.open(db_path, busy_timeout_ms=50)
    session = await store.create_session()
    other = sqlite3.connect(db_path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        with pytest.raises(StorageUnavailable, match="busy"):
            await store.begin_turn(session.id, "c1", "hello", seq_reserved=1)
        other.execute("ROLLBACK")
        begun = await store.begin_turn(session.id, "c1", "hello", seq_reserved=1)
        assert begun.duplicate is False
    finally:
        other.close()
        await store.close()


async def test_cancelled_begin_turn_is_all_or_nothing(store: Store, backend: Backend) -> None:
    session = await store.create_session()
    for n in range(30):  # cancel before, during and after the transaction
        task = asyncio.create_task(
            store.begin_turn(session.id, f"c{n}", "hello", seq_reserved=n + 1)
        )
        for _ in range(n):
            await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        # one snapshot: a cancelled unit may still be committing (it runs to the end)
        counts = await backend.rows(
            "SELECT (SELECT COUNT(*) FROM turns),"
            " (SELECT COUNT(*) FROM messages WHERE role = 'user')"
        )
        assert counts[0][0] == counts[0][1]
        if isinstance(store, PostgresStore):  # units run on the pool's connections
            await asyncio.gather(*store._units, return_exceptions=True)
        # a turn that was stored runs: close it (PostgreSQL allows one running per session)
        running = await store.running_turn(session.id)
        if running is not None:
            await finish(store, running.id)
    # the store still works and nothing is left open
    begun = await store.begin_turn(session.id, "final", "hello", seq_reserved=99)
    assert begun.duplicate is False
    assert await backend.count("messages") == 2 * await backend.count("turns") - 1


# ----------------------------------------------------------------------------- concurrency


async def test_concurrent_turns_on_different_sessions(store: Store, backend: Backend) -> None:
    sessions = await asyncio.gather(*(store.create_session() for _ in range(200)))
    begun = await asyncio.gather(
        *(
            store.begin_turn(s.id, "c1", f"question {i}", seq_reserved=i)
            for i, s in enumerate(sessions)
        )
    )
    assert all(not b.duplicate for b in begun)
    assert len({b.turn.id for b in begun}) == 200
    assert await store.count_user_messages() == 200

    await asyncio.gather(*(finish(store, b.turn.id, f"answer {i}") for i, b in enumerate(begun)))
    assert (await backend.count("messages")) == 400
    assert (await backend.rows("SELECT COUNT(*) FROM turns WHERE status = 'complete'")) == [(200,)]
    for i, s in enumerate(sessions[:5]):
        assert [m["text"] for m in await store.history(s.id)] == [f"question {i}", f"answer {i}"]


async def test_a_write_waiting_for_another_process_does_not_stall_the_loop(
    db_path: Path,
) -> None:
    store = await SqliteStore.open(db_path)
    session = await store.create_session()
    other = sqlite3.connect(db_path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        task = asyncio.create_task(store.begin_turn(session.id, "c1", "hello", seq_reserved=1))
        ticks = 0
        for _ in range(20):  # the loop keeps running while begin_turn waits
            await asyncio.sleep(0.005)
            ticks += 1
        assert not task.done() and ticks == 20
        other.execute("ROLLBACK")
        begun = await asyncio.wait_for(task, 5)
        assert begun.duplicate is False and count(db_path, "turns") == 1
    finally:
        other.close()
        await store.close()


async def test_returned_session_versions_match_the_stored_ones(store: Store) -> None:
    session = await store.create_session()
    begun = await store.begin_turn(session.id, "c1", "hi", seq_reserved=1, expect_version=0)
    assert begun.session_version == await store.session_version(session.id)
    saved = await store.save_context(
        session.id, empty_context(), expect_version=begun.session_version
    )
    assert saved == await store.session_version(session.id)
    again = await store.begin_turn(session.id, "c1", "hi", seq_reserved=1, expect_version=saved)
    assert again.duplicate and again.session_version == saved
    finished = await store.finish_turn(
        begun.turn.id,
        text="answer",
        status="complete",
        finish_reason="stop",
        tool_outputs=[],
        context=empty_context(),
        last_seq=3,
        timings={},
        expect_version=saved,
    )
    assert finished.session_version == await store.session_version(session.id)
    assert await store.save_context(session.id, empty_context(), expect_version=0) is None


async def test_ping(backend: Backend) -> None:
    store = await backend.open()
    await store.ping()
    await store.close()
    with pytest.raises(StorageUnavailable, match="closed"):
        await store.ping()


@pytest.mark.parametrize(
    "case", FINISH_STATUS_CASES, ids=lambda c: f"{c['finishReason']}-{bool(c['text'])}"
)
async def test_stored_status_of_each_finish_reason_is_the_one_the_client_shows(
    store: Store, case: dict[str, str]
) -> None:
    """The store keeps the status the web client shows live (finishStatus.cases.json), so
    a badge does not change on reload; a finish_turn with another status is refused."""
    reason, text = case["finishReason"], case["text"]
    assert message_status(reason, text) == case["status"]  # type: ignore[arg-type]
    session = await store.create_session()
    begun = await store.begin_turn(session.id, "c1", "hi", seq_reserved=4)
    other = next(s for s in ("complete", "partial", "failed") if s != case["status"])
    with pytest.raises(ValueError, match="status"):
        await finish(store, begun.turn.id, text, status=other, finish_reason=reason)
    await finish(store, begun.turn.id, text, status=case["status"], finish_reason=reason)
    answer = (await store.history(session.id))[-1]
    assert (answer["role"], answer["text"], answer["status"]) == ("assistant", text, case["status"])
