"""The SQLite backend: sessions, turns and messages in ``sessions.db``, on aiosqlite.

One :class:`SqliteStore` owns one aiosqlite connection (WAL, ``synchronous=NORMAL``,
foreign keys on, ``busy_timeout`` 5000 ms): every statement runs on aiosqlite's thread,
so waiting for another process's write lock, a checkpoint's ``fsync`` or a slow disk
never stalls the event loop. Several server processes share the file; readers in other
processes read concurrently thanks to WAL.

Each store operation is one unit of work under an :class:`asyncio.Lock`, so a
transaction is never interleaved with another unit's statements. A write unit is one
``BEGIN IMMEDIATE`` … ``COMMIT`` (any exception rolls it back) and, once it holds the
lock, runs to completion even if its caller is cancelled; a write of one statement is
its own transaction (autocommit). Each statement is one hop to aiosqlite's thread, so
units use as few statements as they can: a turn's write starts with the UPDATE that
decides the rest and reads, in its ``RETURNING`` clause, what the decision needs (a
duplicate ``begin_turn`` then rolls back); the session version after a write is derived
from the version before it (the version triggers add exactly one per written row, see
``_MIGRATIONS``) rather than read again.

A chat turn is two write transactions: :meth:`SqliteStore.begin_turn` commits the turn
row (``running``) and the user message before the LLM is called;
:meth:`SqliteStore.finish_turn` commits the assistant message (whole, partial or
failed), the turn's final status and the session's context / ``last_seq``.

Ordering
    ``messages.seq`` is a per-session message ordinal (1, 2, 3 ...), assigned inside the
    write transaction; history is ordered by it. It is unrelated to the wire protocol's
    event ``seq``, which lives in ``sessions.last_seq`` / ``sessions.seq_reserved`` (both
    only ever move forward).

Errors
    ``sqlite3.OperationalError`` (database locked, disk I/O error, read-only database,
    disk full) becomes :class:`StorageUnavailable` with a short message that is safe to
    show a client; the transaction is rolled back first.

Schema versions are tracked with ``PRAGMA user_version``; :data:`_MIGRATIONS` holds one
tuple of statements per version and :meth:`SqliteStore.open` applies the missing ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import date
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar, cast

import aiosqlite
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

_FEEDBACK_LOOKUP = (
    "SELECT s.version, (SELECT 1 FROM messages m WHERE m.turn_id = ?1 AND m.role = 'assistant'"
    "  AND m.session_id = s.id), f.rating, f.reason, f.updated_at FROM sessions s"
    " LEFT JOIN feedback f ON f.turn_id = ?1 AND f.session_id = s.id WHERE s.id = ?2"
)
_UPSERT_FEEDBACK = (
    "INSERT INTO feedback (turn_id, session_id, rating, reason, created_at, updated_at)"
    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (turn_id) DO UPDATE SET rating = excluded.rating,"
    " reason = excluded.reason, updated_at = excluded.updated_at"
)


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" * len(values))


__all__ = ["DEFAULT_BUSY_TIMEOUT_MS", "SCHEMA_VERSION", "SqliteStore", "purge_sessions"]

T = TypeVar("T")

DEFAULT_BUSY_TIMEOUT_MS = 5000

# --------------------------------------------------------------------------- schema

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # version 1: initial schema
    (
        """
        CREATE TABLE sessions (
            id           TEXT PRIMARY KEY,
            created_at   REAL NOT NULL,
            updated_at   REAL NOT NULL,
            context      TEXT NOT NULL,
            last_seq     INTEGER NOT NULL DEFAULT 0,
            seq_reserved INTEGER NOT NULL DEFAULT 0
        )
        """,
        "CREATE INDEX sessions_updated_at ON sessions(updated_at)",
        """
        CREATE TABLE turns (
            id                TEXT PRIMARY KEY,
            session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            client_message_id TEXT NOT NULL,
            status            TEXT NOT NULL CHECK (status IN
                                ('running', 'complete', 'aborted', 'failed', 'interrupted')),
            finish_reason     TEXT CHECK (finish_reason IS NULL OR finish_reason IN
                                ('stop', 'aborted', 'error', 'length')),
            started_at        REAL NOT NULL,
            ended_at          REAL,
            timings           TEXT,
            UNIQUE (session_id, client_message_id)
        )
        """,
        "CREATE INDEX turns_running ON turns(session_id) WHERE status = 'running'",
        """
        CREATE TABLE messages (
            id           TEXT PRIMARY KEY,
            session_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            turn_id      TEXT NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
            role         TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
            text         TEXT NOT NULL,
            status       TEXT NOT NULL CHECK (status IN
                           ('complete', 'partial', 'failed', 'interrupted')),
            tool_outputs TEXT,
            created_at   REAL NOT NULL,
            seq          INTEGER NOT NULL
        )
        """,
        "CREATE UNIQUE INDEX messages_session_seq ON messages(session_id, seq)",
        "CREATE INDEX messages_turn ON messages(turn_id, role)",
    ),
    # version 2: which server process runs a turn, and which processes are alive
    (
        "ALTER TABLE turns ADD COLUMN owner TEXT",
        """
        CREATE TABLE workers (
            boot_id      TEXT PRIMARY KEY,
            pid          INTEGER NOT NULL,
            host         TEXT NOT NULL,
            started_at   REAL NOT NULL,
            heartbeat_at REAL NOT NULL
        )
        """,
    ),
    # version 3: a session's version, moved by every write that changes what a hub holds
    # (its row's context and seqs, its turns, its messages), so a process can tell whether
    # another one wrote *this* session since it read it. Triggers, so no write forgets;
    # each adds exactly one per written row, which the store relies on (_moved).
    (
        "ALTER TABLE sessions ADD COLUMN version INTEGER NOT NULL DEFAULT 0",
        *(
            f"CREATE TRIGGER {name} AFTER {event} BEGIN"
            f" UPDATE sessions SET version = version + 1 WHERE id = NEW.{key}; END"
            for name, event, key in (
                ("sessions_version", "UPDATE OF context, last_seq, seq_reserved ON sessions", "id"),
                ("turns_insert_version", "INSERT ON turns", "session_id"),
                ("turns_update_version", "UPDATE ON turns", "session_id"),
                ("messages_version", "INSERT ON messages", "session_id"),
            )
        ),
    ),
    # version 4: what each turn did (tool calls, timings, model) and the shopper's
    # ratings, for the operator (partchat.store.admin); indexes for its lists and stats.
    (
        "ALTER TABLE turns ADD COLUMN model TEXT",
        "ALTER TABLE turns ADD COLUMN first_token_ms REAL",
        """
        CREATE TABLE tool_calls (
            turn_id        TEXT NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
            position       INTEGER NOT NULL,
            session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            tool_call_id   TEXT NOT NULL,
            round          INTEGER NOT NULL,
            name           TEXT NOT NULL,
            arguments      TEXT NOT NULL,
            ok             INTEGER NOT NULL,
            error_code     TEXT,
            duration_ms    REAL NOT NULL,
            result_bytes   INTEGER NOT NULL,
            result         TEXT,
            unknown_parts  TEXT,
            unknown_models TEXT,
            created_at     REAL NOT NULL,
            PRIMARY KEY (turn_id, position)
        )
        """,
        "CREATE INDEX tool_calls_session ON tool_calls(session_id)",
        "CREATE INDEX tool_calls_errors ON tool_calls(session_id) WHERE NOT ok",
        "CREATE INDEX tool_calls_unknown ON tool_calls(session_id)"
        " WHERE (unknown_parts IS NOT NULL OR unknown_models IS NOT NULL)",
        # covering for the stats: calls and errors, unknown numbers, answers, first tokens
        "CREATE INDEX tool_calls_created ON tool_calls(created_at, ok)",
        "CREATE INDEX tool_calls_unknown_parts ON tool_calls(created_at)"
        " WHERE unknown_parts IS NOT NULL",
        "CREATE INDEX tool_calls_unknown_models ON tool_calls(created_at)"
        " WHERE unknown_models IS NOT NULL",
        """
        CREATE TABLE feedback (
            turn_id    TEXT PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            rating     TEXT NOT NULL CHECK (rating IN ('up', 'down')),
            reason     TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
        "CREATE INDEX feedback_session ON feedback(session_id, rating)",
        "CREATE INDEX sessions_activity ON sessions(updated_at DESC, id DESC)",
        "CREATE INDEX turns_started ON turns(started_at, first_token_ms)",
        "CREATE INDEX turns_errors ON turns(session_id)"
        " WHERE (status IN ('failed', 'interrupted') OR finish_reason = 'error')",
        "CREATE INDEX messages_answers ON messages(created_at, role, turn_id)"
        " WHERE role = 'assistant'",
    ),
)

