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


_INSERT_START = (
    "INSERT INTO turn_starts"
    " (turn_id, session_id, client_message_id, owner, started_at, message_id, text)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_ANSWER = (
    "INSERT INTO turn_answers (turn_id, session_id, message_id, text, status, tool_outputs,"
    " created_at, context, last_seq, tool_calls) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _tool_call_fields(call: ToolCallRecord) -> list[Any]:
    """A tool call's ``tool_calls`` columns in ``TOOL_CALL_FIELDS`` order (JSON values)."""
    return [
        call["toolCallId"],
        int(call["round"]),
        call["name"],
        call["arguments"],
        1 if call["ok"] else 0,
        call["errorCode"],
        float(call["durationMs"]),
        int(call["resultBytes"]),
        call["result"],
        call["unknownParts"] or None,
        call["unknownModels"] or None,
    ]


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
            message_id = new_message_id()
            await conn.execute(
                _INSERT_START,
                (turn.id, session_id, client_message_id, owner, now, message_id, text),
            )
            # three rows written: the session, the turn, the message
            return BeginTurn(turn, message_id, False, version_after(before, expect_version, 3))

        return await self._write(begin, leads_with_write=True)

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
        calls = [_tool_call_fields(call) for call in tool_calls]
        calls_json = dumps(calls) if calls else None

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
                _INSERT_ANSWER,
                (
                    turn_id,
                    session_id,
                    message_id,
                    text,
                    status,
                    tool_outputs_json,
                    now,
                    context_json,
                    seq,
                    calls_json,
                ),
            )
            # three rows written: the turn, the message, the session (tool calls have no
            # version trigger)
            return FinishTurn(message_id, version_after(before, expect_version, 3))

        return await self._write(finish, leads_with_write=True)

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
