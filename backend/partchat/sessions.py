"""Durable session store: sessions, turns and messages in SQLite (``sessions.db``).

One :class:`SessionStore` owns one connection (WAL, ``synchronous=NORMAL``, foreign keys
on) wrapped in a :class:`~partchat.loop_sqlite.LoopSqlite`: each operation is one
function — a whole write transaction, or a read — run on the event loop when it can
finish at once, on a thread (waiting up to ``busy_timeout`` 5000 ms) when another
process holds the write lock. One operation at a time, so a transaction is never
interleaved with another's statements; readers in *other* processes still read
concurrently thanks to WAL. Checkpoints run on a thread (``Checkpointer``).

A chat turn is two write transactions:

1. :meth:`SessionStore.begin_turn` — the turn row (``running``) and the user message are
   committed *before* the LLM is called. It is idempotent on the client message id: the
   same ``(session_id, client_message_id)`` returns the existing turn with
   ``duplicate=True`` and writes nothing.
2. :meth:`SessionStore.finish_turn` — the assistant message (whole, partial or failed),
   the turn's final status and the session's context / ``last_seq``. Calling it again for
   a finished turn is a no-op.

After a crash, :meth:`SessionStore.mark_interrupted` closes turns left ``running`` with an
empty ``interrupted`` assistant message so history shows it.

Ownership (several server processes on one database)
    Each server process has a random *boot id*; :meth:`SessionStore.begin_turn` records it
    as the turn's ``owner`` and refuses (:class:`TurnRunningElsewhere`) to start a turn in a
    session where another process's turn is still ``running``. Processes keep a row in
    ``workers`` fresh (:meth:`SessionStore.heartbeat`); ``partchat.workers`` decides which
    owners are dead and has only *their* turns marked interrupted, so a process starting
    next to live siblings never interrupts their turns.

Identifiers
    * session ids: ``secrets.token_urlsafe(16)`` — 128 random bits, 22 URL-safe chars.
    * turn ids: ``"t_" + secrets.token_urlsafe(12)`` (96 bits, 18 chars).
    * message ids: ``"m_" + secrets.token_urlsafe(12)`` (96 bits, 18 chars).
    Ids from outside are checked against ``^[A-Za-z0-9_-]{16,64}$`` before any query.

Ordering
    ``messages.seq`` is a per-session message ordinal (1, 2, 3 ...), assigned inside the
    write transaction; history is ordered by it, never by wall-clock time. It is unrelated
    to the wire protocol's event ``seq``, which lives in ``sessions.last_seq`` /
    ``sessions.seq_reserved`` (both only ever move forward).

Errors
    ``sqlite3.OperationalError`` (database locked, disk I/O error, read-only database,
    disk full) raised by a store operation becomes :class:`StorageUnavailable` with a
    short message that is safe to show a client; the transaction is rolled back first.

Schema versions are tracked with ``PRAGMA user_version``; :data:`_MIGRATIONS` holds one
tuple of statements per version and :meth:`SessionStore.open` applies the missing ones.
Nothing happens at import time.
"""

from __future__ import annotations

import asyncio
import math
import re
import secrets
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypedDict, TypeVar, cast

import orjson

from partchat.loop_sqlite import (
    Checkpointer,
    LoopConnection,
    LoopSqlite,
    fetch_all,
    fetch_one,
    in_transaction,
)
from partchat.protocol import HistoryMessage

__all__ = [
    "SCHEMA_VERSION",
    "BeginTurn",
    "FinishReason",
    "FinishTurn",
    "HistoryMessage",
    "MessageStatus",
    "Role",
    "SessionContext",
    "SessionRecord",
    "SessionStore",
    "StorageUnavailable",
    "StoreError",
    "TurnRecord",
    "TurnRunningElsewhere",
    "TurnStatus",
    "UnknownSession",
    "UnknownTurn",
    "WorkerRecord",
    "empty_context",
    "is_valid_id",
    "new_message_id",
    "new_session_id",
    "new_turn_id",
    "purge_sessions",
]

