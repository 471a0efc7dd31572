"""LoopSqlite (units inline on the event loop, a worker thread when they would block it)
against real SQLite files. Write units stand in for another connection's lock and for
units that must be re-runnable after an interrupt."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from partchat.catalog.loop_sqlite import ClosedError, LoopConnection, LoopSqlite

T = TypeVar("T")

# ~1 s of sqlite work on the loop: far past any budget below, done in well under a second
SLOW_COUNT = 1_000_000
SLOW_SQL = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) "
    "SELECT count(*) FROM c"
)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A WAL database with one table (``v`` unique), no connection left open."""
    path = tmp_path / "t.db"
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        assert conn.execute("PRAGMA journal_mode = WAL").fetchone()[0] == "wal"
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)")
    finally:
        conn.close()
    return path


@pytest.fixture
async def open_db(db_path: Path) -> AsyncIterator[Callable[..., LoopSqlite]]:
    """``open_db(**kwargs)``: a LoopSqlite on ``db_path``, closed after the test."""
    opened: list[LoopSqlite] = []

    def make(busy_timeout_ms: int = 5000, inline_budget_ms: float = 20.0) -> LoopSqlite:
        db = LoopSqlite.connect(
            str(db_path), busy_timeout_ms=busy_timeout_ms, inline_budget_ms=inline_budget_ms
        )
        opened.append(db)
        return db

    yield make
    for db in opened:
        await db.close()


@pytest.fixture
def other(db_path: Path) -> Iterator[sqlite3.Connection]:
    """A second, plain connection to the same database (another process's, in effect)."""
    conn = sqlite3.connect(db_path, isolation_level=None, timeout=0)
    yield conn
    if conn.in_transaction:
        conn.execute("ROLLBACK")
    conn.close()


def in_transaction(work: Callable[[LoopConnection], T]) -> Callable[[LoopConnection], T]:
    """``work`` as a re-runnable write unit: any exception rolls back first."""

    def unit(conn: LoopConnection) -> T:
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = work(conn)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):  # sqlite may have rolled back
                    conn.execute("ROLLBACK")
            raise
        return result

    return unit


def values(path: Path) -> list[str]:
    """Committed rows, read through a fresh connection."""
    conn = sqlite3.connect(path)
    try:
        return [v for (v,) in conn.execute("SELECT v FROM t ORDER BY id")]
    finally:
        conn.close()


# ------------------------------------------------------------------------- inline


async def test_inline_unit_runs_on_the_loop_thread(open_db: Callable[..., LoopSqlite]) -> None:
    db = open_db()
    threads: list[int] = []

    def unit(conn: LoopConnection) -> int:
        threads.append(threading.get_ident())
        return int(conn.execute("SELECT 40 + 2").fetchone()[0])

    assert await db.run(unit) == 42
    assert threads == [threading.get_ident()]
    assert (db.inline_runs, db.thread_runs) == (1, 0)
    assert await db.run(unit) == 42
    assert (db.inline_runs, db.thread_runs) == (2, 0)


async def test_connection_starts_with_busy_timeout_zero(open_db: Callable[..., LoopSqlite]) -> None:
    db = open_db(busy_timeout_ms=1234)
    assert db.busy_timeout_ms == 1234
    assert await db.run(lambda c: c.execute("PRAGMA busy_timeout").fetchone()[0]) == 0


# ------------------------------------------------------------------------- busy


async def test_write_blocked_by_another_connection_waits_on_a_thread(
    open_db: Callable[..., LoopSqlite], other: sqlite3.Connection, db_path: Path
) -> None:
    db = open_db(busy_timeout_ms=5000)
    loop_thread = threading.get_ident()
    other.execute("BEGIN IMMEDIATE")
    released: list[float] = []

    def release() -> None:
        released.append(time.perf_counter())  # before: the lock is free once COMMIT runs
        other.execute("COMMIT")

    attempts: list[int] = []
    written: list[float] = []

    def work(conn: LoopConnection) -> str:
        written.append(time.perf_counter())
        conn.execute("INSERT INTO t (v) VALUES ('a')")
        return "done"

    write = in_transaction(work)

    def unit(conn: LoopConnection) -> str:
        attempts.append(threading.get_ident())
        return write(conn)

    asyncio.get_running_loop().call_later(0.2, release)
    assert await db.run(unit) == "done"

    assert len(attempts) == 2
    assert attempts[0] == loop_thread  # failed inline (busy) ...
    assert attempts[1] != loop_thread  # ... then waited on a thread
    assert (db.inline_runs, db.thread_runs) == (1, 1)
    assert len(released) == 1 and len(written) == 1
    assert written[0] >= released[0]  # got the lock only once the other connection let go
    assert values(db_path) == ["a"]
    assert await db.run(lambda c: c.execute("PRAGMA busy_timeout").fetchone()[0]) == 0


