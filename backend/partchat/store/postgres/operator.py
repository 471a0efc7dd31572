"""PostgreSQL operator reads: session pages, details and stats for the admin view."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

import asyncpg

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
from partchat.store.postgres.connection import PostgresConnection


class OperatorReads(PostgresConnection):
    """The operator's session lists, details and stats (``partchat.store.admin``)."""

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