T = TypeVar("T")

TurnStatus = Literal["running", "complete", "aborted", "failed", "interrupted"]
FinishReason = Literal["stop", "aborted", "error", "length"]
MessageStatus = Literal["complete", "partial", "failed", "interrupted"]
Role = Literal["user", "assistant"]

_FINISH_REASONS: frozenset[str] = frozenset({"stop", "aborted", "error", "length"})
_FINISH_MESSAGE_STATUSES: frozenset[str] = frozenset({"complete", "partial", "failed"})
_TURN_STATUS_FOR_REASON: dict[str, TurnStatus] = {
    "stop": "complete",
    "length": "complete",
    "aborted": "aborted",
    "error": "failed",
}

_ID_RE = re.compile(r"[A-Za-z0-9_-]{16,64}")
MAX_CLIENT_MESSAGE_ID_LENGTH = 256
DEFAULT_BUSY_TIMEOUT_MS = 5000


# --------------------------------------------------------------------------- errors


class StoreError(Exception):
    """Base class of the session store's errors."""


class UnknownSession(StoreError):
    """No session with that id."""


class UnknownTurn(StoreError):
    """No turn with that id."""


class TurnRunningElsewhere(StoreError):
    """The session has a turn ``running`` that another server process owns."""

    def __init__(self, turn: TurnRecord) -> None:
        super().__init__(f"turn {turn.id} is running in another server process")
        self.turn = turn


class StorageUnavailable(StoreError):
    """The database cannot take the write (locked, full, read-only, I/O error, closed).

    ``str(exc)`` is short and safe to show a client; the sqlite error is ``__cause__``.
    """


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
    elif "closed" in text or "no active connection" in text:
        message = "storage is closed"
    else:
        message = "storage unavailable"
    return StorageUnavailable(message)


# --------------------------------------------------------------------------- records


class SessionContext(TypedDict):
    """What the agent has learned about the shopper's appliance (wire ``data-context``).

    Stored as JSON as given; on read it is laid over :func:`empty_context`, so the four
    keys are always present (extra keys a caller saved are passed through).
    """

    productModel: str | None
    partNumber: str | None
    symptoms: list[str]
    applianceType: str | None


def empty_context() -> SessionContext:
    return {"productModel": None, "partNumber": None, "symptoms": [], "applianceType": None}


@dataclass(frozen=True, slots=True)
class SessionRecord:
    id: str
    created_at: float
    updated_at: float
    context: SessionContext
    last_seq: int
    seq_reserved: int
    version: int = 0  # moves with every write to the session (see _MIGRATIONS, version 3)


@dataclass(frozen=True, slots=True)
class TurnRecord:
    id: str
    session_id: str
    client_message_id: str
    status: TurnStatus
    finish_reason: FinishReason | None
    started_at: float
    ended_at: float | None
    timings: dict[str, Any] | None
    owner: str | None = None  # boot id of the server process running it (None: before v2)


@dataclass(frozen=True, slots=True)
class WorkerRecord:
    """A server process, as its row in ``workers`` describes it."""

    boot_id: str
    pid: int
    host: str
    started_at: float
    heartbeat_at: float


@dataclass(frozen=True, slots=True)
class BeginTurn:
    turn: TurnRecord
    user_message_id: str
    duplicate: bool
    session_version: int | None = None  # see SessionStore.begin_turn's expect_version


@dataclass(frozen=True, slots=True)
class FinishTurn:
    message_id: str
    session_version: int | None = None  # see SessionStore.finish_turn's expect_version


# --------------------------------------------------------------------------- ids


def new_session_id() -> str:
    return secrets.token_urlsafe(16)


def new_turn_id() -> str:
    return "t_" + secrets.token_urlsafe(12)


def new_message_id() -> str:
    return "m_" + secrets.token_urlsafe(12)


def is_valid_id(value: object) -> bool:
    """True for a string of 16-64 URL-safe characters (the shape of every store id)."""
    return isinstance(value, str) and _ID_RE.fullmatch(value) is not None


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
    # another one wrote *this* session since it read it. Triggers, so no write forgets.
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