async def test_write_blocked_past_busy_timeout_raises_and_connection_recovers(
    open_db: Callable[..., LoopSqlite], other: sqlite3.Connection, db_path: Path
) -> None:
    db = open_db(busy_timeout_ms=50)
    other.execute("BEGIN IMMEDIATE")
    write = in_transaction(lambda c: c.execute("INSERT INTO t (v) VALUES ('a')"))

    with pytest.raises(sqlite3.OperationalError, match="locked") as info:
        await db.run(write)
    assert not isinstance(info.value, ClosedError)
    assert (db.inline_runs, db.thread_runs) == (1, 1)
    # the thread's busy timeout is not left on the connection used on the loop
    assert await db.run(lambda c: c.execute("PRAGMA busy_timeout").fetchone()[0]) == 0
    assert not db.conn.in_transaction

    other.execute("ROLLBACK")
    await db.run(write)
    assert db.thread_runs == 1  # inline this time
    assert values(db_path) == ["a"]


async def test_extended_busy_code_is_retried_on_a_thread(
    open_db: Callable[..., LoopSqlite], other: sqlite3.Connection, db_path: Path
) -> None:
    """SQLITE_BUSY_SNAPSHOT (517, an extended SQLITE_BUSY code): a deferred transaction
    that read a snapshot another connection has since written past cannot write."""
    db = open_db()
    attempts: list[int] = []

    def unit(conn: LoopConnection) -> int:
        attempts.append(threading.get_ident())
        conn.execute("BEGIN")
        try:
            seen = int(conn.execute("SELECT count(*) FROM t").fetchone()[0])
            if len(attempts) == 1:
                other.execute("INSERT INTO t (v) VALUES ('other')")  # after our snapshot
            conn.execute("INSERT INTO t (v) VALUES (?)", (f"after {seen}",))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return seen

    assert await db.run(unit) == 1
    assert len(attempts) == 2 and attempts[1] != threading.get_ident()
    assert db.thread_runs == 1
    assert values(db_path) == ["other", "after 1"]


# ------------------------------------------------------------------------- budget


async def test_unit_past_its_budget_is_rerun_on_a_thread(
    open_db: Callable[..., LoopSqlite],
) -> None:
    db = open_db(inline_budget_ms=5)
    loop_thread = threading.get_ident()
    attempts: list[int] = []
    errors: list[sqlite3.Error] = []

    def unit(conn: LoopConnection) -> int:
        attempts.append(threading.get_ident())
        try:
            return int(conn.execute(SLOW_SQL, (SLOW_COUNT,)).fetchone()[0])
        except sqlite3.Error as exc:
            errors.append(exc)
            raise

    assert await db.run(unit) == SLOW_COUNT
    assert len(attempts) == 2
    assert attempts[0] == loop_thread and attempts[1] != loop_thread
    assert [e.sqlite_errorcode for e in errors] == [sqlite3.SQLITE_INTERRUPT]
    assert (db.inline_runs, db.thread_runs) == (1, 1)
    # the budget applies afresh to the next unit: a quick one stays inline
    assert await db.run(lambda c: c.execute("SELECT 1").fetchone()[0]) == 1
    assert (db.inline_runs, db.thread_runs) == (2, 1)


async def test_interrupted_write_is_rolled_back_before_the_thread_rerun(
    open_db: Callable[..., LoopSqlite], db_path: Path
) -> None:
    db = open_db(inline_budget_ms=5)
    attempts: list[int] = []
    errors: list[sqlite3.Error] = []

    def work(conn: LoopConnection) -> int:
        attempts.append(threading.get_ident())
        conn.execute("INSERT INTO t (v) VALUES ('once')")
        try:
            return int(conn.execute(SLOW_SQL, (SLOW_COUNT,)).fetchone()[0])
        except sqlite3.Error as exc:
            errors.append(exc)
            raise

    assert await db.run(in_transaction(work)) == SLOW_COUNT
    assert len(attempts) == 2 and attempts[1] != threading.get_ident()
    assert [e.sqlite_errorcode for e in errors] == [sqlite3.SQLITE_INTERRUPT]
    assert db.thread_runs == 1
    assert values(db_path) == ["once"]


# ------------------------------------------------------------------------- thread


async def test_inline_false_goes_straight_to_a_thread(open_db: Callable[..., LoopSqlite]) -> None:
    db = open_db()
    threads: list[int] = []

    def unit(conn: LoopConnection) -> int:
        threads.append(threading.get_ident())
        return int(conn.execute("SELECT 7").fetchone()[0])

    assert await db.run(unit, inline=False) == 7
    assert len(threads) == 1 and threads[0] != threading.get_ident()
    assert (db.inline_runs, db.thread_runs) == (0, 1)


