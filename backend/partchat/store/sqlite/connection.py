"""The SQLite connection: open, migrate, close, and the locked read and write units."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar, cast

import aiosqlite
import orjson

from partchat.store.records import (
    StorageUnavailable,
    StoreError,
)
from partchat.store.sqlite.schema import MIGRATIONS, SCHEMA_VERSION, user_version

T = TypeVar("T")

DEFAULT_BUSY_TIMEOUT_MS = 5000


def dumps(value: object) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


# --------------------------------------------------------------------------- errors


def is_storage_failure(exc: BaseException) -> bool:
    """sqlite could not do the work (as opposed to a bug or a constraint violation)."""
    if isinstance(exc, sqlite3.OperationalError):
        return True
    # sqlite3 raises ProgrammingError for an operation on a closed connection.
    return isinstance(exc, sqlite3.ProgrammingError) and "closed" in str(exc)


def _unavailable(exc: BaseException) -> StorageUnavailable:
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        message = "storage is busy"
    elif "full" in text:
        message = "storage is full"
    elif "readonly" in text or "read-only" in text:
        message = "storage is read-only"
    elif "i/o" in text:
        message = "storage I/O error"
    elif "closed" in text:
        message = "storage is closed"
    else:
        message = "storage unavailable"
    return StorageUnavailable(message)


def as_store_error(exc: sqlite3.Error) -> Exception:
    """What a unit raises for ``exc``: :class:`StorageUnavailable` when sqlite could not
    do the work, else ``exc`` itself (a constraint, a bug)."""
    if not is_storage_failure(exc):
        return exc
    error = _unavailable(exc)
    error.__cause__ = exc
    return error


def _consume_exception(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


Work = Callable[[aiosqlite.Connection], Awaitable[T]]


class Undo(Exception):  # not an error: a unit's answer, its writes undone
    """Raised by a unit's work to roll the transaction back and return ``result``."""

    def __init__(self, result: object) -> None:
        super().__init__()
        self.result = result


class SqliteConnection:
    """The connection a :class:`~partchat.store.sqlite.SqliteStore` owns: opening,
    migrating, closing, and the read and write units every query runs in."""

    def __init__(
        self, conn: aiosqlite.Connection, *, clock: Callable[[], float], readonly: bool
    ) -> None:
        self._conn: aiosqlite.Connection | None = conn
        self._clock = clock
        self._readonly = readonly
        self._lock = asyncio.Lock()

    # ----------------------------------------------------------------- lifecycle

    @classmethod
    async def open(
        cls,
        path: Path,
        *,
        clock: Callable[[], float] = time.time,
        readonly: bool = False,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    ) -> Self:
        """Open (and, read-write, create and migrate) the database at ``path``."""
        path = Path(path)
        if readonly:
            if not path.exists():
                # Said here: aiosqlite's failed connect leaves its thread's stop for later.
                raise StorageUnavailable("storage unavailable")
            database, uri = path.resolve().as_uri() + "?mode=ro", True
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            database, uri = str(path), False
        try:
            conn = await aiosqlite.connect(
                database,
                uri=uri,
                isolation_level=None,  # autocommit: units issue their own BEGIN
                cached_statements=256,
                timeout=busy_timeout_ms / 1000,
            )
        except sqlite3.OperationalError as exc:
            raise _unavailable(exc) from exc
        store = cls(conn, clock=clock, readonly=readonly)
        try:
            await store._configure()
        except BaseException:
            await store.close()
            raise
        return store

    async def _configure(self) -> None:
        async def configure(conn: aiosqlite.Connection) -> int:
            await conn.execute("PRAGMA foreign_keys = ON")
            if not self._readonly:
                await conn.execute("PRAGMA journal_mode = WAL")
                await conn.execute("PRAGMA synchronous = NORMAL")
            return await user_version(conn)

        version = await self._read(configure)
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"sessions.db has schema version {version}, newer than this partchat "
                f"understands ({SCHEMA_VERSION})"
            )
        if version == SCHEMA_VERSION:
            return
        if self._readonly:
            raise StoreError(
                f"sessions.db has schema version {version}, expected {SCHEMA_VERSION}; "
                "open it read-write once to migrate it"
            )

        async def migrate(conn: aiosqlite.Connection) -> None:
            # Re-read inside the write lock: another process may have migrated meanwhile.
            for statements in MIGRATIONS[await user_version(conn) :]:
                for statement in statements:
                    await conn.execute(statement)
            await conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

        await self._write(migrate)

    async def close(self) -> None:
        """Wait for the unit in flight, then close. Safe to call twice."""
        async with self._lock:
            conn, self._conn = self._conn, None
            if conn is None:
                return
            try:
                if not self._readonly:
                    with contextlib.suppress(sqlite3.Error):
                        await conn.execute("PRAGMA optimize")
            finally:
                await conn.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def clock(self) -> Callable[[], float]:
        return self._clock

    async def schema_version(self) -> int:
        return await self._read(user_version)

    async def ping(self) -> None:
        await self._fetch_one("SELECT 1")

    # ----------------------------------------------------------------- plumbing

    def _connection(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise StorageUnavailable("storage is closed")
        return self._conn

    async def _read(self, work: Work[T]) -> T:
        """``work`` on the connection, alone (autocommit: each statement its own
        snapshot). A cancelled reader leaves nothing open: its statement still runs on
        aiosqlite's thread, before anything queued after it."""
        async with self._lock:
            try:
                return await work(self._connection())
            except sqlite3.Error as exc:
                if is_storage_failure(exc):
                    raise _unavailable(exc) from exc
                raise

    @contextlib.asynccontextmanager
    async def unit(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection, alone, for a unit that runs on a task of its own (one its
        callers do not cancel), such as a :class:`~partchat.store.sqlite.batch.RowBatcher`
        flush: nothing else's statements run in between."""
        async with self._lock:
            yield self._connection()

    async def _fetch_all(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        async def fetch(conn: aiosqlite.Connection) -> list[Any]:
            return list(await conn.execute_fetchall(sql, params))

        return await self._read(fetch)

    async def _fetch_one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        rows = await self._fetch_all(sql, params)
        return rows[0] if rows else None

    async def _write(self, work: Work[T], *, single: bool = False) -> T:
        """``work`` inside ``BEGIN IMMEDIATE`` ... ``COMMIT``; any exception rolls back.
        ``single``: ``work`` is one statement, its own transaction (no BEGIN/COMMIT hops).

        A caller cancelled while waiting for the lock writes nothing; once the unit holds
        the lock it runs to completion on its own task (its work must be kept, and the
        connection must not be left inside a transaction), which releases the lock.
        """
        await self._lock.acquire()
        try:
            task = asyncio.ensure_future(self._transaction(work, single))
        except BaseException:
            self._lock.release()
            raise
        task.add_done_callback(lambda _: self._lock.release())
        task.add_done_callback(_consume_exception)
        return await asyncio.shield(task)

    async def _transaction(self, work: Work[T], single: bool) -> T:
        try:
            conn = self._connection()
            if single:
                return await work(conn)
            await conn.execute("BEGIN IMMEDIATE")
            try:
                result = await work(conn)
                await conn.execute("COMMIT")
            except BaseException as exc:
                if conn.in_transaction:
                    # sqlite3.Error: sqlite already rolled the transaction back.
                    with contextlib.suppress(sqlite3.Error, ValueError):
                        await conn.execute("ROLLBACK")
                if isinstance(exc, Undo):
                    return cast(T, exc.result)
                raise
            return result
        except sqlite3.Error as exc:
            if is_storage_failure(exc):
                raise _unavailable(exc) from exc
            raise
