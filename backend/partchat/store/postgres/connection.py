"""The PostgreSQL pool: open, migrate, close, the read and write units, value cleaning."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, Self, TypeVar

import asyncpg
import orjson

from partchat.store.postgres.schema import MIGRATION_LOCK, MIGRATIONS, RETIRED, SCHEMA_VERSION
from partchat.store.records import (
    StorageUnavailable,
    StoreError,
)

T = TypeVar("T")

DEFAULT_TIMEOUT_S = 5.0

# A CTE every write statement carries: bump this connection's store_writes counter.
BUMP = (
    "bump AS (INSERT INTO store_writes (store_id, backend_pid, n)"
    " VALUES ($1, pg_backend_pid(), 1) ON CONFLICT (store_id, backend_pid)"
    " DO UPDATE SET n = store_writes.n + 1)"
)
LOCK_SESSION = "SELECT version FROM sessions WHERE id = $1 FOR UPDATE"


# --------------------------------------------------------------------------- values


def _clean(value: Any) -> Any:
    """``value`` with NUL characters in its strings replaced (PostgreSQL refuses them)."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {_clean(k) if isinstance(k, str) else k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def dumps(value: object) -> str:
    text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    if "\\u0000" in text:  # rare: only then walk the value
        text = orjson.dumps(_clean(value), option=orjson.OPT_NON_STR_KEYS).decode()
    return text


def clean_text(value: str) -> str:
    return value.replace("\x00", "\ufffd") if "\x00" in value else value


# --------------------------------------------------------------------------- errors

_BUSY = (
    asyncpg.exceptions.SerializationError,
    asyncpg.exceptions.DeadlockDetectedError,
    asyncpg.exceptions.LockNotAvailableError,
    asyncpg.exceptions.QueryCanceledError,
    asyncpg.exceptions.TooManyConnectionsError,
    TimeoutError,  # acquiring a connection, connecting, or a query (command_timeout)
)
_DOWN = (
    OSError,  # refused, reset, unreachable
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.ConnectionDoesNotExistError,  # lost mid-query
    asyncpg.exceptions.CannotConnectNowError,  # starting up, shutting down
    asyncpg.exceptions.OperatorInterventionError,  # admin shutdown, crash shutdown
    asyncpg.exceptions.InsufficientResourcesError,  # disk full, out of memory
    asyncpg.exceptions.ReadOnlySQLTransactionError,  # a standby
    asyncpg.exceptions.PostgresSystemError,  # I/O error
    asyncpg.exceptions.InvalidCatalogNameError,  # the database does not exist
    asyncpg.exceptions.InvalidAuthorizationSpecificationError,
)
# What the pool and the units catch; _is_down tells a storage failure from a bug.
_CAUGHT = (*_BUSY, *_DOWN, asyncpg.exceptions.InterfaceError)


def _is_down(exc: BaseException) -> bool:
    if isinstance(exc, (*_BUSY, *_DOWN)):
        return True
    # asyncpg raises InterfaceError for a closed connection or pool, and for misuse.
    text = str(exc)
    return isinstance(exc, asyncpg.exceptions.InterfaceError) and (
        "closed" in text or "closing" in text
    )


def _unavailable(exc: BaseException) -> StorageUnavailable:
    if isinstance(exc, _BUSY):
        message = "storage is busy"
    elif isinstance(exc, asyncpg.exceptions.DiskFullError):
        message = "storage is full"
    elif isinstance(exc, asyncpg.exceptions.ReadOnlySQLTransactionError):
        message = "storage is read-only"
    else:
        message = "storage unavailable"
    return StorageUnavailable(message)


Work = Callable[[asyncpg.Connection], Awaitable[T]]


