"""The PostgreSQL backend: sessions, turns and messages in one PostgreSQL database,
shared by any number of server processes on any number of machines.

Driver: asyncpg — asyncio-native with a built-in pool and binary protocol, so a unit of
work costs the fewest round trips and the least CPU per turn (psycopg 3 would add its
own pool package and a slower text-protocol default for the same work).

Schema
    The same tables and meaning as the SQLite backend (``sessions``, ``turns``,
    ``messages``, ``workers``): times are ``double precision`` seconds, so records are
    identical whichever backend holds them; context, timings and tool outputs are JSONB.
    The database enforces what the contract needs: ``UNIQUE (session_id,
    client_message_id)`` and a partial unique index on ``turns (session_id) WHERE status
    = 'running'`` — at most one running turn per session, across every server. That is
    stricter than SQLite (which allows a second running turn of one owner):
    :meth:`PostgresStore.begin_turn` raises ``TurnRunningElsewhere`` for *any* other
    running turn of the session.

Units of work
    A write that reads first (begin, finish, interrupt) locks the session row (``SELECT
    … FOR UPDATE``) in its own statement, then reads with a fresh READ COMMITTED
    snapshot, then writes: two servers racing on one session are serialised by the row
    lock, and the unique indexes catch anything else. A write's caller may be
    cancelled: the unit runs on its own task to COMMIT or ROLLBACK. Single-statement
    writes run without an explicit transaction (the statement is one).

Versions
    ``sessions.version`` moves by one with every unit that writes the session, its turns
    or its messages (explicit ``version = version + 1`` in the same transaction).

``data_version()``
    PostgreSQL has no ``PRAGMA data_version``. Every write unit also bumps a counter row
    of its own in ``store_writes``, keyed by (this store's random id, the backend pid of
    the connection), so writers never contend for a row. ``data_version()`` is the sum of
    the counters of every *other* store: it moves only when another process committed a
    write, never for this store's own. Cost: one upsert folded into each write statement
    and one small aggregate per call. Closing folds the store's rows into a shared
    ``retired`` row, keeping the sum (and so every other store's view) unchanged.

Migrations
    :data:`MIGRATIONS` is the ordered list; ``schema_migrations`` records those applied.
    :meth:`PostgresStore.open` applies the missing ones in one transaction holding
    ``pg_advisory_xact_lock(MIGRATION_LOCK)``: servers starting together migrate once.

Errors
    Refused, lost or timed-out connections, a server shutting down or refusing
    connections, a full disk, a read-only server, serialisation failures: all become
    :class:`StorageUnavailable` with a short message; acquiring a connection and every
    query are bounded by ``timeout``.

PostgreSQL text cannot hold NUL characters: they are stored as U+FFFD.
"""

from __future__ import annotations

import asyncio
import math
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import date
from types import TracebackType
from typing import Any, Literal, TypeVar

import asyncpg
import orjson

from partchat.store.admin import (
    DETAIL_SESSION_COLUMNS,
    DETAIL_TOOL_COLUMNS,
    DETAIL_TURN_COLUMNS,
    TOP_LIMIT,
    UNKNOWN_OF_SESSIONS,
    AdminFilters,
    AdminPage,
    day_range,
    detail_ids,
    details_in_order,
    filter_sql,
    numbered,
    page_ids,
    page_sql,
    stats_record,
    summary_page,
)
from partchat.store.records import (
    HISTORY_SELECT,
    TURN_STATUS_FOR_REASON,
    BeginTurn,
    FinishReason,
    FinishTurn,
    HistoryMessage,
    Rating,
    SavedFeedback,
    SessionRecord,
    StorageUnavailable,
    StoreError,
    ToolCallRecord,
    TurnRecord,
    TurnRunningElsewhere,
    UnknownSession,
    UnknownTurn,
    WorkerRecord,
    check_client_message_id,
    check_feedback,
    check_finish,
    empty_context,
    history_from_row,
    is_valid_id,
    new_message_id,
    new_session_id,
    new_turn_id,
    session_from_row,
    turn_from_row,
    version_after,
    worker_from_row,
)

__all__ = ["MIGRATIONS", "MIGRATION_LOCK", "SCHEMA_VERSION", "PostgresStore"]

T = TypeVar("T")

