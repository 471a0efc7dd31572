"""SQLite turn writes: begin and finish a turn (its messages and tool calls), interrupt."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import aiosqlite

from partchat.store.records import (
    TURN_COLUMNS,
    TURN_STATUS_FOR_REASON,
    BeginTurn,
    FinishReason,
    FinishTurn,
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
from partchat.store.sqlite.connection import (
    SqliteConnection,
    Undo,
    dumps,
)

_INSERT_MESSAGE = (
    "INSERT INTO messages"
    " (id, session_id, turn_id, role, text, status, tool_outputs, created_at, seq)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?,"
    " (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?))"
)
# begin_turn's first statement: the session's reservation written, and what decides the
# rest read in the same statement (RETURNING reports the row before the version trigger
# this UPDATE fires: the version before the unit): the turn already stored under this
# client message id, and a turn running under another owner.
_BEGIN_UPDATE = (
    "UPDATE sessions SET seq_reserved = MAX(seq_reserved, ?), updated_at = ? WHERE id = ?"
    " RETURNING version,"
    " (SELECT t.id FROM turns t WHERE t.session_id = sessions.id AND t.client_message_id = ?),"
    " (SELECT r.id FROM turns r WHERE r.session_id = sessions.id AND r.status = 'running'"
    "  AND r.owner IS NOT NULL AND r.owner != ?"
    "  ORDER BY r.started_at DESC, r.rowid DESC LIMIT 1)"
)
# finish_turn's first statement: the turn closed if it is still running, with its session
# and that session's version before the unit.
_FINISH_UPDATE = (
    "UPDATE turns SET status = ?, finish_reason = ?, ended_at = ?, timings = ?, model = ?,"
    " first_token_ms = ?"
    " WHERE id = ? AND status = 'running'"
    " RETURNING session_id, (SELECT version FROM sessions WHERE id = turns.session_id)"
)
# a turn no longer running: its status, session version and stored answer
_FINISH_LOOKUP = (
    "SELECT t.status, s.version,"
    " (SELECT m.id FROM messages m WHERE m.turn_id = t.id AND m.role = 'assistant')"
    " FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.id = ?"
)


_INSERT_TOOL_CALL = (
    "INSERT INTO tool_calls (turn_id, position, tool_call_id, round, name, arguments, ok,"
    " error_code, duration_ms, result_bytes, result, unknown_parts, unknown_models,"
    " session_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _tool_call_row(turn_id: str, position: int, call: ToolCallRecord) -> tuple[Any, ...]:
    """A tool call's ``tool_calls`` columns up to ``unknown_models`` (JSON as text)."""
    return (
        turn_id,
        position,
        call["toolCallId"],
        int(call["round"]),
        call["name"],
        dumps(call["arguments"]),
        1 if call["ok"] else 0,
        call["errorCode"],
        float(call["durationMs"]),
        int(call["resultBytes"]),
        None if call["result"] is None else dumps(call["result"]),
        dumps(call["unknownParts"]) if call["unknownParts"] else None,
        dumps(call["unknownModels"]) if call["unknownModels"] else None,
    )


