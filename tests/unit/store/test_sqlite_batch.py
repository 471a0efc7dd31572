"""Group commit on SQLite (``store/sqlite/batch.py``): writes that wait while the
connection is busy go as one statement, and each caller still gets its own answer."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from partchat.store import StorageUnavailable
from partchat.store.sqlite import SqliteStore
from partchat.store.sqlite.batch import RowBatcher, values_rows


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    s = await SqliteStore.open(tmp_path / "sessions.db")
    yield s
    await s.close()


def traced(store: SqliteStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The statements the store runs through ``execute_fetchall`` from now on."""
    seen: list[str] = []
    conn = store._conn
    assert conn is not None
    real = conn.execute_fetchall

    def spy(sql: str, params: Any = None) -> Any:
        seen.append(sql)
        return real(sql, params)

    monkeypatch.setattr(conn, "execute_fetchall", spy)
    return seen


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_waiting_begins_and_finishes_go_as_one_statement_each(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions = [await store.create_session() for _ in range(5)]
    seen = traced(store, monkeypatch)
    async with store.unit():  # the connection is busy: the begins wait together
        begins = [
            asyncio.ensure_future(
                store.begin_turn(s.id, "c1", f"hello {i}", seq_reserved=3, expect_version=s.version)
            )
            for i, s in enumerate(sessions)
        ]
        await settle()
    begun = await asyncio.gather(*begins)
    assert sum("INSERT INTO turn_starts" in s for s in seen) == 1
    assert [b.turn.session_id for b in begun] == [s.id for s in sessions]
    assert all(
        not b.duplicate and b.session_version == s.version + 3
        for b, s in zip(begun, sessions, strict=True)
    )

    async with store.unit():
        finishes = [
            asyncio.ensure_future(
                store.finish_turn(
                    b.turn.id,
                    text=f"answer {i}",
                    status="complete",
                    finish_reason="stop",
                    tool_outputs=[],
                    context={"model": f"M{i}"},
                    last_seq=4,
                    timings={},
                    expect_version=b.session_version,
                )
            )
            for i, b in enumerate(begun)
        ]
        await settle()
    finished = await asyncio.gather(*finishes)
    assert sum("INSERT INTO turn_answers" in s for s in seen) == 1
    for i, (s, b, f) in enumerate(zip(sessions, begun, finished, strict=True)):
        assert f.session_version == b.session_version + 3
        texts = [m["text"] for m in await store.history(s.id)]
        assert texts == [f"hello {i}", f"answer {i}"]
        got = await store.get_session(s.id)
        assert got is not None and got.context["model"] == f"M{i}"


async def test_a_refused_row_does_not_hold_back_the_others(store: SqliteStore) -> None:
    """A duplicate's row is not selected; it is answered as a duplicate, the rest begin."""
    a, b = await store.create_session(), await store.create_session()
    first = await store.begin_turn(a.id, "c1", "hi", seq_reserved=3)
    async with store.unit():
        again = asyncio.ensure_future(store.begin_turn(a.id, "c1", "hi", seq_reserved=3))
        other = asyncio.ensure_future(store.begin_turn(b.id, "c1", "hello", seq_reserved=3))
        await settle()
    assert (await again).duplicate and (await again).turn.id == first.turn.id
    assert not (await other).duplicate


async def test_one_session_never_twice_in_a_statement(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two begins of one session go one after the other, in order: the second sees the
    first (here: the same client message id, so a duplicate)."""
    s = await store.create_session()
    seen = traced(store, monkeypatch)
    async with store.unit():
        one = asyncio.ensure_future(store.begin_turn(s.id, "c1", "hi", seq_reserved=3))
        two = asyncio.ensure_future(store.begin_turn(s.id, "c1", "hi", seq_reserved=3))
        await settle()
    assert not (await one).duplicate
    assert (await two).duplicate and (await two).turn.id == (await one).turn.id
    starts = [s for s in seen if "INSERT INTO turn_starts" in s]
    assert len(starts) >= 2 and all(s.count("?") == 9 for s in starts)  # one row each


async def test_a_begin_cancelled_while_waiting_writes_nothing(store: SqliteStore) -> None:
    a, b = await store.create_session(), await store.create_session()
    async with store.unit():
        gone = asyncio.ensure_future(store.begin_turn(a.id, "c1", "hi", seq_reserved=3))
        kept = asyncio.ensure_future(store.begin_turn(b.id, "c1", "hi", seq_reserved=3))
        await settle()
        gone.cancel()
        await settle()
    assert not (await kept).duplicate
    assert gone.cancelled()
    assert await store.history(a.id) == []


async def test_a_full_disk_fails_every_row_and_leaves_nothing(store: SqliteStore) -> None:
    sessions = [await store.create_session() for _ in range(3)]
    assert store._conn is not None
    pages = next(iter(await store._conn.execute_fetchall("PRAGMA page_count")))[0]
    await store._conn.execute(f"PRAGMA max_page_count = {pages}")
    async with store.unit():
        begins = [
            asyncio.ensure_future(store.begin_turn(s.id, "c1", "x" * 200_000, seq_reserved=3))
            for s in sessions
        ]
        await settle()
    results = await asyncio.gather(*begins, return_exceptions=True)
    assert all(isinstance(r, StorageUnavailable) for r in results)
    assert all(isinstance(r.__cause__, sqlite3.OperationalError) for r in results)
    for s in sessions:
        assert await store.history(s.id) == []


@cache
def _pairs(rows: int) -> str:
    return f"INSERT INTO pairs (k, v) VALUES {values_rows(2, rows)} RETURNING k, v * 10"


async def test_a_row_that_breaks_a_constraint_fails_only_its_caller(store: SqliteStore) -> None:
    """The statement writes nothing when one row breaks a constraint; each row then goes
    alone, so only that row's caller hears of it."""
    assert store._conn is not None
    await store._conn.execute("CREATE TABLE pairs (k TEXT PRIMARY KEY, v INTEGER NOT NULL)")
    batcher = RowBatcher(store, _pairs)
    async with store.unit():
        calls = [
            asyncio.ensure_future(batcher.submit(k, (k, v)))
            for k, v in (("a", 1), ("b", None), ("c", 3))
        ]
        await settle()
    a, b, c = await asyncio.gather(*calls, return_exceptions=True)
    assert a == ("a", 10) and c == ("c", 30)
    assert isinstance(b, sqlite3.IntegrityError)
    got = await store._conn.execute_fetchall("SELECT k FROM pairs ORDER BY k")
    assert [r[0] for r in got] == ["a", "c"]


async def test_a_batch_is_capped(store: SqliteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    assert store._conn is not None
    await store._conn.execute("CREATE TABLE pairs (k TEXT PRIMARY KEY, v INTEGER NOT NULL)")
    seen = traced(store, monkeypatch)
    batcher = RowBatcher(store, _pairs, limit=2)
    async with store.unit():
        calls = [asyncio.ensure_future(batcher.submit(k, (k, 1))) for k in "abcde"]
        await settle()
    assert await asyncio.gather(*calls) == [(k, 10) for k in "abcde"]
    assert sum(s.startswith("INSERT INTO pairs") for s in seen) == 3


async def test_a_begin_on_a_closed_store_is_refused_not_left_waiting(
    store: SqliteStore,
) -> None:
    session = await store.create_session()
    await store.close()
    with pytest.raises(StorageUnavailable, match="closed"):
        await asyncio.wait_for(store.begin_turn(session.id, "c1", "hi", seq_reserved=3), 5)