DEFAULT_TIMEOUT_S = 5.0
# pg_advisory_xact_lock key for migrations: "partchat" in ASCII, as a bigint.
MIGRATION_LOCK = 0x7061727463686174
_RETIRED = ""  # store_writes row holding the counts of closed stores

# --------------------------------------------------------------------------- schema

MIGRATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "sessions, turns, messages, workers, store_writes",
        (
            """
            CREATE TABLE sessions (
                id           text PRIMARY KEY,
                created_at   double precision NOT NULL,
                updated_at   double precision NOT NULL,
                context      jsonb NOT NULL,
                last_seq     bigint NOT NULL DEFAULT 0,
                seq_reserved bigint NOT NULL DEFAULT 0,
                version      bigint NOT NULL DEFAULT 0
            )
            """,
            "CREATE INDEX sessions_updated_at ON sessions (updated_at)",
            """
            CREATE TABLE turns (
                id                text PRIMARY KEY,
                session_id        text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                client_message_id text NOT NULL,
                status            text NOT NULL CHECK (status IN
                                    ('running', 'complete', 'aborted', 'failed', 'interrupted')),
                finish_reason     text CHECK (finish_reason IS NULL OR finish_reason IN
                                    ('stop', 'aborted', 'error', 'length')),
                started_at        double precision NOT NULL,
                ended_at          double precision,
                timings           jsonb,
                owner             text,
                UNIQUE (session_id, client_message_id)
            )
            """,
            # The database, not the servers, keeps a session to one running turn.
            "CREATE UNIQUE INDEX turns_one_running ON turns (session_id) WHERE status = 'running'",
            "CREATE INDEX turns_running_owner ON turns (owner) WHERE status = 'running'",
            """
            CREATE TABLE messages (
                id           text PRIMARY KEY,
                session_id   text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                turn_id      text NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
                role         text NOT NULL CHECK (role IN ('user', 'assistant')),
                text         text NOT NULL,
                status       text NOT NULL CHECK (status IN
                               ('complete', 'partial', 'failed', 'interrupted')),
                tool_outputs jsonb,
                created_at   double precision NOT NULL,
                seq          integer NOT NULL,
                UNIQUE (session_id, seq)
            )
            """,
            "CREATE INDEX messages_turn ON messages (turn_id, role)",
            """
            CREATE TABLE workers (
                boot_id      text PRIMARY KEY,
                pid          integer NOT NULL,
                host         text NOT NULL,
                started_at   double precision NOT NULL,
                heartbeat_at double precision NOT NULL
            )
            """,
            """
            CREATE TABLE store_writes (
                store_id    text NOT NULL,
                backend_pid integer NOT NULL,
                n           bigint NOT NULL,
                PRIMARY KEY (store_id, backend_pid)
            )
            """,
            f"INSERT INTO store_writes VALUES ('{_RETIRED}', 0, 0)",
        ),
    ),
    (
        "tool calls, timings, model and feedback for the operator",
        (
            "ALTER TABLE turns ADD COLUMN model text",
            "ALTER TABLE turns ADD COLUMN first_token_ms double precision",
            """
            CREATE TABLE tool_calls (
                turn_id        text NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
                position       integer NOT NULL,
                session_id     text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                tool_call_id   text NOT NULL,
                round          integer NOT NULL,
                name           text NOT NULL,
                arguments      jsonb NOT NULL,
                ok             boolean NOT NULL,
                error_code     text,
                duration_ms    double precision NOT NULL,
                result_bytes   integer NOT NULL,
                result         jsonb,
                unknown_parts  jsonb,
                unknown_models jsonb,
                created_at     double precision NOT NULL,
                PRIMARY KEY (turn_id, position)
            )
            """,
            "CREATE INDEX tool_calls_session ON tool_calls (session_id)",
            "CREATE INDEX tool_calls_errors ON tool_calls (session_id) WHERE NOT ok",
            "CREATE INDEX tool_calls_unknown ON tool_calls (session_id)"
            " WHERE (unknown_parts IS NOT NULL OR unknown_models IS NOT NULL)",
            "CREATE INDEX tool_calls_created ON tool_calls (created_at, ok)",
            "CREATE INDEX tool_calls_unknown_parts ON tool_calls (created_at)"
            " WHERE unknown_parts IS NOT NULL",
            "CREATE INDEX tool_calls_unknown_models ON tool_calls (created_at)"
            " WHERE unknown_models IS NOT NULL",
            """
            CREATE TABLE feedback (
                turn_id    text PRIMARY KEY REFERENCES turns (id) ON DELETE CASCADE,
                session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                rating     text NOT NULL CHECK (rating IN ('up', 'down')),
                reason     text,
                created_at double precision NOT NULL,
                updated_at double precision NOT NULL
            )
            """,
            "CREATE INDEX feedback_session ON feedback (session_id, rating)",
            "CREATE INDEX sessions_activity ON sessions (updated_at DESC, id DESC)",
            "CREATE INDEX turns_session ON turns (session_id, started_at)",
            "CREATE INDEX turns_started ON turns (started_at, first_token_ms)",
            "CREATE INDEX turns_errors ON turns (session_id)"
            " WHERE (status IN ('failed', 'interrupted') OR finish_reason = 'error')",
            "CREATE INDEX messages_answers ON messages (created_at, turn_id)"
            " WHERE role = 'assistant'",
        ),
    ),
)

