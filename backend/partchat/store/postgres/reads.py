"""PostgreSQL reads (turns, history, data_version) and the worker registry's heartbeats."""

from __future__ import annotations

from collections.abc import Iterable

import asyncpg

from partchat.store.postgres.connection import (
    BUMP,
    PostgresConnection,
)
from partchat.store.records import (
    HISTORY_SELECT,
    TURN_COLUMNS,
    WORKER_COLUMNS,
    HistoryMessage,
    TurnRecord,
    WorkerRecord,
    history_from_row,
    is_valid_id,
    turn_from_row,
    worker_from_row,
)


class Reads(PostgresConnection):
    """Turns and history read back; the worker registry's heartbeats; data_version."""

    async def data_version(self) -> int:
        """The sum of every other store's write counters (see the package docstring)."""
        return int(
            await self._fetchval(
                "SELECT COALESCE(SUM(n), 0)::bigint FROM store_writes WHERE store_id <> $1",
                self._id,
            )
        )

    # ----------------------------------------------------------------- turns

    async def get_turn(self, turn_id: str) -> TurnRecord | None:
        if not is_valid_id(turn_id):
            return None
        row = await self._fetchrow(f"SELECT {TURN_COLUMNS} FROM turns WHERE id = $1", turn_id)
        return turn_from_row(row) if row else None

    async def running_turn(self, session_id: str) -> TurnRecord | None:
        if not is_valid_id(session_id):
            return None
        row = await self._fetchrow(
            f"SELECT {TURN_COLUMNS} FROM turns WHERE session_id = $1 AND status = 'running'"
            " ORDER BY started_at DESC LIMIT 1",
            session_id,
        )
        return turn_from_row(row) if row else None

    async def running_turns(self, owners: Iterable[str]) -> list[TurnRecord]:
        """See :meth:`partchat.store.protocol.SessionStore.running_turns`."""
        chosen = sorted(set(owners))
        if not chosen:
            return []
        rows = await self._fetch(
            f"SELECT {TURN_COLUMNS} FROM turns WHERE status = 'running'"
            " AND owner = ANY($1::text[]) ORDER BY started_at",
            chosen,
        )
        return [turn_from_row(row) for row in rows]

    # ----------------------------------------------------------------- workers

    async def heartbeat(self, boot_id: str, *, pid: int, host: str) -> None:
        now = self._clock()

        async def beat(conn: asyncpg.Connection) -> None:
            await conn.execute(
                f"WITH {BUMP} INSERT INTO workers ({WORKER_COLUMNS})"
                " VALUES ($2, $3, $4, $5, $5) ON CONFLICT (boot_id) DO UPDATE"
                " SET heartbeat_at = excluded.heartbeat_at, pid = excluded.pid,"
                " host = excluded.host",
                self._id,
                boot_id,
                int(pid),
                host,
                now,
            )

        await self._write(beat, transaction=False)

    async def get_worker(self, boot_id: str) -> WorkerRecord | None:
        row = await self._fetchrow(
            f"SELECT {WORKER_COLUMNS} FROM workers WHERE boot_id = $1", boot_id
        )
        return worker_from_row(row) if row else None

    async def workers(self) -> list[WorkerRecord]:
        rows = await self._fetch(
            f"SELECT {WORKER_COLUMNS} FROM workers ORDER BY started_at, boot_id"
        )
        return [worker_from_row(row) for row in rows]

    async def running_owners(self) -> dict[str, WorkerRecord | None]:
        rows = await self._fetch(
            "SELECT o.owner, w.boot_id, w.pid, w.host, w.started_at, w.heartbeat_at"
            " FROM (SELECT DISTINCT owner FROM turns"
            "       WHERE status = 'running' AND owner IS NOT NULL) AS o"
            " LEFT JOIN workers AS w ON w.boot_id = o.owner"
        )
        return {row[0]: worker_from_row(row, 1) if row[1] is not None else None for row in rows}

    async def forget_workers(self, boot_ids: Iterable[str]) -> int:
        ids = sorted(set(boot_ids))
        if not ids:
            return 0

        async def forget(conn: asyncpg.Connection) -> int:
            return int(
                await conn.fetchval(
                    f"WITH {BUMP}, d AS (DELETE FROM workers WHERE boot_id = ANY($2::text[])"
                    " RETURNING 1) SELECT COUNT(*) FROM d",
                    self._id,
                    ids,
                )
            )

        return await self._write(forget, transaction=False)

    # ----------------------------------------------------------------- reads

    async def history(
        self, session_id: str, limit: int = 50, *, client_ids: bool = False
    ) -> list[HistoryMessage]:
        if not is_valid_id(session_id) or limit <= 0:
            return []
        rows = await self._fetch(
            f"{HISTORY_SELECT} WHERE m.session_id = $1 ORDER BY m.seq DESC LIMIT $2",
            session_id,
            int(limit),
        )
        rows.reverse()
        return [history_from_row(row, client_ids) for row in rows]

    async def count_user_messages(self) -> int:
        return int(await self._fetchval("SELECT COUNT(*) FROM messages WHERE role = 'user'"))
