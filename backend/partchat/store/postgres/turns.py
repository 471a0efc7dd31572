"""PostgreSQL turn writes: begin and finish a turn (its messages and tool calls), interrupt."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import asyncpg

from partchat.store.postgres.connection import (
    BUMP,
    LOCK_SESSION,
    PostgresConnection,
    clean_text,
    dumps,
)
from partchat.store.records import (
    TURN_COLUMNS,
    TURN_STATUS_FOR_REASON,
    BeginTurn,
    FinishReason,
    FinishTurn,
    SessionChanged,
    StoreError,
    ToolCallRecord,
    TurnRecord,
    TurnRunningElsewhere,
    UnknownSession,
    UnknownTurn,
    check_client_message_id,
    check_finish,
    is_valid_id,
    new_message_id,
    new_turn_id,
    turn_from_row,
    version_after,
)

_NEXT_SEQ = "(SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = $2)"
# finish_turn's tool calls, from one JSON array ($16; $2 session, $5 now, $7 turn)
_INSERT_TOOL_CALLS = (
    "c AS (INSERT INTO tool_calls (turn_id, position, session_id, tool_call_id, round, name,"
    "  arguments, ok, error_code, duration_ms, result_bytes, result, unknown_parts,"
    "  unknown_models, created_at)"
    " SELECT $7, r.position, $2, r.tool_call_id, r.round, r.name, r.arguments, r.ok,"
    "  r.error_code, r.duration_ms, r.result_bytes, r.result, r.unknown_parts,"
    "  r.unknown_models, $5"
    " FROM jsonb_to_recordset(COALESCE($16::jsonb, '[]'::jsonb)) AS r (position integer,"
    "  tool_call_id text, round integer, name text, arguments jsonb, ok boolean,"
    "  error_code text, duration_ms double precision, result_bytes integer, result jsonb,"
    "  unknown_parts jsonb, unknown_models jsonb))"
)


def _tool_call_json(position: int, call: ToolCallRecord) -> dict[str, Any]:
    """A tool call as ``_INSERT_TOOL_CALLS`` reads it."""
    return {
        "position": position,
        "tool_call_id": call["toolCallId"],
        "round": int(call["round"]),
        "name": call["name"],
        "arguments": call["arguments"],
        "ok": bool(call["ok"]),
        "error_code": call["errorCode"],
        "duration_ms": float(call["durationMs"]),
        "result_bytes": int(call["resultBytes"]),
        "result": call["result"],
        "unknown_parts": call["unknownParts"] or None,
        "unknown_models": call["unknownModels"] or None,
    }


class TurnWrites(PostgresConnection):
    """A turn's two write units, and the interruption of running turns."""

    # ----------------------------------------------------------------- turns

    async def begin_turn(
        self,
        session_id: str,
        client_message_id: str,
        text: str,
        *,
        seq_reserved: int,
        owner: str | None = None,
        expect_version: int | None = None,
        only_at_version: int | None = None,
    ) -> BeginTurn:
        """See :meth:`partchat.store.protocol.SessionStore.begin_turn`. Stricter than the
        contract: any other running turn of the session raises ``TurnRunningElsewhere``
        (the database allows one)."""
        if not is_valid_id(session_id):
            raise UnknownSession(session_id)
        check_client_message_id(client_message_id)
        reserved = int(seq_reserved)
        stored_text = clean_text(text)

        async def begin(conn: asyncpg.Connection) -> BeginTurn:
            before = await conn.fetchval(LOCK_SESSION, session_id)
            if before is None:
                raise UnknownSession(session_id)
            # A fresh snapshot, taken with the session locked: what the last holder of
            # the lock committed is visible.
            found = await conn.fetch(
                f"SELECT {TURN_COLUMNS}, (SELECT m.id FROM messages m"
                "  WHERE m.turn_id = t.id AND m.role = 'user')"
                " FROM turns t WHERE t.session_id = $1"
                " AND (t.client_message_id = $2 OR t.status = 'running')",
                session_id,
                client_message_id,
            )
            for row in found:
                if row[2] == client_message_id:
                    return BeginTurn(
                        turn_from_row(row),
                        row[9],
                        True,
                        version_after(int(before), expect_version, 0),
                    )
            if found:
                raise TurnRunningElsewhere(turn_from_row(found[0]))
            if only_at_version is not None and int(before) != only_at_version:
                raise SessionChanged(session_id)
            now = self._clock()
            turn = TurnRecord.running(new_turn_id(), session_id, client_message_id, now, owner)
            message_id = new_message_id()
            await conn.execute(
                f"WITH {BUMP},"
                " s AS (UPDATE sessions SET seq_reserved = GREATEST(seq_reserved, $3),"
                "  updated_at = $4, version = version + 1 WHERE id = $2),"
                " t AS (INSERT INTO turns"
                "  (id, session_id, client_message_id, status, started_at, owner)"
                "  VALUES ($5, $2, $6, 'running', $4, $7))"
                " INSERT INTO messages"
                " (id, session_id, turn_id, role, text, status, created_at, seq)"
                f" VALUES ($8, $2, $5, 'user', $9, 'complete', $4, {_NEXT_SEQ})",
                self._id,
                session_id,
                reserved,
                now,
                turn.id,
                client_message_id,
                owner,
                message_id,
                stored_text,
            )
            return BeginTurn(turn, message_id, False, version_after(int(before), expect_version))

        return await self._write(begin)

    async def finish_turn(
        self,
        turn_id: str,
        *,
        text: str,
        status: Literal["complete", "partial", "failed"],
        finish_reason: FinishReason,
        tool_outputs: Iterable[Mapping[str, Any]],
        context: Mapping[str, Any],
        last_seq: int,
        timings: Mapping[str, Any],
        expect_version: int | None = None,
        tool_calls: Iterable[ToolCallRecord] = (),
        model: str | None = None,
    ) -> FinishTurn:
        """See :meth:`partchat.store.protocol.SessionStore.finish_turn`."""
        check_finish(status, finish_reason, text)
        if not is_valid_id(turn_id):
            raise UnknownTurn(turn_id)
        outputs = [dict(item) for item in tool_outputs]
        tool_outputs_json = dumps(outputs) if outputs else None
        context_json = dumps(dict(context))
        timings_json = dumps(dict(timings))
        first_token_ms = timings.get("firstTokenMs")
        calls = [_tool_call_json(i, call) for i, call in enumerate(tool_calls)]
        calls_json = dumps(calls) if calls else None
        seq = int(last_seq)
        stored_text = clean_text(text)

        async def finish(conn: asyncpg.Connection) -> FinishTurn:
            locked = await conn.fetchrow(
                "SELECT id, version FROM sessions"
                " WHERE id = (SELECT session_id FROM turns WHERE id = $1) FOR UPDATE",
                turn_id,
            )
            if locked is None:
                raise UnknownTurn(turn_id)
            session_id, before = locked[0], int(locked[1])
            row = await conn.fetchrow(
                "SELECT t.status, (SELECT m.id FROM messages m"
                "  WHERE m.turn_id = t.id AND m.role = 'assistant')"
                " FROM turns t WHERE t.id = $1",
                turn_id,
            )
            if row is None:
                raise UnknownTurn(turn_id)
            if row[0] != "running":
                if row[1] is not None:
                    return FinishTurn(str(row[1]), version_after(before, expect_version, 0))
                raise StoreError(f"turn {turn_id} is {row[0]} without an answer")
            now = self._clock()
            message_id = new_message_id()
            await conn.execute(
                f"WITH {BUMP},"
                " t AS (UPDATE turns SET status = $3, finish_reason = $4, ended_at = $5,"
                "  timings = $6::jsonb, model = $14, first_token_ms = $15 WHERE id = $7),"
                " s AS (UPDATE sessions SET context = $8::jsonb,"
                "  last_seq = GREATEST(last_seq, $9), updated_at = $5,"
                f"  version = version + 1 WHERE id = $2), {_INSERT_TOOL_CALLS}"
                " INSERT INTO messages"
                " (id, session_id, turn_id, role, text, status, tool_outputs, created_at, seq)"
                f" VALUES ($10, $2, $7, 'assistant', $11, $12, $13::jsonb, $5, {_NEXT_SEQ})",
                self._id,
                session_id,
                TURN_STATUS_FOR_REASON[finish_reason],
                finish_reason,
                now,
                timings_json,
                turn_id,
                context_json,
                seq,
                message_id,
                stored_text,
                status,
                tool_outputs_json,
                model,
                first_token_ms,
                calls_json,
            )
            return FinishTurn(message_id, version_after(before, expect_version))

        return await self._write(finish)

    async def mark_interrupted(
        self,
        owners: Iterable[str] | None = None,
        *,
        unowned: bool = False,
        texts: Mapping[str, str] | None = None,
    ) -> int:
        """See :meth:`partchat.store.protocol.SessionStore.mark_interrupted`."""
        written = texts or {}
        chosen = sorted(set(owners)) if owners is not None else None
        if chosen is not None and not chosen and not unowned:
            return 0
        where = "status = 'running'"
        if chosen is not None:
            where += " AND (owner = ANY($1::text[])" + (" OR owner IS NULL)" if unowned else ")")
        args: tuple[Any, ...] = (chosen,) if chosen is not None else ()

        async def interrupt(conn: asyncpg.Connection) -> int:
            # Lock the sessions (in id order: no deadlock with another sweep), then read
            # their running turns afresh.
            sessions = [
                row[0]
                for row in await conn.fetch(
                    "SELECT id FROM sessions WHERE id IN"
                    f" (SELECT session_id FROM turns WHERE {where}) ORDER BY id FOR UPDATE",
                    *args,
                )
            ]
            if not sessions:
                return 0
            where_locked = where.replace("$1", "$2")
            rows = await conn.fetch(
                f"SELECT id, session_id FROM turns WHERE session_id = ANY($1::text[])"
                f" AND {where_locked}",
                sessions,
                *args,
            )
            if not rows:
                return 0
            now = self._clock()
            turn_ids = [row[0] for row in rows]
            session_ids = [row[1] for row in rows]  # one running turn per session
            await conn.execute(
                f"WITH {BUMP},"
                " t AS (UPDATE turns SET status = 'interrupted', ended_at = $2"
                "  WHERE id = ANY($3::text[])),"
                " s AS (UPDATE sessions SET version = version + 1 WHERE id = ANY($4::text[]))"
                " INSERT INTO messages"
                " (id, session_id, turn_id, role, text, status, created_at, seq)"
                " SELECT i.mid, i.sid, i.tid, 'assistant', i.txt, 'interrupted', $2,"
                "  (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = i.sid)"
                " FROM unnest($5::text[], $4::text[], $3::text[], $6::text[])"
                " AS i (mid, sid, tid, txt)",
                self._id,
                now,
                turn_ids,
                session_ids,
                [new_message_id() for _ in rows],
                [clean_text(written.get(t, "")) for t in turn_ids],
            )
            return len(rows)

        return await self._write(interrupt)