SCHEMA_VERSION = len(MIGRATIONS)

_TURN_COLUMNS = (
    "id, session_id, client_message_id, status, finish_reason, started_at, ended_at, timings, owner"
)
_WORKER_COLUMNS = "boot_id, pid, host, started_at, heartbeat_at"
_SESSION_COLUMNS = "id, created_at, updated_at, context, last_seq, seq_reserved, version"
# A CTE every write statement carries: bump this connection's store_writes counter.
_BUMP = (
    "bump AS (INSERT INTO store_writes (store_id, backend_pid, n)"
    " VALUES ($1, pg_backend_pid(), 1) ON CONFLICT (store_id, backend_pid)"
    " DO UPDATE SET n = store_writes.n + 1)"
)
_NEXT_SEQ = "(SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = $2)"
_LOCK_SESSION = "SELECT version FROM sessions WHERE id = $1 FOR UPDATE"
# finish_turn's tool calls, from one JSON array ($16; $2 session, $5 now, $7 turn)
_INSERT_TOOL_CALLS = (
    "c AS (INSERT INTO tool_calls (turn_id, position, session_id, tool_call_id, round, name,"
    "  arguments, ok, error_code, duration_ms, result_bytes, result, unknown_parts,"
    "  unknown_models, created_at)"
    " SELECT $7, r.position, $2, r.tool_call_id, r.round, r.name, r.arguments, r.ok,"
    "  r.error_code, r.duration_ms, r.result_bytes, r.result, r.unknown_parts,"
    "  r.unknown_models, $5"
    " FROM jsonb_to_recordset(COALESCE($16::jsonb, '[]'::jsonb)) AS r (position integer,"
    "  tool_call_id text, round integer, name text, arguments jsonb, ok boolean,"
    "  error_code text, duration_ms double precision, result_bytes integer, result jsonb,"
    "  unknown_parts jsonb, unknown_models jsonb))"
)


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


def _dumps(value: object) -> str:
    text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    if "\\u0000" in text:  # rare: only then walk the value
        text = orjson.dumps(_clean(value), option=orjson.OPT_NON_STR_KEYS).decode()
    return text


def _tool_call_json(position: int, call: ToolCallRecord) -> dict[str, Any]:
    """A tool call as ``_INSERT_TOOL_CALLS`` reads it."""
    return {
        "position": position,
        "tool_call_id": call["toolCallId"],
        "round": int(call["round"]),
        "name": call["name"],
        "arguments": call["arguments"],
        "ok": bool(call["ok"]),
        "error_code": call["errorCode"],
        "duration_ms": float(call["durationMs"]),
        "result_bytes": int(call["resultBytes"]),
        "result": call["result"],
        "unknown_parts": call["unknownParts"] or None,
        "unknown_models": call["unknownModels"] or None,
    }


def _text(value: str) -> str:
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


# --------------------------------------------------------------------------- store


