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
    :data:`~partchat.store.postgres.schema.MIGRATIONS` is the ordered list;
    ``schema_migrations`` records those applied. :meth:`PostgresStore.open` applies the
    missing ones in one transaction holding ``pg_advisory_xact_lock(MIGRATION_LOCK)``:
    servers starting together migrate once.

Errors
    Refused, lost or timed-out connections, a server shutting down or refusing
    connections, a full disk, a read-only server, serialisation failures: all become
    :class:`StorageUnavailable` with a short message; acquiring a connection and every
    query are bounded by ``timeout``.

PostgreSQL text cannot hold NUL characters: they are stored as U+FFFD.

Modules: ``schema`` (the migrations), ``connection`` (the pool, the read and write
units, value cleaning), ``sessions`` (session rows, feedback, retention), ``turns`` (a
turn's begin and finish, interruption), ``reads`` (turns, history and ``data_version``
read back, worker heartbeats), ``operator`` (the admin view's reads);
:class:`PostgresStore` is all of them.
"""

from __future__ import annotations

from partchat.store.postgres.connection import DEFAULT_TIMEOUT_S
from partchat.store.postgres.operator import OperatorReads
from partchat.store.postgres.reads import Reads
from partchat.store.postgres.schema import MIGRATION_LOCK, MIGRATIONS, SCHEMA_VERSION
from partchat.store.postgres.sessions import SessionWrites
from partchat.store.postgres.turns import TurnWrites

__all__ = ["DEFAULT_TIMEOUT_S", "MIGRATIONS", "MIGRATION_LOCK", "SCHEMA_VERSION", "PostgresStore"]


class PostgresStore(SessionWrites, TurnWrites, Reads, OperatorReads):
    """:class:`~partchat.store.protocol.SessionStore` on a PostgreSQL database. Build it
    with :meth:`open`; :meth:`close` it."""
