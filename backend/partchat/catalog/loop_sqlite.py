"""SQLite on the event loop, with a thread for what would block it: the catalog's reads.

Only the catalog's query layer (:mod:`partchat.catalog.store_core`) uses this (the
session store is on aiosqlite, see :mod:`partchat.store.sqlite`). It remains because of a measured need: a catalog lookup
by key takes microseconds, and a thread hop per query (aiosqlite's way) costs more than
the query — every hop hands the GIL between the event loop and a database thread, and
with the loop busy each hand-over is several ``futex`` calls, context switches and up
to a switch interval of waiting. Running every statement of both databases inline cut
CPU per streamed turn 40 % when that was measured (``docs/performance.md``). The
catalog is read-only and its results are cached, so this path stays small.

:meth:`LoopSqlite.run` calls a whole unit of work (a lookup) inline, under an
:class:`asyncio.Lock`, with ``busy_timeout = 0`` and a time budget. Only when it cannot
finish at once does it go to a worker thread, where waiting does not stall the loop:

* ``SQLITE_BUSY`` / ``SQLITE_LOCKED`` — another connection holds a lock: re-run on a
  thread with the real busy timeout;
* ``SQLITE_INTERRUPT`` — the unit ran past its budget (a slow query; a progress handler
  interrupts it): re-run on a thread without the budget.

A caller that knows a unit is slow (a full-text search) sends it to the thread at once.
A unit must therefore be re-runnable (a read is). The lock keeps the connection to one
user at a time, also while a unit runs on the thread (a cancelled caller waits for it
before the lock is released).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import sqlite3
import time
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

__all__ = ["LoopConnection", "LoopSqlite", "fetch_all"]

T = TypeVar("T")

PROGRESS_EVERY = 1000  # sqlite VM steps between two looks at the clock
_RETRY_ON_THREAD = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_INTERRUPT})


class LoopConnection(sqlite3.Connection):
    """A plain ``sqlite3.Connection``; a subclass so one instance's methods can be
    replaced (fault injection in tests)."""


class ClosedError(sqlite3.OperationalError):
    """The :class:`LoopSqlite` is closed."""


def _retry_on_thread(exc: sqlite3.Error) -> bool:
    # sqlite_errorcode is the extended code (SQLITE_BUSY_SNAPSHOT = 517, ...): its low byte
    # is the primary code
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and (code & 0xFF) in _RETRY_ON_THREAD


def fetch_all(sql: str, params: tuple[Any, ...] = ()) -> Callable[[LoopConnection], list[Any]]:
    """A read unit: every row of one query."""
    return partial(_fetch_all, sql, params)


def _fetch_all(sql: str, params: tuple[Any, ...], conn: LoopConnection) -> list[Any]:
    return conn.execute(sql, params).fetchall()


class LoopSqlite:
    """One sqlite3 connection, used on the event loop while that is quick.

    ``busy_timeout_ms`` is the wait for another process's write lock (on a thread);
    ``inline_budget_ms`` is how long a unit may hold the loop before it is interrupted and
    re-run on a thread.
    """

    def __init__(
        self, conn: LoopConnection, *, busy_timeout_ms: int, inline_budget_ms: float
    ) -> None:
        self._conn: LoopConnection | None = conn
        self._busy_timeout_ms = int(busy_timeout_ms)
        self._budget_s = inline_budget_ms / 1000
        self._deadline = math.inf
        self._lock = asyncio.Lock()
        self.inline_runs = 0
        self.thread_runs = 0
        conn.execute("PRAGMA busy_timeout = 0")
        conn.set_progress_handler(self._progress, PROGRESS_EVERY)

    @classmethod
    def connect(
        cls,
        database: str,
        *,
        uri: bool = False,
        busy_timeout_ms: int,
        inline_budget_ms: float = 20.0,
    ) -> LoopSqlite:
        """Open ``database`` in autocommit mode (units issue their own ``BEGIN``)."""
        conn = sqlite3.connect(
            database,
            uri=uri,
            isolation_level=None,
            check_same_thread=False,  # a unit may run on a worker thread (under the lock)
            factory=LoopConnection,
            cached_statements=256,
        )
        try:
            return cls(conn, busy_timeout_ms=busy_timeout_ms, inline_budget_ms=inline_budget_ms)
        except BaseException:
            conn.close()
            raise

    @property
    def conn(self) -> LoopConnection:
        """The connection (raises :class:`ClosedError` once closed)."""
        if self._conn is None:
            raise ClosedError("Connection closed")
        return self._conn

    @property
    def busy_timeout_ms(self) -> int:
        return self._busy_timeout_ms

    def _progress(self) -> int:
        if time.perf_counter() > self._deadline:
            self._deadline = math.inf  # interrupt once: the unit's ROLLBACK must run
            return 1
        return 0

    async def run(self, unit: Callable[[LoopConnection], T], *, inline: bool = True) -> T:
        """``unit(conn)`` inline if it finishes at once, else on a worker thread.

        ``inline=False``: straight to the thread (a unit known to take milliseconds).
        """
        async with self._lock:
            conn = self.conn
            if inline:
                self._deadline = time.perf_counter() + self._budget_s
                try:
                    self.inline_runs += 1
                    return unit(conn)
                except sqlite3.OperationalError as exc:
                    if not _retry_on_thread(exc) or self._conn is None:
                        raise
                finally:
                    self._deadline = math.inf
            self.thread_runs += 1
            loop = asyncio.get_running_loop()
            return await _uncancellable(loop.run_in_executor(None, self._on_thread, conn, unit))

    def _on_thread(self, conn: LoopConnection, unit: Callable[[LoopConnection], T]) -> T:
        conn.execute(f"PRAGMA busy_timeout = {self._busy_timeout_ms}")
        try:
            return unit(conn)
        finally:
            conn.execute("PRAGMA busy_timeout = 0")

    async def close(self, last: Callable[[LoopConnection], Any] | None = None) -> None:
        """Wait for the unit in flight, run ``last`` (errors ignored), close. Idempotent."""
        async with self._lock:
            conn, self._conn = self._conn, None
            if conn is None:
                return
            try:
                if last is not None:
                    with contextlib.suppress(sqlite3.Error):
                        last(conn)
            finally:
                conn.close()


async def _uncancellable(fut: asyncio.Future[T]) -> T:
    """Wait for ``fut`` even if cancelled meanwhile (then re-raise the cancellation):
    the caller's lock must not be released while a thread still uses the connection."""
    cancelled = False
    while not fut.done():
        try:
            await asyncio.wait({fut})
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        fut.exception()  # retrieved: the caller is gone
        raise asyncio.CancelledError
    return fut.result()