class PostgresStore:
    """:class:`~partchat.store.protocol.SessionStore` on a PostgreSQL database. Build it
    with :meth:`open`; :meth:`close` it."""

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
    ) -> PostgresStore:
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
                    _RETIRED,
                )
        except (*_CAUGHT, asyncpg.PostgresError):
            pass  # the database is gone: the counters stay as they are, which is harmless
        try:
            await asyncio.wait_for(pool.close(), self._timeout)
        except _CAUGHT:
            pool.terminate()

    async def __aenter__(self) -> PostgresStore:
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

    # ----------------------------------------------------------------- sessions

    async def create_session(self) -> SessionRecord:
        now = self._clock()
        context = empty_context()
        session_id = new_session_id()
        payload = _dumps(context)

        async def create(conn: asyncpg.Connection) -> None:
            await conn.execute(
                f"WITH {_BUMP} INSERT INTO sessions ({_SESSION_COLUMNS})"
                " VALUES ($2, $3, $3, $4::jsonb, 0, 0, 0)",
                self._id,
                session_id,
                now,
                payload,
            )

        await self._write(create, transaction=False)
        return SessionRecord(session_id, now, now, context, 0, 0, 0)

    async def get_session(self, session_id: str) -> SessionRecord | None:
        if not is_valid_id(session_id):
            return None
        row = await self._fetchrow(
            f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE id = $1", session_id
        )
        return session_from_row(row) if row else None

    async def session_version(self, session_id: str) -> int | None:
        if not is_valid_id(session_id):
            return None
        value = await self._fetchval("SELECT version FROM sessions WHERE id = $1", session_id)
        return None if value is None else int(value)

    async def save_context(
        self, session_id: str, context: Mapping[str, Any], *, expect_version: int | None = None
    ) -> int | None:
        """See :meth:`partchat.store.protocol.SessionStore.save_context`."""
        if not is_valid_id(session_id):
            raise UnknownSession(session_id)
        payload = _dumps(dict(context))
        now = self._clock()

        async def save(conn: asyncpg.Connection) -> int | None:
            before = await conn.fetchval(
                f"WITH {_BUMP} UPDATE sessions SET context = $3::jsonb, updated_at = $4,"
                " version = version + 1 WHERE id = $2 RETURNING version - 1",
                self._id,
                session_id,
                payload,
                now,
            )
            if before is None:
                raise UnknownSession(session_id)
            return version_after(int(before), expect_version)

        return await self._write(save, transaction=False)

    async def data_version(self) -> int:
        """The sum of every other store's write counters (see the module docstring)."""
        return int(
            await self._fetchval(
                "SELECT COALESCE(SUM(n), 0)::bigint FROM store_writes WHERE store_id <> $1",
                self._id,
            )
        )

    # ----------------------------------------------------------------- turns

    async def begin_turn(
        self,
        session_id: str,
        client_message_id: str,
        text: str,
        *,
        seq_reserved: int,
        owner: str | None = None,
        expect_version: int | None = None,
    ) -> BeginTurn:
        """See :meth:`partchat.store.protocol.SessionStore.begin_turn`. Stricter than the
        contract: any other running turn of the session raises ``TurnRunningElsewhere``
        (the database allows one)."""
        if not is_valid_id(session_id):
            raise UnknownSession(session_id)
        check_client_message_id(client_message_id)
        reserved = int(seq_reserved)
        stored_text = _text(text)

        async def begin(conn: asyncpg.Connection) -> BeginTurn:
            before = await conn.fetchval(_LOCK_SESSION, session_id)
            if before is None:
                raise UnknownSession(session_id)
            # A fresh snapshot, taken with the session locked: what the last holder of
            # the lock committed is visible.
            found = await conn.fetch(
                f"SELECT {_TURN_COLUMNS}, (SELECT m.id FROM messages m"
                "  WHERE m.turn_id = t.id AND m.role = 'user')"
                " FROM turns t WHERE t.session_id = $1"
                " AND (t.client_message_id = $2 OR t.status = 'running')",
                session_id,
                client_message_id,
            )
            for row in found:
                if row[2] == client_message_id:
                    return BeginTurn(
                        turn_from_row(row),
                        row[9],
                        True,
                        version_after(int(before), expect_version, 0),
                    )
            if found:
                raise TurnRunningElsewhere(turn_from_row(found[0]))
            now = self._clock()
            turn = TurnRecord(
                id=new_turn_id(),
                session_id=session_id,
                client_message_id=client_message_id,
                status="running",
                finish_reason=None,
                started_at=now,
                ended_at=None,
                timings=None,
                owner=owner,
            )
            message_id = new_message_id()
            await conn.execute(
                f"WITH {_BUMP},"
                " s AS (UPDATE sessions SET seq_reserved = GREATEST(seq_reserved, $3),"
                "  updated_at = $4, version = version + 1 WHERE id = $2),"
                " t AS (INSERT INTO turns"
                "  (id, session_id, client_message_id, status, started_at, owner)"
                "  VALUES ($5, $2, $6, 'running', $4, $7))"
                " INSERT INTO messages"
                " (id, session_id, turn_id, role, text, status, created_at, seq)"
                f" VALUES ($8, $2, $5, 'user', $9, 'complete', $4, {_NEXT_SEQ})",
                self._id,
                session_id,
                reserved,
                now,
                turn.id,
                client_message_id,
                owner,
                message_id,
                stored_text,
            )
            return BeginTurn(turn, message_id, False, version_after(int(before), expect_version))

        return await self._write(begin)

    async def finish_turn(
        self,
        turn_id: str,
        *,
        text: str,
        status: Literal["complete", "partial", "failed"],
        finish_reason: FinishReason,
        tool_outputs: Iterable[Mapping[str, Any]],
        context: Mapping[str, Any],
        last_seq: int,
        timings: Mapping[str, Any],
        expect_version: int | None = None,
        tool_calls: Iterable[ToolCallRecord] = (),
        model: str | None = None,
    ) -> FinishTurn:
        """See :meth:`partchat.store.protocol.SessionStore.finish_turn`."""
        check_finish(status, finish_reason, text)
        if not is_valid_id(turn_id):
            raise UnknownTurn(turn_id)
        outputs = [dict(item) for item in tool_outputs]
        tool_outputs_json = _dumps(outputs) if outputs else None
        context_json = _dumps(dict(context))
        timings_json = _dumps(dict(timings))
        first_token_ms = timings.get("firstTokenMs")
        calls = [_tool_call_json(i, call) for i, call in enumerate(tool_calls)]
        calls_json = _dumps(calls) if calls else None
        seq = int(last_seq)
        stored_text = _text(text)

        async def finish(conn: asyncpg.Connection) -> FinishTurn:
            locked = await conn.fetchrow(
                "SELECT id, version FROM sessions"
                " WHERE id = (SELECT session_id FROM turns WHERE id = $1) FOR UPDATE",
                turn_id,
            )
            if locked is None:
                raise UnknownTurn(turn_id)
            session_id, before = locked[0], int(locked[1])
            row = await conn.fetchrow(
                "SELECT t.status, (SELECT m.id FROM messages m"
                "  WHERE m.turn_id = t.id AND m.role = 'assistant')"
                " FROM turns t WHERE t.id = $1",
                turn_id,
            )
            if row is None:
                raise UnknownTurn(turn_id)
            if row[0] != "running":
                if row[1] is not None:
                    return FinishTurn(str(row[1]), version_after(before, expect_version, 0))
                raise StoreError(f"turn {turn_id} is {row[0]} without an answer")
            now = self._clock()
            message_id = new_message_id()
            await conn.execute(
                f"WITH {_BUMP},"
                " t AS (UPDATE turns SET status = $3, finish_reason = $4, ended_at = $5,"
                "  timings = $6::jsonb, model = $14, first_token_ms = $15 WHERE id = $7),"
                " s AS (UPDATE sessions SET context = $8::jsonb,"
                "  last_seq = GREATEST(last_seq, $9), updated_at = $5,"
                f"  version = version + 1 WHERE id = $2), {_INSERT_TOOL_CALLS}"
                " INSERT INTO messages"
                " (id, session_id, turn_id, role, text, status, tool_outputs, created_at, seq)"
                f" VALUES ($10, $2, $7, 'assistant', $11, $12, $13::jsonb, $5, {_NEXT_SEQ})",
                self._id,
                session_id,
                TURN_STATUS_FOR_REASON[finish_reason],
                finish_reason,
                now,
                timings_json,
                turn_id,
                context_json,
                seq,
                message_id,
                stored_text,
                status,
                tool_outputs_json,
                model,
                first_token_ms,
                calls_json,
            )
            return FinishTurn(message_id, version_after(before, expect_version))

        return await self._write(finish)

    async def get_turn(self, turn_id: str) -> TurnRecord | None:
        if not is_valid_id(turn_id):
            return None
        row = await self._fetchrow(f"SELECT {_TURN_COLUMNS} FROM turns WHERE id = $1", turn_id)
        return turn_from_row(row) if row else None

    async def running_turn(self, session_id: str) -> TurnRecord | None:
        if not is_valid_id(session_id):
            return None
        row = await self._fetchrow(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE session_id = $1 AND status = 'running'"
            " ORDER BY started_at DESC LIMIT 1",
            session_id,
        )
        return turn_from_row(row) if row else None

    async def running_turns(self, owners: Iterable[str]) -> list[TurnRecord]:
        """See :meth:`partchat.store.protocol.SessionStore.running_turns`."""
        chosen = sorted(set(owners))
        if not chosen:
            return []
        rows = await self._fetch(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE status = 'running'"
            " AND owner = ANY($1::text[]) ORDER BY started_at",
            chosen,
        )
        return [turn_from_row(row) for row in rows]

    async def mark_interrupted(
        self,
        owners: Iterable[str] | None = None,
        *,
        unowned: bool = False,
        texts: Mapping[str, str] | None = None,
    ) -> int:
        """See :meth:`partchat.store.protocol.SessionStore.mark_interrupted`."""
        written = texts or {}
        chosen = sorted(set(owners)) if owners is not None else None
        if chosen is not None and not chosen and not unowned:
            return 0
        where = "status = 'running'"
        if chosen is not None:
            where += " AND (owner = ANY($1::text[])" + (" OR owner IS NULL)" if unowned else ")")
        args: tuple[Any, ...] = (chosen,) if chosen is not None else ()

        async def interrupt(conn: asyncpg.Connection) -> int:
            # Lock the sessions (in id order: no deadlock with another sweep), then read
            # their running turns afresh.
            sessions = [
                row[0]
                for row in await conn.fetch(
                    "SELECT id FROM sessions WHERE id IN"
                    f" (SELECT session_id FROM turns WHERE {where}) ORDER BY id FOR UPDATE",
                    *args,
                )
            ]
            if not sessions:
                return 0
            where_locked = where.replace("$1", "$2")
            rows = await conn.fetch(
                f"SELECT id, session_id FROM turns WHERE session_id = ANY($1::text[])"
                f" AND {where_locked}",
                sessions,
                *args,
            )
            if not rows:
                return 0
            now = self._clock()
            turn_ids = [row[0] for row in rows]
            session_ids = [row[1] for row in rows]  # one running turn per session
            await conn.execute(
                f"WITH {_BUMP},"
                " t AS (UPDATE turns SET status = 'interrupted', ended_at = $2"
                "  WHERE id = ANY($3::text[])),"
                " s AS (UPDATE sessions SET version = version + 1 WHERE id = ANY($4::text[]))"
                " INSERT INTO messages"
                " (id, session_id, turn_id, role, text, status, created_at, seq)"
                " SELECT i.mid, i.sid, i.tid, 'assistant', i.txt, 'interrupted', $2,"
                "  (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = i.sid)"
                " FROM unnest($5::text[], $4::text[], $3::text[], $6::text[])"
                " AS i (mid, sid, tid, txt)",
                self._id,
                now,
                turn_ids,
                session_ids,
                [new_message_id() for _ in rows],
                [_text(written.get(t, "")) for t in turn_ids],
            )
            return len(rows)

        return await self._write(interrupt)

    # ----------------------------------------------------------------- workers

    async def heartbeat(self, boot_id: str, *, pid: int, host: str) -> None:
        now = self._clock()

        async def beat(conn: asyncpg.Connection) -> None:
            await conn.execute(
                f"WITH {_BUMP} INSERT INTO workers ({_WORKER_COLUMNS})"
                " VALUES ($2, $3, $4, $5, $5) ON CONFLICT (boot_id) DO UPDATE"
                " SET heartbeat_at = excluded.heartbeat_at, pid = excluded.pid,"
                " host = excluded.host",
                self._id,
                boot_id,
                int(pid),
                host,
                now,
            )

        await self._write(beat, transaction=False)

    async def get_worker(self, boot_id: str) -> WorkerRecord | None:
        row = await self._fetchrow(
            f"SELECT {_WORKER_COLUMNS} FROM workers WHERE boot_id = $1", boot_id
        )
        return worker_from_row(row) if row else None

    async def workers(self) -> list[WorkerRecord]:
        rows = await self._fetch(
            f"SELECT {_WORKER_COLUMNS} FROM workers ORDER BY started_at, boot_id"
        )
        return [worker_from_row(row) for row in rows]

    async def running_owners(self) -> dict[str, WorkerRecord | None]:
        rows = await self._fetch(
            "SELECT o.owner, w.boot_id, w.pid, w.host, w.started_at, w.heartbeat_at"
            " FROM (SELECT DISTINCT owner FROM turns"
            "       WHERE status = 'running' AND owner IS NOT NULL) AS o"
            " LEFT JOIN workers AS w ON w.boot_id = o.owner"
        )
        return {row[0]: worker_from_row(row, 1) if row[1] is not None else None for row in rows}

    async def forget_workers(self, boot_ids: Iterable[str]) -> int:
        ids = sorted(set(boot_ids))
        if not ids:
            return 0

        async def forget(conn: asyncpg.Connection) -> int:
            return int(
                await conn.fetchval(
                    f"WITH {_BUMP}, d AS (DELETE FROM workers WHERE boot_id = ANY($2::text[])"
                    " RETURNING 1) SELECT COUNT(*) FROM d",
                    self._id,
                    ids,
                )
            )

        return await self._write(forget, transaction=False)

    # ----------------------------------------------------------------- reads

    async def history(
        self, session_id: str, limit: int = 50, *, client_ids: bool = False
    ) -> list[HistoryMessage]:
        if not is_valid_id(session_id) or limit <= 0:
            return []
        rows = await self._fetch(
            f"{HISTORY_SELECT} WHERE m.session_id = $1 ORDER BY m.seq DESC LIMIT $2",
            session_id,
            int(limit),
        )
        rows.reverse()
        return [history_from_row(row, client_ids) for row in rows]

    async def count_user_messages(self) -> int:
        return int(await self._fetchval("SELECT COUNT(*) FROM messages WHERE role = 'user'"))

    # ----------------------------------------------------------------- feedback

    async def save_feedback(
        self,
        session_id: str,
        turn_id: str,
        rating: Rating,
        reason: str | None = None,
        *,
        expect_version: int | None = None,
    ) -> SavedFeedback:
        """See :meth:`partchat.store.protocol.SessionStore.save_feedback`."""
        check_feedback(session_id, turn_id, rating, reason)
        stored_reason = None if reason is None else _text(reason)

        async def save(conn: asyncpg.Connection) -> SavedFeedback:
            before = await conn.fetchval(_LOCK_SESSION, session_id)
            if before is None:
                raise UnknownSession(session_id)
            found = await conn.fetchrow(
                "SELECT (SELECT 1 FROM messages m WHERE m.turn_id = $1 AND m.role = 'assistant'"
                "  AND m.session_id = $2), f.rating, f.reason, f.updated_at"
                " FROM (SELECT 1) AS one LEFT JOIN feedback f"
                " ON f.turn_id = $1 AND f.session_id = $2",
                turn_id,
                session_id,
            )
            assert found is not None
            if found[0] is None:
                raise UnknownTurn(turn_id)
            if found[1] == rating and found[2] == stored_reason:
                unchanged = version_after(int(before), expect_version, 0)
                return SavedFeedback(turn_id, rating, reason, found[3], False, unchanged)
            now = self._clock()
            await conn.execute(
                f"WITH {_BUMP}, s AS (UPDATE sessions SET version = version + 1 WHERE id = $3)"
                " INSERT INTO feedback (turn_id, session_id, rating, reason, created_at,"
                " updated_at) VALUES ($2, $3, $4, $5, $6, $6) ON CONFLICT (turn_id) DO UPDATE"
                " SET rating = excluded.rating, reason = excluded.reason,"
                " updated_at = excluded.updated_at",
                self._id,
                turn_id,
                session_id,
                rating,
                stored_reason,
                now,
            )
            return SavedFeedback(
                turn_id, rating, reason, now, True, version_after(int(before), expect_version)
            )

        return await self._write(save)

    # ----------------------------------------------------------------- operator reads

    async def admin_sessions(
        self, filters: AdminFilters, *, limit: int, after: tuple[float, str] | None = None
    ) -> AdminPage:
        """See :meth:`partchat.store.protocol.SessionStore.admin_sessions`."""
        where, params = filter_sql(filters, after, "postgres")
        sql = numbered(page_sql(where))

        async def read(conn: asyncpg.Connection) -> AdminPage:
            rows = list(await conn.fetch(sql, *params, int(limit) + 1))
            ids = page_ids(rows, limit)
            unknown = (
                await conn.fetch(
                    f"{UNKNOWN_OF_SESSIONS} = ANY($1::text[])"
                    " ORDER BY c.created_at, c.turn_id, c.position",
                    ids,
                )
                if ids
                else []
            )
            return summary_page(rows, limit, unknown)

        return await self._read_snapshot(read)

    async def admin_details(self, session_ids: Sequence[str]) -> list[dict[str, Any]]:
        """See :meth:`partchat.store.protocol.SessionStore.admin_details`."""
        ids = detail_ids(session_ids)
        if not ids:
            return []

        async def read(conn: asyncpg.Connection) -> list[dict[str, Any]]:
            sessions = await conn.fetch(
                f"SELECT {DETAIL_SESSION_COLUMNS} FROM sessions s WHERE s.id = ANY($1::text[])",
                ids,
            )
            turns = await conn.fetch(
                f"SELECT {DETAIL_TURN_COLUMNS} WHERE t.session_id = ANY($1::text[])"
                " ORDER BY t.started_at, u.seq",
                ids,
            )
            calls = await conn.fetch(
                f"SELECT {DETAIL_TOOL_COLUMNS} WHERE c.session_id = ANY($1::text[])"
                " ORDER BY c.turn_id, c.position",
                ids,
            )
            return details_in_order(ids, sessions, turns, calls)

        return await self._read_snapshot(read)

    async def admin_stats(self, first: date, last: date) -> dict[str, Any]:
        """See :meth:`partchat.store.protocol.SessionStore.admin_stats`."""
        start, end, days = day_range(first, last)

        async def read(conn: asyncpg.Connection) -> dict[str, Any]:
            async def rows(sql: str) -> list[Any]:
                return list(await conn.fetch(sql, start, end))

            day_rows = await rows(
                "SELECT to_char(to_timestamp(m.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD'),"
                " COUNT(*), COUNT(*) FILTER (WHERE f.rating = 'down'), COUNT(f.rating)"
                " FROM messages m LEFT JOIN feedback f ON f.turn_id = m.turn_id"
                " WHERE m.role = 'assistant' AND m.created_at >= $1 AND m.created_at < $2"
                " GROUP BY 1"
            )
            unknown = (
                "SELECT j, COUNT(*) FROM tool_calls c, jsonb_array_elements_text(c.{0}) j"
                " WHERE c.{0} IS NOT NULL AND c.created_at >= $1 AND c.created_at < $2"
                f" GROUP BY j ORDER BY 2 DESC, 1 LIMIT {TOP_LIMIT}"
            )
            parts = await rows(unknown.format("unknown_parts"))
            models = await rows(unknown.format("unknown_models"))
            symptoms = await rows(
                "SELECT j, COUNT(*) FROM sessions s, jsonb_array_elements_text("
                "CASE jsonb_typeof(s.context -> 'symptoms') WHEN 'array'"
                " THEN s.context -> 'symptoms' ELSE '[]'::jsonb END) j"
                " WHERE s.updated_at >= $1 AND s.updated_at < $2"
                f" GROUP BY j ORDER BY 2 DESC, 1 LIMIT {TOP_LIMIT}"
            )
            tools = await rows(
                "SELECT COUNT(*), COUNT(*) FILTER (WHERE NOT ok) FROM tool_calls"
                " WHERE created_at >= $1 AND created_at < $2"
            )
            ttft = await rows(  # nearest rank, as the SQLite backend
                "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY first_token_ms),"
                " percentile_disc(0.95) WITHIN GROUP (ORDER BY first_token_ms) FROM turns"
                " WHERE started_at >= $1 AND started_at < $2 AND first_token_ms IS NOT NULL"
            )
            return stats_record(days, day_rows, parts, models, symptoms, tools[0], ttft[0])

        return await self._read_snapshot(read)

    # ----------------------------------------------------------------- retention

    async def purge_older_than(self, seconds: float) -> int:
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError("seconds must be a finite number >= 0")
        cutoff = self._clock() - seconds

        async def purge(conn: asyncpg.Connection) -> int:
            return int(
                await conn.fetchval(
                    f"WITH {_BUMP}, d AS (DELETE FROM sessions WHERE updated_at < $2"
                    " RETURNING 1) SELECT COUNT(*) FROM d",
                    self._id,
                    cutoff,
                )
            )

        return await self._write(purge, transaction=False)