class TurnWrites(SqliteConnection):
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
    ) -> BeginTurn:
        """See :meth:`partchat.store.protocol.SessionStore.begin_turn`."""
        if not is_valid_id(session_id):
            raise UnknownSession(session_id)
        check_client_message_id(client_message_id)
        reserved = int(seq_reserved)

        async def begin(conn: aiosqlite.Connection) -> BeginTurn:
            now = self._clock()
            found = list(
                await conn.execute_fetchall(
                    _BEGIN_UPDATE, (reserved, now, session_id, client_message_id, owner or "")
                )
            )
            if not found:
                raise UnknownSession(session_id)
            before, existing, elsewhere = found[0]
            if existing is not None or (owner is not None and elsewhere is not None):
                rows = list(
                    await conn.execute_fetchall(
                        f"SELECT {TURN_COLUMNS}, (SELECT id FROM messages"
                        " WHERE turn_id = turns.id AND role = 'user') FROM turns WHERE id = ?",
                        (existing or elsewhere,),
                    )
                )
                if existing is None:
                    raise TurnRunningElsewhere(turn_from_row(rows[0]))
                # A duplicate writes nothing: the reservation above is rolled back.
                raise Undo(
                    BeginTurn(
                        turn=turn_from_row(rows[0]),
                        user_message_id=rows[0][9],
                        duplicate=True,
                        session_version=version_after(before, expect_version, 0),
                    )
                )

            turn = TurnRecord(
                id=new_turn_id(),
                session_id=session_id,
                client_message_id=client_message_id,
                status="running",
                finish_reason=None,
                started_at=now,
                ended_at=None,
                timings=None,
                owner=owner,
            )
            await conn.execute(
                "INSERT INTO turns (id, session_id, client_message_id, status, started_at, owner)"
                " VALUES (?, ?, ?, 'running', ?, ?)",
                (turn.id, session_id, client_message_id, now, owner),
            )
            message_id = new_message_id()
            await conn.execute(
                _INSERT_MESSAGE,
                (message_id, session_id, turn.id, "user", text, "complete", None, now, session_id),
            )
            # three rows written: the session, the turn, the message
            return BeginTurn(turn, message_id, False, version_after(before, expect_version, 3))

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
        # Serialise before the transaction: a bad payload must not leave one open.
        outputs = [dict(item) for item in tool_outputs]
        tool_outputs_json = dumps(outputs) if outputs else None
        context_json = dumps(dict(context))
        timings_json = dumps(dict(timings))
        first_token_ms = timings.get("firstTokenMs")
        seq = int(last_seq)
        calls = [_tool_call_row(turn_id, i, call) for i, call in enumerate(tool_calls)]

        async def finish(conn: aiosqlite.Connection) -> FinishTurn:
            now = self._clock()
            closed = list(
                await conn.execute_fetchall(
                    _FINISH_UPDATE,
                    (
                        TURN_STATUS_FOR_REASON[finish_reason],
                        finish_reason,
                        now,
                        timings_json,
                        model,
                        first_token_ms,
                        turn_id,
                    ),
                )
            )
            if not closed:  # unknown, or finished already: nothing written
                found = list(await conn.execute_fetchall(_FINISH_LOOKUP, (turn_id,)))
                if not found:
                    raise UnknownTurn(turn_id)
                turn_status, before, answer_id = found[0]
                if answer_id is not None:
                    return FinishTurn(str(answer_id), version_after(before, expect_version, 0))
                raise StoreError(f"turn {turn_id} is {turn_status} without an answer")
            session_id, before = closed[0]
            message_id = new_message_id()
            await conn.execute(
                _INSERT_MESSAGE,
                (
                    message_id,
                    session_id,
                    turn_id,
                    "assistant",
                    text,
                    status,
                    tool_outputs_json,
                    now,
                    session_id,
                ),
            )
            await conn.execute(
                "UPDATE sessions SET context = ?, last_seq = MAX(last_seq, ?), updated_at = ?"
                " WHERE id = ?",
                (context_json, seq, now, session_id),
            )
            if calls:  # rows without a version trigger: the version arithmetic holds
                await conn.executemany(
                    _INSERT_TOOL_CALL, [(*row, session_id, now) for row in calls]
                )
            # three rows written: the turn, the message, the session
            return FinishTurn(message_id, version_after(before, expect_version, 3))

        return await self._write(finish)

    async def mark_interrupted(
        self,
        owners: Iterable[str] | None = None,
        *,
        unowned: bool = False,
        texts: Mapping[str, str] | None = None,
    ) -> int:
        """See :meth:`partchat.store.protocol.SessionStore.mark_interrupted`."""
        texts = texts or {}
        where = "status = 'running'"
        params: tuple[str, ...] = ()
        if owners is not None:
            params = tuple(sorted(set(owners)))
            chosen = [f"owner IN ({', '.join('?' * len(params))})"] if params else []
            if unowned:
                chosen.append("owner IS NULL")
            if not chosen:
                return 0
            where += f" AND ({' OR '.join(chosen)})"

        async def interrupt(conn: aiosqlite.Connection) -> int:
            rows = list(
                await conn.execute_fetchall(
                    f"SELECT id, session_id FROM turns WHERE {where} ORDER BY started_at, rowid",
                    params,
                )
            )
            now = self._clock()
            for turn_id, session_id in rows:
                await conn.execute(
                    _INSERT_MESSAGE,
                    (
                        new_message_id(),
                        session_id,
                        turn_id,
                        "assistant",
                        texts.get(turn_id, ""),
                        "interrupted",
                        None,
                        now,
                        session_id,
                    ),
                )
                await conn.execute(
                    "UPDATE turns SET status = 'interrupted', ended_at = ? WHERE id = ?",
                    (now, turn_id),
                )
            return len(rows)

        return await self._write(interrupt)