SCHEMA_VERSION = len(_MIGRATIONS)

_TURN_COLUMNS = (
    "id, session_id, client_message_id, status, finish_reason, started_at, ended_at, timings, owner"
)
_WORKER_COLUMNS = "boot_id, pid, host, started_at, heartbeat_at"
_SESSION_COLUMNS = "id, created_at, updated_at, context, last_seq, seq_reserved, version"
_INSERT_MESSAGE = (
    "INSERT INTO messages"
    " (id, session_id, turn_id, role, text, status, tool_outputs, created_at, seq)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?,"
    " (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?))"
)
_SELECT_VERSION = "SELECT version FROM sessions WHERE id = ?"
# begin_turn's first statement: the session's reservation written, and what decides the
# rest read in the same statement (RETURNING reports the row before the version trigger
# this UPDATE fires: the version before the unit): the turn already stored under this
# client message id, and a turn running under another owner.
_BEGIN_UPDATE = (
    "UPDATE sessions SET seq_reserved = MAX(seq_reserved, ?), updated_at = ? WHERE id = ?"
    " RETURNING version,"
    " (SELECT t.id FROM turns t WHERE t.session_id = sessions.id AND t.client_message_id = ?),"
    " (SELECT r.id FROM turns r WHERE r.session_id = sessions.id AND r.status = 'running'"
    "  AND r.owner IS NOT NULL AND r.owner != ?"
    "  ORDER BY r.started_at DESC, r.rowid DESC LIMIT 1)"
)
# finish_turn's first statement: the turn closed if it is still running, with its session
# and that session's version before the unit.
_FINISH_UPDATE = (
    "UPDATE turns SET status = ?, finish_reason = ?, ended_at = ?, timings = ?, model = ?,"
    " first_token_ms = ?"
    " WHERE id = ? AND status = 'running'"
    " RETURNING session_id, (SELECT version FROM sessions WHERE id = turns.session_id)"
)
# a turn no longer running: its status, session version and stored answer
_FINISH_LOOKUP = (
    "SELECT t.status, s.version,"
    " (SELECT m.id FROM messages m WHERE m.turn_id = t.id AND m.role = 'assistant')"
    " FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.id = ?"
)


