"""SQLite session rows: create, read, save the context, feedback, retention."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import aiosqlite

from partchat.store.records import (
    SESSION_COLUMNS,
    Rating,
    SavedFeedback,
    SessionRecord,
    UnknownSession,
    UnknownTurn,
    check_feedback,
    empty_context,
    is_valid_id,
    new_session_id,
    session_from_row,
    version_after,
)
from partchat.store.sqlite.connection import (
    SqliteConnection,
    Undo,
    dumps,
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
_SELECT_VERSION = "SELECT version FROM sessions WHERE id = ?"


class SessionWrites(SqliteConnection):
    """Sessions: create, read, save the context; feedback; retention."""

    async def create_session(self) -> SessionRecord:
        now = self._clock()
        context = empty_context()
        session_id = new_session_id()
        payload = dumps(context)

        async def create(conn: aiosqlite.Connection) -> None:
            await conn.execute(
                f"INSERT INTO sessions ({SESSION_COLUMNS}) VALUES (?, ?, ?, ?, 0, 0, 0)",
                (session_id, now, now, payload),
            )

        await self._write(create, single=True)
        return SessionRecord(session_id, now, now, context, 0, 0, 0)

    async def get_session(self, session_id: str) -> SessionRecord | None:
        if not is_valid_id(session_id):
            return None
        row = await self._fetch_one(
            f"SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?", (session_id,)
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
        payload = dumps(dict(context))
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
                raise Undo(SavedFeedback(turn_id, rating, reason, old_at, False, unchanged))
            now = self._clock()
            await conn.execute(_UPSERT_FEEDBACK, (turn_id, session_id, rating, reason, now, now))
            await conn.execute(
                "UPDATE sessions SET version = version + 1 WHERE id = ?", (session_id,)
            )
            return SavedFeedback(
                turn_id, rating, reason, now, True, version_after(before, expect_version, 1)
            )

        return await self._write(save)

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