async def test_cancelled_caller_keeps_the_lock_until_its_thread_unit_ends(
    open_db: Callable[..., LoopSqlite], db_path: Path
) -> None:
    db = open_db()
    started = threading.Event()
    release = threading.Event()
    events: list[tuple[str, float]] = []

    def first(conn: LoopConnection) -> None:
        started.set()
        assert release.wait(5)
        conn.execute("INSERT INTO t (v) VALUES ('first')")
        events.append(("first ends", time.perf_counter()))

    def second(conn: LoopConnection) -> list[str]:
        events.append(("second starts", time.perf_counter()))
        return [v for (v,) in conn.execute("SELECT v FROM t")]

    task1 = asyncio.create_task(db.run(first, inline=False))
    assert await asyncio.to_thread(started.wait, 5)
    task1.cancel()
    task2 = asyncio.create_task(db.run(second))
    await asyncio.sleep(0.1)  # a chance for the second unit to (wrongly) start
    assert events == []
    assert not task1.done() and not task2.done()

    release.set()
    assert await asyncio.wait_for(task2, 5) == ["first"]  # saw the first unit's work
    with pytest.raises(asyncio.CancelledError):
        await task1
    assert [name for name, _ in events] == ["first ends", "second starts"]
    assert events[0][1] <= events[1][1]
    assert values(db_path) == ["first"]


# ------------------------------------------------------------------------- errors


async def test_syntax_error_propagates_without_a_thread_run(
    open_db: Callable[..., LoopSqlite],
) -> None:
    db = open_db()
    calls: list[int] = []

    def unit(conn: LoopConnection) -> Any:
        calls.append(threading.get_ident())
        return conn.execute("SELEKT 1")

    with pytest.raises(sqlite3.OperationalError, match="syntax"):
        await db.run(unit)
    assert calls == [threading.get_ident()]
    assert (db.inline_runs, db.thread_runs) == (1, 0)


async def test_constraint_violation_propagates_without_a_thread_run(
    open_db: Callable[..., LoopSqlite], db_path: Path
) -> None:
    db = open_db()
    await db.run(in_transaction(lambda c: c.execute("INSERT INTO t (v) VALUES ('dup')")))
    calls: list[int] = []

    def work(conn: LoopConnection) -> None:
        calls.append(threading.get_ident())
        conn.execute("INSERT INTO t (v) VALUES ('new')")
        conn.execute("INSERT INTO t (v) VALUES ('dup')")

    with pytest.raises(sqlite3.IntegrityError):
        await db.run(in_transaction(work))
    assert calls == [threading.get_ident()]
    assert (db.inline_runs, db.thread_runs) == (2, 0)
    assert not db.conn.in_transaction
    assert values(db_path) == ["dup"]


async def test_error_on_the_thread_propagates(open_db: Callable[..., LoopSqlite]) -> None:
    db = open_db()

    def unit(conn: LoopConnection) -> None:
        raise ValueError("from the thread")

    with pytest.raises(ValueError, match="from the thread"):
        await db.run(unit, inline=False)
    assert await db.run(lambda c: c.execute("PRAGMA busy_timeout").fetchone()[0]) == 0


# ------------------------------------------------------------------------- close


async def test_close_is_idempotent_and_runs_last_once(db_path: Path) -> None:
    db = LoopSqlite.connect(str(db_path), busy_timeout_ms=100)
    conn = db.conn
    seen: list[LoopConnection] = []

    def last(c: LoopConnection) -> None:
        c.execute("SELECT 1").fetchone()  # still open while ``last`` runs
        seen.append(c)

    await db.close(last)
    await db.close(last)
    assert seen == [conn]
    with pytest.raises(ClosedError):
        await db.run(lambda c: c.execute("SELECT 1"))
    with pytest.raises(ClosedError):
        _ = db.conn
    assert issubclass(ClosedError, sqlite3.OperationalError)
    with pytest.raises(sqlite3.ProgrammingError):  # the connection itself is closed
        conn.execute("SELECT 1")


async def test_close_ignores_sqlite_errors_from_last(db_path: Path) -> None:
    db = LoopSqlite.connect(str(db_path), busy_timeout_ms=100)
    conn = db.conn
    await db.close(lambda c: c.execute("SELEKT"))
    with pytest.raises(sqlite3.ProgrammingError):
        conn.execute("SELECT 1")
    with pytest.raises(ClosedError):
        await db.run(lambda c: None)


async def test_close_waits_for_the_unit_on_the_thread(open_db: Callable[..., LoopSqlite]) -> None:
    db = open_db()
    started = threading.Event()
    release = threading.Event()
    finished: list[str] = []

    def unit(conn: LoopConnection) -> int:
        started.set()
        assert release.wait(5)
        value = int(conn.execute("SELECT 5").fetchone()[0])
        finished.append("unit")
        return value

    running = asyncio.create_task(db.run(unit, inline=False))
    assert await asyncio.to_thread(started.wait, 5)
    closing = asyncio.create_task(db.close(lambda c: finished.append("last")))
    await asyncio.sleep(0.05)
    assert not closing.done() and finished == []
    release.set()
    assert await asyncio.wait_for(running, 5) == 5
    await asyncio.wait_for(closing, 5)
    assert finished == ["unit", "last"]
