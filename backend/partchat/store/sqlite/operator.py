"""SQLite operator reads: session pages, details and stats for the admin view."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

import aiosqlite

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
from partchat.store.sqlite.connection import SqliteConnection


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" * len(values))


class OperatorReads(SqliteConnection):
    """The operator's session lists, details and stats (``partchat.store.admin``)."""

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
