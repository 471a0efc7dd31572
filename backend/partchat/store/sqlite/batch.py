"""Group commit: the writes of one kind that wait while the connection is busy go to
SQLite together, as one multi-row statement (one transaction, one hop to aiosqlite's
thread).

Under load nearly every turn's begin and finish waits behind other units (at 50
saturating sessions about 45 writes were queued on the connection's lock at any time),
and each statement is a wake-up of aiosqlite's thread, a GIL hand-over each way and a
commit of its own. A :class:`RowBatcher` sends everything waiting when the connection
frees up as ``WITH v(…) AS (VALUES (…), (…)) INSERT … SELECT … FROM v … RETURNING key, …``:
each row is still checked by its own ``WHERE``, and each caller gets its own ``RETURNING``
row, or ``None`` when its row was not selected.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from partchat.store.sqlite.connection import as_store_error, is_storage_failure

if TYPE_CHECKING:
    import aiosqlite

    from partchat.store.sqlite.connection import SqliteConnection

Row = tuple[Any, ...]

DEFAULT_LIMIT = 64  # rows a statement; at 15 parameters a row, far under SQLite's 32,766


@dataclass(slots=True)
class _Request:
    group: Hashable
    params: Row
    done: asyncio.Future[Row | None]


def values_rows(width: int, rows: int) -> str:
    """``(?, ?, ?), (?, ?, ?)``: ``rows`` VALUES rows of ``width`` parameters."""
    row = "(" + ", ".join("?" * width) + ")"
    return ", ".join([row] * rows)


class RowBatcher:
    """One kind of multi-row write. ``sql(n)`` is the statement for ``n`` rows of
    parameters (cache it: it is asked for every batch); its ``RETURNING`` rows start with
    the row's key, the first parameter of its row. A batch holds at most one request per
    ``group`` (the writes of one session keep their order and never meet in one
    statement) and at most ``limit``.

    A request cancelled before its batch is sent writes nothing; once sent, the
    statement runs to completion, as a write unit does.
    """

    def __init__(
        self,
        connection: SqliteConnection,
        sql: Callable[[int], str],
        *,
        limit: int = DEFAULT_LIMIT,
    ) -> None:
        self._connection = connection
        self._sql = sql
        self._limit = limit
        self._waiting: list[_Request] = []
        self._next: asyncio.Task[None] | None = None  # a flush that has not taken its rows

    async def submit(self, group: Hashable, params: Row) -> Row | None:
        done: asyncio.Future[Row | None] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Request(group, params, done))
        if self._next is None:
            self._next = asyncio.ensure_future(self._flush())
        return await done

    def _take(self) -> list[_Request]:
        batch: list[_Request] = []
        kept: list[_Request] = []
        groups: set[Hashable] = set()
        for request in self._waiting:
            if request.done.done():  # its caller was cancelled
                continue
            if len(batch) < self._limit and request.group not in groups:
                groups.add(request.group)
                batch.append(request)
            else:
                kept.append(request)
        self._waiting = kept
        return batch

    async def _flush(self) -> None:
        try:
            await self._flush_waiting()
        except Exception as exc:  # no connection (the store is closed): nothing was sent
            self._next = None
            waiting, self._waiting = self._waiting, []
            for request in waiting:
                if not request.done.done():
                    request.done.set_exception(exc)

    async def _flush_waiting(self) -> None:
        async with self._connection.unit() as conn:
            self._next = None
            batch = self._take()
            if self._waiting:  # waits for this unit to end, then takes what is left
                self._next = asyncio.ensure_future(self._flush())
            try:
                await self._send(conn, batch)
            finally:
                for request in batch:  # the flush itself was cancelled (shutdown)
                    request.done.cancel()

    async def _send(self, conn: aiosqlite.Connection, batch: list[_Request]) -> None:
        if not batch:
            return
        n = len(batch)
        statement = self._sql(n)
        params = [value for request in batch for value in request.params]
        try:
            rows = await conn.execute_fetchall(statement, params)
        except sqlite3.Error as exc:
            if n > 1 and not is_storage_failure(exc):
                # One row broke a constraint and the statement wrote nothing: each row
                # alone, so only its own caller hears of it.
                for request in batch:
                    await self._send(conn, [request])
                return
            for request in batch:
                if not request.done.done():
                    request.done.set_exception(as_store_error(exc))
            return
        except Exception as exc:
            for request in batch:
                if not request.done.done():
                    request.done.set_exception(exc)
            return
        found = {row[0]: tuple(row) for row in rows}
        for request in batch:
            if not request.done.done():
                request.done.set_result(found.get(request.params[0]))
