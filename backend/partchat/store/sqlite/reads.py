"""SQLite reads (turns, history) and the worker registry's heartbeats."""

from __future__ import annotations

from collections.abc import Iterable

import aiosqlite

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
from partchat.store.sqlite.connection import SqliteConnection


class Reads(SqliteConnection):
    """Turns and history read back; the worker registry's heartbeats."""

    # ----------------------------------------------------------------- turns

    async def get_turn(self, turn_id: str) -> TurnRecord | None:
        if not is_valid_id(turn_id):
            return None
        row = await self._fetch_one(f"SELECT {TURN_COLUMNS} FROM turns WHERE id = ?", (turn_id,))
        return turn_from_row(row) if row else None

    async def running_turn(self, session_id: str) -> TurnRecord | None:
        """The session's turn still ``running`` (the latest, should there be several)."""
        if not is_valid_id(session_id):
            return None
        row = await self._fetch_one(
            f"SELECT {TURN_COLUMNS} FROM turns"
            " WHERE session_id = ? AND status = 'running'"
            " ORDER BY started_at DESC, rowid DESC LIMIT 1",
            (session_id,),
        )
        return turn_from_row(row) if row else None

    async def running_turns(self, owners: Iterable[str]) -> list[TurnRecord]:
        """See :meth:`partchat.store.protocol.SessionStore.running_turns`."""
        chosen = tuple(sorted(set(owners)))
        if not chosen:
            return []
        rows = await self._fetch_all(
            f"SELECT {TURN_COLUMNS} FROM turns WHERE status = 'running'"
            f" AND owner IN ({', '.join('?' * len(chosen))}) ORDER BY started_at, rowid",
            chosen,
        )
        return [turn_from_row(row) for row in rows]

    # ----------------------------------------------------------------- workers

    async def heartbeat(self, boot_id: str, *, pid: int, host: str) -> None:
        """Record that the process ``boot_id`` is alive now (inserting its row if missing)."""
        now = self._clock()

        async def beat(conn: aiosqlite.Connection) -> None:
            await conn.execute(
                f"INSERT INTO workers ({WORKER_COLUMNS}) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (boot_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at,"
                " pid = excluded.pid, host = excluded.host",
                (boot_id, int(pid), host, now, now),
            )

        await self._write(beat, single=True)

    async def get_worker(self, boot_id: str) -> WorkerRecord | None:
        row = await self._fetch_one(
            f"SELECT {WORKER_COLUMNS} FROM workers WHERE boot_id = ?", (boot_id,)
        )
        return worker_from_row(row) if row else None

    async def workers(self) -> list[WorkerRecord]:
        rows = await self._fetch_all(
            f"SELECT {WORKER_COLUMNS} FROM workers ORDER BY started_at, boot_id"
        )
        return [worker_from_row(row) for row in rows]

    async def running_owners(self) -> dict[str, WorkerRecord | None]:
        """The owners of turns still ``running``, each with its ``workers`` row (None:
        it has none). One statement, so both come from the same snapshot."""
        rows = await self._fetch_all(
            "SELECT o.owner, w.boot_id, w.pid, w.host, w.started_at, w.heartbeat_at"
            " FROM (SELECT DISTINCT owner FROM turns"
            "       WHERE status = 'running' AND owner IS NOT NULL) AS o"
            " LEFT JOIN workers AS w ON w.boot_id = o.owner"
        )
        return {row[0]: worker_from_row(row[1:]) if row[1] is not None else None for row in rows}

    async def forget_workers(self, boot_ids: Iterable[str]) -> int:
        """Delete these processes' rows (a clean shutdown, or processes found dead)."""
        ids = tuple(sorted(set(boot_ids)))
        if not ids:
            return 0

        async def forget(conn: aiosqlite.Connection) -> int:
            cursor = await conn.execute(
                f"DELETE FROM workers WHERE boot_id IN ({', '.join('?' * len(ids))})", ids
            )
            return int(cursor.rowcount)

        return await self._write(forget, single=True)

    async def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version`` on this store's connection: it changes when
        *another* connection (another process) has committed since the last look, and
        never for this store's own writes."""
        row = await self._fetch_one("PRAGMA data_version")
        return int(row[0])

    # ----------------------------------------------------------------- reads

    async def history(
        self, session_id: str, limit: int = 50, *, client_ids: bool = False
    ) -> list[HistoryMessage]:
        """See :meth:`partchat.store.protocol.SessionStore.history`."""
        if not is_valid_id(session_id) or limit <= 0:
            return []
        rows = await self._fetch_all(
            f"{HISTORY_SELECT} WHERE m.session_id = ? ORDER BY m.seq DESC LIMIT ?",
            (session_id, int(limit)),
        )
        rows.reverse()
        return [history_from_row(row, client_ids) for row in rows]

    async def count_user_messages(self) -> int:
        row = await self._fetch_one("SELECT COUNT(*) FROM messages WHERE role = 'user'")
        return int(row[0])
