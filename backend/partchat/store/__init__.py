"""The durable session store: sessions, turns, messages and the server processes that
run them, behind one typed interface.

* :mod:`~partchat.store.records` — the records, errors and ids every backend hands out;
* :mod:`~partchat.store.protocol` — :class:`SessionStore`, the interface the turn
  engine, the worker registry, the HTTP API and the CLI use, and its contract;
* :mod:`~partchat.store.sqlite` — the SQLite backend (``sessions.db`` in the data
  directory), the default, a package of one module per concern;
* :mod:`~partchat.store.postgres` — the PostgreSQL backend, for several servers, split
  the same way.

:func:`open_store` chooses the backend from the settings: ``PARTCHAT_DATABASE_URL``
unset means SQLite, a ``postgresql://`` (or ``postgres://``) URL means PostgreSQL.

May import: ``nlu``, ``catalog``, ``protocol`` (the wire's history messages, ids and
shapes), ``settings``; never ``live`` (a sibling) or anything above.
"""

from __future__ import annotations

from typing import Literal

from partchat.settings import Settings, SettingsError
from partchat.store.admin import AdminFilters, AdminPage
from partchat.store.protocol import SessionStore
from partchat.store.records import (
    BeginTurn,
    Context,
    FinishReason,
    FinishTurn,
    HistoryMessage,
    MessageStatus,
    Rating,
    Role,
    SavedFeedback,
    SessionChanged,
    SessionRecord,
    StorageUnavailable,
    StoreError,
    ToolCallRecord,
    TurnRecord,
    TurnRunningElsewhere,
    TurnStatus,
    UnknownSession,
    UnknownTurn,
    WorkerRecord,
    empty_context,
    is_valid_id,
    message_status,
    new_message_id,
    new_session_id,
    new_turn_id,
)

__all__ = [
    "AdminFilters",
    "AdminPage",
    "BeginTurn",
    "Context",
    "FinishReason",
    "FinishTurn",
    "HistoryMessage",
    "MessageStatus",
    "Rating",
    "Role",
    "SavedFeedback",
    "SessionChanged",
    "SessionRecord",
    "SessionStore",
    "StorageUnavailable",
    "StoreError",
    "ToolCallRecord",
    "TurnRecord",
    "TurnRunningElsewhere",
    "TurnStatus",
    "UnknownSession",
    "UnknownTurn",
    "WorkerRecord",
    "check_backend",
    "empty_context",
    "is_valid_id",
    "message_status",
    "new_message_id",
    "new_session_id",
    "new_turn_id",
    "open_store",
    "purge_idle",
]


def check_backend(settings: Settings) -> Literal["sqlite", "postgres"]:
    """The backend the settings select (``settings.from_env`` accepts only PostgreSQL
    URLs in ``PARTCHAT_DATABASE_URL``)."""
    if settings.database_url is None:
        return "sqlite"
    scheme = settings.database_url.partition("://")[0].lower()
    if scheme not in ("postgresql", "postgres"):
        raise SettingsError("PARTCHAT_DATABASE_URL: expected a postgresql:// URL")
    return "postgres"


async def open_store(settings: Settings) -> SessionStore:
    """Open (creating and migrating as needed) the store the settings select."""
    if check_backend(settings) == "postgres":
        from partchat.store.postgres import PostgresStore

        assert settings.database_url is not None
        return await PostgresStore.open(
            settings.database_url,
            min_size=settings.db_pool_min,
            max_size=settings.db_pool_max,
            timeout_s=settings.db_timeout_s,
        )
    from partchat.store.sqlite import SqliteStore

    return await SqliteStore.open(settings.sessions_path)


async def purge_idle(settings: Settings, seconds: float) -> int:
    """Delete sessions idle for more than ``seconds`` from the selected store (creating
    nothing where there is no store yet); returns how many."""
    if check_backend(settings) == "postgres":
        store = await open_store(settings)
        try:
            return await store.purge_older_than(seconds)
        finally:
            await store.close()
    from partchat.store.sqlite import purge_sessions

    return await purge_sessions(settings.sessions_path, seconds)