_INSERT_TOOL_CALL = (
    "INSERT INTO tool_calls (turn_id, position, tool_call_id, round, name, arguments, ok,"
    " error_code, duration_ms, result_bytes, result, unknown_parts, unknown_models,"
    " session_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _dumps(value: object) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def _tool_call_row(turn_id: str, position: int, call: ToolCallRecord) -> tuple[Any, ...]:
    """A tool call's ``tool_calls`` columns up to ``unknown_models`` (JSON as text)."""
    return (
        turn_id,
        position,
        call["toolCallId"],
        int(call["round"]),
        call["name"],
        _dumps(call["arguments"]),
        1 if call["ok"] else 0,
        call["errorCode"],
        float(call["durationMs"]),
        int(call["resultBytes"]),
        None if call["result"] is None else _dumps(call["result"]),
        _dumps(call["unknownParts"]) if call["unknownParts"] else None,
        _dumps(call["unknownModels"]) if call["unknownModels"] else None,
    )


# --------------------------------------------------------------------------- errors


def _is_storage_failure(exc: BaseException) -> bool:
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


def _consume_exception(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


Work = Callable[[aiosqlite.Connection], Awaitable[T]]


class _Undo(Exception):  # not an error: a unit's answer, its writes undone
    """Raised by a unit's work to roll the transaction back and return ``result``."""

    def __init__(self, result: object) -> None:
        super().__init__()
        self.result = result


# --------------------------------------------------------------------------- store


class SqliteStore:
    """:class:`~partchat.store.protocol.SessionStore` on ``sessions.db``. Build it with
    :meth:`open`; :meth:`close` it."""

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
    ) -> SqliteStore:
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
            return await _user_version(conn)

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
            for statements in _MIGRATIONS[await _user_version(conn) :]:
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

    async def __aenter__(self) -> SqliteStore:
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
        return await self._read(_user_version)

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
                if _is_storage_failure(exc):
                    raise _unavailable(exc) from exc
                raise

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
                if isinstance(exc, _Undo):
                    return cast(T, exc.result)
                raise
            return result
        except sqlite3.Error as exc:
            if _is_storage_failure(exc):
                raise _unavailable(exc) from exc
            raise

    # ----------------------------------------------------------------- sessions

    async def create_session(self) -> SessionRecord:
        now = self._clock()
        context = empty_context()
        session_id = new_session_id()
        payload = _dumps(context)

        async def create(conn: aiosqlite.Connection) -> None:
            await conn.execute(
                f"INSERT INTO sessions ({_SESSION_COLUMNS}) VALUES (?, ?, ?, ?, 0, 0, 0)",
                (session_id, now, now, payload),
            )

        await self._write(create, single=True)
        return SessionRecord(session_id, now, now, context, 0, 0, 0)

    async def get_session(self, session_id: str) -> SessionRecord | None:
        if not is_valid_id(session_id):
            return None
        row = await self._fetch_one(
            f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE id = ?", (session_id,)
        )
        return session_from_row(row) if row else None

    async def session_version(self, session_id: str) -> int | None:
        """The session's version (None: no such session). It moves with every write to
        the session, by any process."""
        if not is_valid_id(session_id):
            return None
        row = await self._fetch_one(_SELECT_VERSION, (session_id,))
        return int(row[0]) if row else None

    async def save_context(
        self, session_id: str, context: Mapping[str, Any], *, expect_version: int | None = None
    ) -> int | None:
        """Replace the session's context. Raises :class:`UnknownSession`.

        Returns the session's version after the write when it was ``expect_version``
        before it (the caller's view of the session is still whole), else None."""
        if not is_valid_id(session_id):
            raise UnknownSession(session_id)
        payload = _dumps(dict(context))
        now = self._clock()

        async def save(conn: aiosqlite.Connection) -> int | None:
            # RETURNING reports the row as this statement wrote it, before the version
            # trigger it fires: the version before the write.
            rows = await conn.execute_fetchall(
                "UPDATE sessions SET context = ?, updated_at = ? WHERE id = ? RETURNING version",
                (payload, now, session_id),
            )
            rows = list(rows)
            if not rows:
                raise UnknownSession(session_id)
            return version_after(int(rows[0][0]), expect_version, 1)

        return await self._write(save, single=True)

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
        """See :meth:`partchat.store.protocol.SessionStore.begin_turn`."""
        if not is_valid_id(session_id):
            raise UnknownSession(session_id)
        check_client_message_id(client_message_id)
        reserved = int(seq_reserved)

        async def begin(conn: aiosqlite.Connection) -> BeginTurn:
            now = self._clock()
            found = list(
                await conn.execute_fetchall(
                    _BEGIN_UPDATE, (reserved, now, session_id, client_message_id, owner or "")
                )
            )
            if not found:
                raise UnknownSession(session_id)
            before, existing, elsewhere = found[0]
            if existing is not None or (owner is not None and elsewhere is not None):
                rows = list(
                    await conn.execute_fetchall(
                        f"SELECT {_TURN_COLUMNS}, (SELECT id FROM messages"
                        " WHERE turn_id = turns.id AND role = 'user') FROM turns WHERE id = ?",
                        (existing or elsewhere,),
                    )
                )
                if existing is None:
                    raise TurnRunningElsewhere(turn_from_row(rows[0]))
                # A duplicate writes nothing: the reservation above is rolled back.
                raise _Undo(
                    BeginTurn(
                        turn=turn_from_row(rows[0]),
                        user_message_id=rows[0][9],
                        duplicate=True,
                        session_version=version_after(before, expect_version, 0),
                    )
                )

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
            await conn.execute(
                "INSERT INTO turns (id, session_id, client_message_id, status, started_at, owner)"
                " VALUES (?, ?, ?, 'running', ?, ?)",
                (turn.id, session_id, client_message_id, now, owner),
            )
            message_id = new_message_id()
            await conn.execute(
                _INSERT_MESSAGE,
                (message_id, session_id, turn.id, "user", text, "complete", None, now, session_id),
            )
            # three rows written: the session, the turn, the message
            return BeginTurn(turn, message_id, False, version_after(before, expect_version, 3))

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
        # Serialise before the transaction: a bad payload must not leave one open.
        outputs = [dict(item) for item in tool_outputs]
        tool_outputs_json = _dumps(outputs) if outputs else None
        context_json = _dumps(dict(context))
        timings_json = _dumps(dict(timings))
        first_token_ms = timings.get("firstTokenMs")
        seq = int(last_seq)
        calls = [_tool_call_row(turn_id, i, call) for i, call in enumerate(tool_calls)]

        async def finish(conn: aiosqlite.Connection) -> FinishTurn:
            now = self._clock()
            closed = list(
                await conn.execute_fetchall(
                    _FINISH_UPDATE,
                    (
                        TURN_STATUS_FOR_REASON[finish_reason],
                        finish_reason,
                        now,
                        timings_json,
                        model,
                        first_token_ms,
                        turn_id,
                    ),
                )
            )
            if not closed:  # unknown, or finished already: nothing written
                found = list(await conn.execute_fetchall(_FINISH_LOOKUP, (turn_id,)))
                if not found:
                    raise UnknownTurn(turn_id)
                turn_status, before, answer_id = found[0]
                if answer_id is not None:
                    return FinishTurn(str(answer_id), version_after(before, expect_version, 0))
                raise StoreError(f"turn {turn_id} is {turn_status} without an answer")
            session_id, before = closed[0]
            message_id = new_message_id()
            await conn.execute(
                _INSERT_MESSAGE,
                (
                    message_id,
                    session_id,
                    turn_id,
                    "assistant",
                    text,
                    status,
                    tool_outputs_json,
                    now,
                    session_id,
                ),
            )
            await conn.execute(
                "UPDATE sessions SET context = ?, last_seq = MAX(last_seq, ?), updated_at = ?"
                " WHERE id = ?",
                (context_json, seq, now, session_id),
            )
            if calls:  # rows without a version trigger: the version arithmetic holds
                await conn.executemany(
                    _INSERT_TOOL_CALL, [(*row, session_id, now) for row in calls]
                )
            # three rows written: the turn, the message, the session
            return FinishTurn(message_id, version_after(before, expect_version, 3))

        return await self._write(finish)

    async def get_turn(self, turn_id: str) -> TurnRecord | None:
        if not is_valid_id(turn_id):
            return None
        row = await self._fetch_one(f"SELECT {_TURN_COLUMNS} FROM turns WHERE id = ?", (turn_id,))
        return turn_from_row(row) if row else None

    async def running_turn(self, session_id: str) -> TurnRecord | None:
        """The session's turn still ``running`` (the latest, should there be several)."""
        if not is_valid_id(session_id):
            return None
        row = await self._fetch_one(
            f"SELECT {_TURN_COLUMNS} FROM turns"
            " WHERE session_id = ? AND status = 'running'"
            " ORDER BY started_at DESC, rowid DESC LIMIT 1",
            (session_id,),
        )
        return turn_from_row(row) if row else None

    async def running_turns(self, owners: Iterable[str]) -> list[TurnRecord]:
        """See :meth:`partchat.store.protocol.SessionStore.running_turns`."""
        chosen = tuple(sorted(set(owners)))
        if not chosen:
            return []
        rows = await self._fetch_all(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE status = 'running'"
            f" AND owner IN ({', '.join('?' * len(chosen))}) ORDER BY started_at, rowid",
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
        texts = texts or {}
        where = "status = 'running'"
        params: tuple[str, ...] = ()
        if owners is not None:
            params = tuple(sorted(set(owners)))
            chosen = [f"owner IN ({', '.join('?' * len(params))})"] if params else []
            if unowned:
                chosen.append("owner IS NULL")
            if not chosen:
                return 0
            where += f" AND ({' OR '.join(chosen)})"

        async def interrupt(conn: aiosqlite.Connection) -> int:
            rows = list(
                await conn.execute_fetchall(
                    f"SELECT id, session_id FROM turns WHERE {where} ORDER BY started_at, rowid",
                    params,
                )
            )
            now = self._clock()
            for turn_id, session_id in rows:
                await conn.execute(
                    _INSERT_MESSAGE,
                    (
                        new_message_id(),
                        session_id,
                        turn_id,
                        "assistant",
                        texts.get(turn_id, ""),
                        "interrupted",
                        None,
                        now,
                        session_id,
                    ),
                )
                await conn.execute(
                    "UPDATE turns SET status = 'interrupted', ended_at = ? WHERE id = ?",
                    (now, turn_id),
                )
            return len(rows)

        return await self._write(interrupt)

    # ----------------------------------------------------------------- workers

    async def heartbeat(self, boot_id: str, *, pid: int, host: str) -> None:
        """Record that the process ``boot_id`` is alive now (inserting its row if missing)."""
        now = self._clock()

        async def beat(conn: aiosqlite.Connection) -> None:
            await conn.execute(
                f"INSERT INTO workers ({_WORKER_COLUMNS}) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (boot_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at,"
                " pid = excluded.pid, host = excluded.host",
                (boot_id, int(pid), host, now, now),
            )

        await self._write(beat, single=True)

    async def get_worker(self, boot_id: str) -> WorkerRecord | None:
        row = await self._fetch_one(
            f"SELECT {_WORKER_COLUMNS} FROM workers WHERE boot_id = ?", (boot_id,)
        )
        return worker_from_row(row) if row else None

    async def workers(self) -> list[WorkerRecord]:
        rows = await self._fetch_all(
            f"SELECT {_WORKER_COLUMNS} FROM workers ORDER BY started_at, boot_id"
        )
        return [worker_from_row(row) for row in rows]

    async def running_owners(self) -> dict[str, WorkerRecord | None]:
        """The owners of turns still ``running``, each with its ``workers`` row (None:
        it has none). One statement, so both come from the same snapshot."""
        rows = await self._fetch_all(
            "SELECT o.owner, w.boot_id, w.pid, w.host, w.started_at, w.heartbeat_at"
            " FROM (SELECT DISTINCT owner FROM turns"
            "       WHERE status = 'running' AND owner IS NOT NULL) AS o"
            " LEFT JOIN workers AS w ON w.boot_id = o.owner"
        )
        return {row[0]: worker_from_row(row[1:]) if row[1] is not None else None for row in rows}

    async def forget_workers(self, boot_ids: Iterable[str]) -> int:
        """Delete these processes' rows (a clean shutdown, or processes found dead)."""
        ids = tuple(sorted(set(boot_ids)))
        if not ids:
            return 0

        async def forget(conn: aiosqlite.Connection) -> int:
            cursor = await conn.execute(
                f"DELETE FROM workers WHERE boot_id IN ({', '.join('?' * len(ids))})", ids
            )
            return int(cursor.rowcount)

        return await self._write(forget, single=True)

    async def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version`` on this store's connection: it changes when
        *another* connection (another process) has committed since the last look, and
        never for this store's own writes."""
        row = await self._fetch_one("PRAGMA data_version")
        return int(row[0])

    # ----------------------------------------------------------------- reads

    async def history(
        self, session_id: str, limit: int = 50, *, client_ids: bool = False
    ) -> list[HistoryMessage]:
        """See :meth:`partchat.store.protocol.SessionStore.history`."""
        if not is_valid_id(session_id) or limit <= 0:
            return []
        rows = await self._fetch_all(
            f"{HISTORY_SELECT} WHERE m.session_id = ? ORDER BY m.seq DESC LIMIT ?",
            (session_id, int(limit)),
        )
        rows.reverse()
        return [history_from_row(row, client_ids) for row in rows]

    async def count_user_messages(self) -> int:
        row = await self._fetch_one("SELECT COUNT(*) FROM messages WHERE role = 'user'")
        return int(row[0])

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

        async def save(conn: aiosqlite.Connection) -> SavedFeedback:
            found = list(await conn.execute_fetchall(_FEEDBACK_LOOKUP, (turn_id, session_id)))
            if not found:
                raise UnknownSession(session_id)
            before, answered, old_rating, old_reason, old_at = found[0]
            if answered is None:
                raise UnknownTurn(turn_id)
            if old_rating == rating and old_reason == reason:
                unchanged = version_after(before, expect_version, 0)
                raise _Undo(SavedFeedback(turn_id, rating, reason, old_at, False, unchanged))
            now = self._clock()
            await conn.execute(_UPSERT_FEEDBACK, (turn_id, session_id, rating, reason, now, now))
            await conn.execute(
                "UPDATE sessions SET version = version + 1 WHERE id = ?", (session_id,)
            )
            return SavedFeedback(
                turn_id, rating, reason, now, True, version_after(before, expect_version, 1)
            )

        return await self._write(save)

    # ----------------------------------------------------------------- operator reads

    async def admin_sessions(
        self, filters: AdminFilters, *, limit: int, after: tuple[float, str] | None = None
    ) -> AdminPage:
        """See :meth:`partchat.store.protocol.SessionStore.admin_sessions`."""
        where, params = filter_sql(filters, after, "sqlite")

        async def read(conn: aiosqlite.Connection) -> AdminPage:
            rows = list(
                await conn.execute_fetchall(
                    page_sql(where),
                    (*params, int(limit) + 1),
                )
            )
            ids = page_ids(rows, limit)
            unknown = (
                await conn.execute_fetchall(
                    f"{UNKNOWN_OF_SESSIONS} IN ({_marks(ids)})"
                    " ORDER BY c.created_at, c.turn_id, c.position",
                    ids,
                )
                if ids
                else []
            )
            return summary_page(rows, limit, list(unknown))

        return await self._read(read)

    async def admin_details(self, session_ids: Sequence[str]) -> list[dict[str, Any]]:
        """See :meth:`partchat.store.protocol.SessionStore.admin_details`."""
        ids = detail_ids(session_ids)
        if not ids:
            return []

        async def read(conn: aiosqlite.Connection) -> list[dict[str, Any]]:
            marks = _marks(ids)
            sessions = await conn.execute_fetchall(
                f"SELECT {DETAIL_SESSION_COLUMNS} FROM sessions s WHERE s.id IN ({marks})", ids
            )
            turns = await conn.execute_fetchall(
                f"SELECT {DETAIL_TURN_COLUMNS} WHERE t.session_id IN ({marks})"
                " ORDER BY t.started_at, u.seq",
                ids,
            )
            calls = await conn.execute_fetchall(
                f"SELECT {DETAIL_TOOL_COLUMNS} WHERE c.session_id IN ({marks})"
                " ORDER BY c.turn_id, c.position",
                ids,
            )
            return details_in_order(ids, sessions, turns, calls)

        return await self._read(read)

    async def admin_stats(self, first: date, last: date) -> dict[str, Any]:
        """See :meth:`partchat.store.protocol.SessionStore.admin_stats`."""
        start, end, days = day_range(first, last)
        span = (start, end)

        async def read(conn: aiosqlite.Connection) -> dict[str, Any]:
            async def rows(sql: str) -> list[Any]:
                return list(await conn.execute_fetchall(sql, span))

            day_rows = await rows(
                "SELECT date(m.created_at, 'unixepoch'), COUNT(*),"
                " SUM(f.rating = 'down'), COUNT(f.rating) FROM messages m"
                " LEFT JOIN feedback f ON f.turn_id = m.turn_id"
                " WHERE m.role = 'assistant' AND m.created_at >= ? AND m.created_at < ?"
                " GROUP BY 1"
            )
            unknown = (
                "SELECT j.value, COUNT(*) FROM tool_calls c, json_each(c.{0}) j"
                " WHERE c.{0} IS NOT NULL AND c.created_at >= ? AND c.created_at < ?"
                f" GROUP BY j.value ORDER BY 2 DESC, 1 LIMIT {TOP_LIMIT}"
            )
            parts = await rows(unknown.format("unknown_parts"))
            models = await rows(unknown.format("unknown_models"))
            symptoms = await rows(
                "SELECT j.value, COUNT(*) FROM sessions s, json_each(s.context, '$.symptoms') j"
                " WHERE s.updated_at >= ? AND s.updated_at < ?"
                f" GROUP BY j.value ORDER BY 2 DESC, 1 LIMIT {TOP_LIMIT}"
            )
            tools = await rows(
                "SELECT COUNT(*), SUM(NOT ok) FROM tool_calls"
                " WHERE created_at >= ? AND created_at < ?"
            )
            # nearest rank: the value at ceil(p * n), p in thousandths
            ttft = await rows(
                "SELECT MAX(CASE WHEN rn = (500 * n + 999) / 1000 THEN v END),"
                " MAX(CASE WHEN rn = (950 * n + 999) / 1000 THEN v END) FROM"
                " (SELECT first_token_ms AS v, ROW_NUMBER() OVER (ORDER BY first_token_ms) AS rn,"
                "  COUNT(*) OVER () AS n FROM turns WHERE started_at >= ? AND started_at < ?"
                "  AND first_token_ms IS NOT NULL)"
            )
            return stats_record(days, day_rows, parts, models, symptoms, tools[0], ttft[0])

        return await self._read(read)

    # ----------------------------------------------------------------- retention

    async def purge_older_than(self, seconds: float) -> int:
        """Delete sessions idle (``updated_at``) for more than ``seconds``, with their
        turns and messages. Returns the number of sessions deleted."""
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError("seconds must be a finite number >= 0")
        cutoff = self._clock() - seconds

        async def purge(conn: aiosqlite.Connection) -> int:
            cursor = await conn.execute("DELETE FROM sessions WHERE updated_at < ?", (cutoff,))
            return int(cursor.rowcount)

        return await self._write(purge, single=True)


async def _user_version(conn: aiosqlite.Connection) -> int:
    rows = list(await conn.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0])


async def purge_sessions(
    path: Path, seconds: float, *, clock: Callable[[], float] = time.time
) -> int:
    """Open ``path``, delete sessions idle for more than ``seconds``, close. A missing
    database has nothing to purge (and is not created)."""
    path = Path(path)
    if not path.exists():
        return 0
    store = await SqliteStore.open(path, clock=clock)
    try:
        return await store.purge_older_than(seconds)
    finally:
        await store.close()
