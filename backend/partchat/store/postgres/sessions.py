"""PostgreSQL session rows: create, read, save the context, feedback, retention."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import asyncpg

from partchat.store.postgres.connection import (
    BUMP,
    LOCK_SESSION,
    PostgresConnection,
    clean_text,
    dumps,
)
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


class SessionWrites(PostgresConnection):
    """Sessions: create, read, save the context; feedback; retention."""

    # ----------------------------------------------------------------- sessions

    async def create_session(self) -> SessionRecord:
        now = self._clock()
        context = empty_context()
        session_id = new_session_id()
        payload = dumps(context)

        async def create(conn: asyncpg.Connection) -> None:
            await conn.execute(
                f"WITH {BUMP} INSERT INTO sessions ({SESSION_COLUMNS})"
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
            f"SELECT {SESSION_COLUMNS} FROM sessions WHERE id = $1", session_id
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
        payload = dumps(dict(context))
        now = self._clock()

        async def save(conn: asyncpg.Connection) -> int | None:
            before = await conn.fetchval(
                f"WITH {BUMP} UPDATE sessions SET context = $3::jsonb, updated_at = $4,"
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
        stored_reason = None if reason is None else clean_text(reason)

        async def save(conn: asyncpg.Connection) -> SavedFeedback:
            before = await conn.fetchval(LOCK_SESSION, session_id)
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
                f"WITH {BUMP}, s AS (UPDATE sessions SET version = version + 1 WHERE id = $3)"
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

    # ----------------------------------------------------------------- retention

    async def purge_older_than(self, seconds: float) -> int:
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError("seconds must be a finite number >= 0")
        cutoff = self._clock() - seconds

        async def purge(conn: asyncpg.Connection) -> int:
            return int(
                await conn.fetchval(
                    f"WITH {BUMP}, d AS (DELETE FROM sessions WHERE updated_at < $2"
                    " RETURNING 1) SELECT COUNT(*) FROM d",
                    self._id,
                    cutoff,
                )
            )

        return await self._write(purge, transaction=False)
