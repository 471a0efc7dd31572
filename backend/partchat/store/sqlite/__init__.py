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
units use as few statements as they can. A turn's begin and its finish are one statement
each: an INSERT into ``turn_starts`` / ``turn_answers`` (schema version 5) that selects
its row only when the write may go ahead, whose AFTER INSERT trigger writes the other
tables and deletes the row, and whose ``RETURNING`` clause reports the session's version
before the write. Begins (and finishes) that wait while the connection is busy go as
one multi-row statement, one row per session (group commit, :mod:`~partchat.store.sqlite.batch`):
each row keeps its own checks and its caller its own answer; a refused begin (a duplicate, a turn running elsewhere) is looked into
by a unit of its own. The session version after a write is derived from the version
before it (the version triggers add exactly one per written row, see ``MIGRATIONS`` in
:mod:`~partchat.store.sqlite.schema`) rather than read again.

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

Schema versions are tracked with ``PRAGMA user_version``;
:data:`~partchat.store.sqlite.schema.MIGRATIONS` holds one tuple of statements per
version and :meth:`SqliteStore.open` applies the missing ones.

Modules: ``schema`` (the DDL per version), ``connection`` (open, migrate, close, the
read and write units), ``sessions`` (session rows, feedback, retention), ``turns`` (a
turn's begin and finish, interruption), ``reads`` (turns and history read back, worker
heartbeats), ``operator`` (the admin view's reads); :class:`SqliteStore` is all of them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from partchat.store.sqlite.connection import DEFAULT_BUSY_TIMEOUT_MS
from partchat.store.sqlite.operator import OperatorReads
from partchat.store.sqlite.reads import Reads
from partchat.store.sqlite.schema import MIGRATIONS, SCHEMA_VERSION
from partchat.store.sqlite.sessions import SessionWrites
from partchat.store.sqlite.turns import TurnWrites

__all__ = [
    "DEFAULT_BUSY_TIMEOUT_MS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "SqliteStore",
    "purge_sessions",
]


class SqliteStore(SessionWrites, TurnWrites, Reads, OperatorReads):
    """:class:`~partchat.store.protocol.SessionStore` on ``sessions.db``. Build it with
    :meth:`open`; :meth:`close` it."""


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