def _dumps(value: object) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


_SELECT_VERSION = "SELECT version FROM sessions WHERE id = ?"


def _version(conn: LoopConnection, session_id: str) -> int | None:
    row = conn.execute(_SELECT_VERSION, (session_id,)).fetchone()
    return int(row[0]) if row else None


def _kept(
    conn: LoopConnection, session_id: str, before: int | None, expect: int | None
) -> int | None:
    """The session's version now, if it was ``expect`` when this write began: the
    writer's view plus its own write is the whole session. Else None (another process
    wrote the session since the writer read it)."""
    if expect is None or before != expect:
        return None
    return _version(conn, session_id)


def _load_context(raw: str | None) -> SessionContext:
    context = empty_context()
    if raw:
        stored = orjson.loads(raw)
        if isinstance(stored, dict):
            context.update(stored)  # type: ignore[typeddict-item]
    return context


def _session_from_row(row: Sequence[Any]) -> SessionRecord:
    return SessionRecord(
        id=row[0],
        created_at=row[1],
        updated_at=row[2],
        context=_load_context(row[3]),
        last_seq=row[4],
        seq_reserved=row[5],
        version=row[6],
    )


def _turn_from_row(row: Sequence[Any]) -> TurnRecord:
    return TurnRecord(
        id=row[0],
        session_id=row[1],
        client_message_id=row[2],
        status=cast(TurnStatus, row[3]),
        finish_reason=cast("FinishReason | None", row[4]),
        started_at=row[5],
        ended_at=row[6],
        timings=orjson.loads(row[7]) if row[7] else None,
        owner=row[8],
    )


def _worker_from_row(row: Sequence[Any]) -> WorkerRecord:
    return WorkerRecord(
        boot_id=row[0], pid=row[1], host=row[2], started_at=row[3], heartbeat_at=row[4]
    )


# --------------------------------------------------------------------------- store