class PostgresConnection:
    """The pool a :class:`~partchat.store.postgres.PostgresStore` owns: opening,
    migrating, closing, and the read and write units every query runs in."""

    def __init__(self, pool: asyncpg.Pool, *, clock: Callable[[], float], timeout: float) -> None:
        self._pool: asyncpg.Pool | None = pool
        self._clock = clock
        self._timeout = timeout
        self._id = "s" + secrets.token_hex(8)  # this store's rows in store_writes
        self._units: set[asyncio.Future[Any]] = set()

    # ----------------------------------------------------------------- lifecycle

    @classmethod
    async def open(
        cls,
        dsn: str,
        *,
        clock: Callable[[], float] = time.time,
        min_size: int = 1,
        max_size: int = 10,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> Self:
        """Connect a pool to ``dsn`` and apply the missing migrations."""
        try:
            pool = await asyncpg.create_pool(
                dsn,
                min_size=min_size,
                max_size=max_size,
                timeout=timeout_s,  # connecting
                command_timeout=timeout_s,  # each query
                server_settings={"application_name": "partchat"},
            )
        except _CAUGHT as exc:
            if not _is_down(exc):
                raise
            raise _unavailable(exc) from exc
        store = cls(pool, clock=clock, timeout=timeout_s)
        try:
            await store._write(store._migrate)
        except BaseException:
            await store.close()
            raise
        return store

    async def _migrate(self, conn: asyncpg.Connection) -> None:
        await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        applied = int(
            await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
        )
        if applied > SCHEMA_VERSION:
            raise StoreError(
                f"the PostgreSQL database has schema version {applied}, newer than this "
                f"partchat understands ({SCHEMA_VERSION})"
            )
        for version, (name, statements) in enumerate(MIGRATIONS[applied:], applied + 1):
            for statement in statements:
                await conn.execute(statement)
            await conn.execute(
                "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", version, name
            )

    async def schema_version(self) -> int:
        return int(await self._fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"))

    async def close(self) -> None:
        """Wait for the units in flight, fold this store's write counters into the
        ``retired`` row, close the pool. Safe to call twice."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if self._units:
            await asyncio.gather(*self._units, return_exceptions=True)
        try:
            async with pool.acquire(timeout=self._timeout) as conn:
                await conn.execute(
                    "WITH mine AS (DELETE FROM store_writes WHERE store_id = $1 RETURNING n)"
                    " UPDATE store_writes SET n = n + (SELECT COALESCE(SUM(n), 0) FROM mine)"
                    " WHERE store_id = $2",
                    self._id,
                    RETIRED,
                )
        except (*_CAUGHT, asyncpg.PostgresError):
            pass  # the database is gone: the counters stay as they are, which is harmless
        try:
            await asyncio.wait_for(pool.close(), self._timeout)
        except _CAUGHT:
            pool.terminate()

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

    async def ping(self) -> None:
        await self._fetchval("SELECT 1")

    # ----------------------------------------------------------------- plumbing

    def _live_pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise StorageUnavailable("storage is closed")
        return self._pool

    async def _run(self, work: Work[T], *, transaction: bool) -> T:
        pool = self._live_pool()
        try:
            async with pool.acquire(timeout=self._timeout) as conn:
                if not transaction:
                    return await work(conn)
                async with conn.transaction():
                    return await work(conn)
        except _CAUGHT as exc:
            if not _is_down(exc):
                raise
            raise _unavailable(exc) from exc

    async def _read(self, work: Work[T]) -> T:
        return await self._run(work, transaction=False)

    async def _read_snapshot(self, work: Work[T]) -> T:
        """``work``'s several statements in one read-only REPEATABLE READ transaction:
        one consistent state."""
        pool = self._live_pool()
        try:
            async with (
                pool.acquire(timeout=self._timeout) as conn,
                conn.transaction(isolation="repeatable_read", readonly=True),
            ):
                return await work(conn)
        except _CAUGHT as exc:
            if not _is_down(exc):
                raise
            raise _unavailable(exc) from exc

    async def _write(self, work: Work[T], *, transaction: bool = True) -> T:
        """``work`` in a transaction (or, for one statement, alone) on its own task: a
        caller cancelled once the unit started does not cut it short."""
        self._live_pool()
        task = asyncio.ensure_future(self._run(work, transaction=transaction))
        self._units.add(task)
        task.add_done_callback(self._units.discard)
        task.add_done_callback(lambda t: None if t.cancelled() else t.exception())
        return await asyncio.shield(task)

    async def _fetchval(self, sql: str, *args: Any) -> Any:
        async def fetch(conn: asyncpg.Connection) -> Any:
            return await conn.fetchval(sql, *args)

        return await self._read(fetch)

    async def _fetchrow(self, sql: str, *args: Any) -> asyncpg.Record | None:
        async def fetch(conn: asyncpg.Connection) -> asyncpg.Record | None:
            return await conn.fetchrow(sql, *args)

        return await self._read(fetch)

    async def _fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        async def fetch(conn: asyncpg.Connection) -> list[asyncpg.Record]:
            return list(await conn.fetch(sql, *args))

        return await self._read(fetch)
