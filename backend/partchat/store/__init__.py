"""The durable session store: sessions, turns, messages and the server processes that
run them, behind one typed interface.

* :mod:`~partchat.store.records` — the records, errors and ids every backend hands out;
* :mod:`~partchat.store.protocol` — :class:`SessionStore`, the interface the turn
  engine, the worker registry, the HTTP API and the CLI use, and its contract;
* :mod:`~partchat.store.sqlite` — the SQLite backend (``sessions.db`` in the data
  directory), the default.

:func:`open_store` chooses the backend from the settings: ``PARTCHAT_DATABASE_URL``
unset means SQLite. A ``postgresql://`` URL is recognised but its backend is not built
yet, which :func:`check_backend` says at start-up.
"""

from __future__ import annotations

from typing import Literal

from partchat.settings import Settings, SettingsError
from partchat.store.protocol import SessionStore
from partchat.store.records import (
    BeginTurn,
    FinishReason,
    FinishTurn,
    HistoryMessage,
    MessageStatus,
    Role,
    SessionContext,
    SessionRecord,
    StorageUnavailable,
    StoreError,
    TurnRecord,
    TurnRunningElsewhere,
    TurnStatus,
    UnknownSession,
    UnknownTurn,
    WorkerRecord,
    empty_context,
    is_valid_id,
    new_message_id,
    new_session_id,
    new_turn_id,
)

__all__ = [
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
    "check_backend",
    "empty_context",
    "is_valid_id",
    "new_message_id",
    "new_session_id",
    "new_turn_id",
    "open_store",
    "purge_idle",
]


def check_backend(settings: Settings) -> Literal["sqlite"]:
    """The backend the settings select; :class:`SettingsError` for one not available."""
    if settings.database_url is None:
        return "sqlite"
    # The PostgreSQL backend goes here (settings.from_env accepts only its URL schemes).
    raise SettingsError(
        "PARTCHAT_DATABASE_URL names a PostgreSQL database, but the PostgreSQL backend is "
        "not available yet; unset it to keep sessions in SQLite under PARTCHAT_DATA_DIR"
    )


async def open_store(settings: Settings) -> SessionStore:
    """Open (creating and migrating as needed) the store the settings select."""
    check_backend(settings)
    from partchat.store.sqlite import SqliteStore

    return await SqliteStore.open(settings.sessions_path)


async def purge_idle(settings: Settings, seconds: float) -> int:
    """Delete sessions idle for more than ``seconds`` from the selected store (creating
    nothing where there is no store yet); returns how many."""
    check_backend(settings)
    from partchat.store.sqlite import purge_sessions

    return await purge_sessions(settings.sessions_path, seconds)