class SessionStore:
    """Async access to ``sessions.db``. Build it with :meth:`open`; :meth:`close` it.

    Each operation is one unit of work on a :class:`~partchat.loop_sqlite.LoopSqlite`:
    run on the event loop when it can finish at once, on a thread when another process
    holds the write lock (see that module for why).
    """

    def __init__(
        self,
        db: LoopSqlite,
        *,
        clock: Callable[[], float],
        readonly: bool,
        checkpointer: Checkpointer | None,
    ) -> None:
        self._db = db
        self._clock = clock
        self._readonly = readonly
        self._checkpointer = checkpointer

    # ----------------------------------------------------------------- lifecycle

    @classmethod
    async def open(
        cls,
        path: Path,
        *,
        clock: Callable[[], float] = time.time,
        readonly: bool = False,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    ) -> SessionStore:
        """Open (and, read-write, create and migrate) the database at ``path``."""
        path = Path(path)
        if readonly:
            database, uri = path.resolve().as_uri() + "?mode=ro", True
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            database, uri = str(path), False
        try:
            db = LoopSqlite.connect(database, uri=uri, busy_timeout_ms=busy_timeout_ms)
        except sqlite3.OperationalError as exc:
            raise _unavailable(exc) from exc
        checkpointer = None if readonly else Checkpointer(database, uri=uri)
        store = cls(db, clock=clock, readonly=readonly, checkpointer=checkpointer)
        try:
            await store._configure()
        except BaseException:
            await db.close()
            raise
        if checkpointer is not None:
            checkpointer.start()
        return store

    async def _configure(self) -> None:
        readonly = self._readonly

        def configure(conn: LoopConnection) -> None:
            conn.execute("PRAGMA foreign_keys = ON")
            if not readonly:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")
                # Checkpoints fsync: the Checkpointer runs them on a thread instead.
                conn.execute("PRAGMA wal_autocheckpoint = 0")

        await self._read(configure)
        version = await self.schema_version()
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

        def migrate(conn: LoopConnection) -> None:
            # Re-read inside the write lock: another process may have migrated meanwhile.
            for statements in _MIGRATIONS[_user_version(conn) :]:
                for statement in statements:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

        await self._write(migrate)

    async def close(self) -> None:
        """Wait for the operation in flight, then close. Safe to call twice."""
        if self._checkpointer is not None:
            await self._checkpointer.stop()
        await self._db.close(None if self._readonly else _optimize)

    async def __aenter__(self) -> SessionStore:
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

    # ----------------------------------------------------------------- plumbing

    async def _read(self, work: Callable[[LoopConnection], T], *, inline: bool = True) -> T:
        """``work`` on the connection (autocommit: each statement its own snapshot)."""
        try:
            return await self._db.run(work, inline=inline)
        except (sqlite3.Error, ValueError) as exc:
            if _is_storage_failure(exc):
                raise _unavailable(exc) from exc
            raise

    async def _one(
        self, sql: str, params: tuple[Any, ...], convert: Callable[[Sequence[Any]], T]
    ) -> T | None:
        """The query's first row, converted; None when there is none."""
        row = await self._read(fetch_one(sql, params))
        return convert(row) if row else None

    async def _write(self, work: Callable[[LoopConnection], T]) -> T:
        """``work`` inside ``BEGIN IMMEDIATE`` ... ``COMMIT``; any exception rolls back.

        The whole transaction is one call: nothing else runs on the connection meanwhile,
        and a cancelled caller never leaves it half done (it commits or never starts).
        """

        checkpointer = self._checkpointer
        # A checkpoint's fsync can hold up a commit for milliseconds: not on the loop.
        inline = checkpointer is None or not checkpointer.running
        result = await self._read(in_transaction(work), inline=inline)
        if checkpointer is not None:
            checkpointer.note_write()
        return result

    @staticmethod
    async def _shielded(awaitable: Awaitable[T]) -> T:
        """Run to completion even if the caller is cancelled (its work must be kept)."""
        task = asyncio.ensure_future(awaitable)
        task.add_done_callback(_consume_exception)
        return await asyncio.shield(task)

    # ----------------------------------------------------------------- sessions

    async def create_session(self) -> SessionRecord:
        now = self._clock()
        context = empty_context()
        session_id = new_session_id()
        payload = _dumps(context)

        def create(conn: LoopConnection) -> None:
            conn.execute(
                f"INSERT INTO sessions ({_SESSION_COLUMNS}) VALUES (?, ?, ?, ?, 0, 0, 0)",
                (session_id, now, now, payload),
            )

        await self._write(create)
        return SessionRecord(session_id, now, now, context, 0, 0, 0)

    async def get_session(self, session_id: str) -> SessionRecord | None:
        if not is_valid_id(session_id):
            return None

        return await self._one(
            f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE id = ?",
            (session_id,),
            _session_from_row,
        )

    async def session_version(self, session_id: str) -> int | None:
        """The session's version (None: no such session). It moves with every write to
        the session, by any process."""
        if not is_valid_id(session_id):
            return None
        row = await self._read(fetch_one(_SELECT_VERSION, (session_id,)))
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

        def save(conn: LoopConnection) -> int | None:
            before = _version(conn, session_id)
            cursor = conn.execute(
                "UPDATE sessions SET context = ?, updated_at = ? WHERE id = ?",
                (payload, now, session_id),
            )
            if cursor.rowcount == 0:
                raise UnknownSession(session_id)
            return _kept(conn, session_id, before, expect_version)

        return await self._write(save)

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
        """Store the user message and a ``running`` turn, committed before returning.

        The same ``client_message_id`` in the same session returns the existing turn with
        ``duplicate=True`` and writes nothing. ``sessions.seq_reserved`` becomes
        ``max(current, seq_reserved)``. ``owner`` (the calling process's boot id) is
        recorded on the turn; with an owner, a turn of the session still ``running`` under
        *another* owner raises :class:`TurnRunningElsewhere` (nothing written), so two
        processes never run turns of one session at once. Raises :class:`UnknownSession`,
        :class:`StorageUnavailable` (nothing written), ``ValueError`` for a client message
        id that is empty or longer than 256 characters. ``expect_version``: as in
        :meth:`save_context`, the result's ``session_version``.
        """
        if not is_valid_id(session_id):
            raise UnknownSession(session_id)
        if (
            not isinstance(client_message_id, str)
            or not 0 < len(client_message_id) <= MAX_CLIENT_MESSAGE_ID_LENGTH
        ):
            raise ValueError(
                f"client message id must be 1-{MAX_CLIENT_MESSAGE_ID_LENGTH} characters"
            )
        reserved = int(seq_reserved)

        def begin(conn: LoopConnection) -> BeginTurn:
            before = _version(conn, session_id)
            row = conn.execute(
                f"SELECT {_TURN_COLUMNS} FROM turns WHERE session_id = ? AND client_message_id = ?",
                (session_id, client_message_id),
            ).fetchone()
            if row:
                turn = _turn_from_row(row)
                found = conn.execute(
                    "SELECT id FROM messages WHERE turn_id = ? AND role = 'user'", (turn.id,)
                ).fetchone()
                return BeginTurn(
                    turn=turn,
                    user_message_id=found[0],
                    duplicate=True,
                    session_version=_kept(conn, session_id, before, expect_version),
                )

            if owner is not None:
                elsewhere = conn.execute(
                    f"SELECT {_TURN_COLUMNS} FROM turns"
                    " WHERE session_id = ? AND status = 'running'"
                    " AND owner IS NOT NULL AND owner != ?"
                    " ORDER BY started_at DESC, rowid DESC LIMIT 1",
                    (session_id, owner),
                ).fetchone()
                if elsewhere:
                    raise TurnRunningElsewhere(_turn_from_row(elsewhere))

            now = self._clock()
            cursor = conn.execute(
                "UPDATE sessions SET seq_reserved = MAX(seq_reserved, ?), updated_at = ?"
                " WHERE id = ?",
                (reserved, now, session_id),
            )
            if cursor.rowcount == 0:
                raise UnknownSession(session_id)
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
            conn.execute(
                "INSERT INTO turns (id, session_id, client_message_id, status, started_at, owner)"
                " VALUES (?, ?, ?, 'running', ?, ?)",
                (turn.id, session_id, client_message_id, now, owner),
            )
            message_id = new_message_id()
            conn.execute(
                _INSERT_MESSAGE,
                (message_id, session_id, turn.id, "user", text, "complete", None, now, session_id),
            )
            return BeginTurn(
                turn=turn,
                user_message_id=message_id,
                duplicate=False,
                session_version=_kept(conn, session_id, before, expect_version),
            )

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
    ) -> FinishTurn:
        """Store the assistant message and close the turn; returns the message id (and,
        for ``expect_version``, as in :meth:`save_context`, the session's version).

        ``status`` is the *message's* status; the turn becomes ``complete`` for
        ``finish_reason`` stop/length, ``aborted`` for aborted, ``failed`` for error. The
        session gets ``context``, ``last_seq`` (never lowered) and ``updated_at``.
        A second call for a turn that is no longer running writes nothing and returns the
        existing assistant message id. Runs to completion even if the caller is cancelled.
        Raises :class:`UnknownTurn`, :class:`StorageUnavailable`.
        """
        if status not in _FINISH_MESSAGE_STATUSES:
            raise ValueError(f"bad message status {status!r}")
        if finish_reason not in _FINISH_REASONS:
            raise ValueError(f"bad finish reason {finish_reason!r}")
        if not is_valid_id(turn_id):
            raise UnknownTurn(turn_id)
        # Serialise before the transaction: a bad payload must not leave one open.
        outputs = [dict(item) for item in tool_outputs]
        tool_outputs_json = _dumps(outputs) if outputs else None
        context_json = _dumps(dict(context))
        timings_json = _dumps(dict(timings))
        seq = int(last_seq)

        def finish(conn: LoopConnection) -> FinishTurn:
            row = conn.execute(
                "SELECT session_id, status FROM turns WHERE id = ?", (turn_id,)
            ).fetchone()
            if not row:
                raise UnknownTurn(turn_id)
            session_id, turn_status = row
            before = _version(conn, session_id)
            if turn_status != "running":
                found = conn.execute(
                    "SELECT id FROM messages WHERE turn_id = ? AND role = 'assistant'",
                    (turn_id,),
                ).fetchone()
                if found:
                    kept = _kept(conn, session_id, before, expect_version)
                    return FinishTurn(str(found[0]), kept)
                raise StoreError(f"turn {turn_id} is {turn_status} without an answer")
            now = self._clock()
            message_id = new_message_id()
            conn.execute(
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
            conn.execute(
                "UPDATE turns SET status = ?, finish_reason = ?, ended_at = ?, timings = ?"
                " WHERE id = ?",
                (_TURN_STATUS_FOR_REASON[finish_reason], finish_reason, now, timings_json, turn_id),
            )
            conn.execute(
                "UPDATE sessions SET context = ?, last_seq = MAX(last_seq, ?), updated_at = ?"
                " WHERE id = ?",
                (context_json, seq, now, session_id),
            )
            return FinishTurn(message_id, _kept(conn, session_id, before, expect_version))

        return await self._shielded(self._write(finish))

    async def get_turn(self, turn_id: str) -> TurnRecord | None:
        if not is_valid_id(turn_id):
            return None

        return await self._one(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE id = ?", (turn_id,), _turn_from_row
        )

    async def running_turn(self, session_id: str) -> TurnRecord | None:
        """The session's turn still ``running`` (the latest, should there be several)."""
        if not is_valid_id(session_id):
            return None

        return await self._one(
            f"SELECT {_TURN_COLUMNS} FROM turns"
            " WHERE session_id = ? AND status = 'running'"
            " ORDER BY started_at DESC, rowid DESC LIMIT 1",
            (session_id,),
            _turn_from_row,
        )

    async def mark_interrupted(
        self, owners: Iterable[str] | None = None, *, unowned: bool = False
    ) -> int:
        """Close turns left ``running`` by a process that died; returns how many.

        ``owners`` None: every running turn (one process alone on the database, at
        start-up). Otherwise the running turns owned by one of ``owners`` and, with
        ``unowned``, those without an owner (written before schema version 2). Each gets
        status ``interrupted`` and an empty assistant message with status ``interrupted``
        so the history shows where the answer stopped.
        """
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

        def interrupt(conn: LoopConnection) -> int:
            rows = conn.execute(
                f"SELECT id, session_id FROM turns WHERE {where} ORDER BY started_at, rowid",
                params,
            ).fetchall()
            now = self._clock()
            for turn_id, session_id in rows:
                conn.execute(
                    _INSERT_MESSAGE,
                    (
                        new_message_id(),
                        session_id,
                        turn_id,
                        "assistant",
                        "",
                        "interrupted",
                        None,
                        now,
                        session_id,
                    ),
                )
                conn.execute(
                    "UPDATE turns SET status = 'interrupted', ended_at = ? WHERE id = ?",
                    (now, turn_id),
                )
            return len(rows)

        return await self._shielded(self._write(interrupt))

    # ----------------------------------------------------------------- workers

    async def heartbeat(self, boot_id: str, *, pid: int, host: str) -> None:
        """Record that the process ``boot_id`` is alive now (inserting its row if missing)."""
        now = self._clock()

        def beat(conn: LoopConnection) -> None:
            conn.execute(
                f"INSERT INTO workers ({_WORKER_COLUMNS}) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (boot_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at,"
                " pid = excluded.pid, host = excluded.host",
                (boot_id, int(pid), host, now, now),
            )

        await self._write(beat)

    async def get_worker(self, boot_id: str) -> WorkerRecord | None:
        return await self._one(
            f"SELECT {_WORKER_COLUMNS} FROM workers WHERE boot_id = ?", (boot_id,), _worker_from_row
        )

    async def workers(self) -> list[WorkerRecord]:
        rows = await self._read(
            fetch_all(f"SELECT {_WORKER_COLUMNS} FROM workers ORDER BY started_at, boot_id")
        )
        return [_worker_from_row(row) for row in rows]

    async def running_owners(self) -> dict[str, WorkerRecord | None]:
        """The owners of turns still ``running``, each with its ``workers`` row (None:
        it has none). One statement, so both come from the same snapshot."""
        rows = await self._read(
            fetch_all(
                "SELECT o.owner, w.boot_id, w.pid, w.host, w.started_at, w.heartbeat_at"
                " FROM (SELECT DISTINCT owner FROM turns"
                "       WHERE status = 'running' AND owner IS NOT NULL) AS o"
                " LEFT JOIN workers AS w ON w.boot_id = o.owner"
            )
        )
        return {row[0]: _worker_from_row(row[1:]) if row[1] is not None else None for row in rows}

    async def forget_workers(self, boot_ids: Iterable[str]) -> int:
        """Delete these processes' rows (a clean shutdown, or processes found dead)."""
        ids = tuple(sorted(set(boot_ids)))
        if not ids:
            return 0

        def forget(conn: LoopConnection) -> int:
            cursor = conn.execute(
                f"DELETE FROM workers WHERE boot_id IN ({', '.join('?' * len(ids))})", ids
            )
            return int(cursor.rowcount)

        return await self._write(forget)

    async def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version`` on this store's connection: it changes when
        *another* connection (another process) has committed since the last look, and
        never for this store's own writes."""
        row = await self._read(fetch_one("PRAGMA data_version"))
        return int(row[0])

    # ----------------------------------------------------------------- reads

    async def history(
        self, session_id: str, limit: int = 50, *, client_ids: bool = False
    ) -> list[HistoryMessage]:
        """The session's most recent ``limit`` messages, oldest first.

        ``client_ids``: user messages under the client's message id (the wire's), read
        with their turns in the same query, instead of the store's own id."""
        if not is_valid_id(session_id) or limit <= 0:
            return []
        rows = await self._read(
            fetch_all(
                "SELECT m.id, m.role, m.text, m.turn_id, m.status, m.tool_outputs,"
                " t.client_message_id FROM messages m LEFT JOIN turns t ON t.id = m.turn_id"
                " WHERE m.session_id = ? ORDER BY m.seq DESC LIMIT ?",
                (session_id, int(limit)),
            )
        )
        rows.reverse()
        return [
            {
                "id": row[6] if client_ids and row[1] == "user" and row[6] else row[0],
                "role": row[1],
                "text": row[2],
                "turnId": row[3],
                "status": row[4],
                "toolOutputs": orjson.loads(row[5]) if row[5] else [],
            }
            for row in rows
        ]

    async def count_user_messages(self) -> int:
        row = await self._read(fetch_one("SELECT COUNT(*) FROM messages WHERE role = 'user'"))
        return int(row[0])

    # ----------------------------------------------------------------- retention

    async def purge_older_than(self, seconds: float) -> int:
        """Delete sessions idle (``updated_at``) for more than ``seconds``, with their
        turns and messages. Returns the number of sessions deleted."""
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError("seconds must be a finite number >= 0")
        cutoff = self._clock() - seconds

        def purge(conn: LoopConnection) -> int:
            cursor = conn.execute("DELETE FROM sessions WHERE updated_at < ?", (cutoff,))
            return int(cursor.rowcount)

        return await self._write(purge)


def _user_version(conn: LoopConnection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _optimize(conn: LoopConnection) -> None:
    conn.execute("PRAGMA optimize")


def _consume_exception(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


async def purge_sessions(
    path: Path, seconds: float, *, clock: Callable[[], float] = time.time
) -> int:
    """Open ``path``, delete sessions idle for more than ``seconds``, close. A missing
    database has nothing to purge (and is not created)."""
    path = Path(path)
    if not path.exists():
        return 0
    store = await SessionStore.open(path, clock=clock)
    try:
        return await store.purge_older_than(seconds)
    finally:
        await store.close()
