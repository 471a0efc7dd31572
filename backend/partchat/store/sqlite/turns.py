"""SQLite turn writes: begin and finish a turn (its messages and tool calls), interrupt."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache, cached_property
from typing import Any, Literal

import aiosqlite

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
from partchat.store.sqlite.batch import RowBatcher, values_rows
from partchat.store.sqlite.connection import (
    SqliteConnection,
    dumps,
)

_INSERT_MESSAGE = (
    "INSERT INTO messages"
    " (id, session_id, turn_id, role, text, status, tool_outputs, created_at, seq)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?,"
    " (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?))"
)
# begin_turn: each request, selected only when its session exists (at the version required,
# if one is), has no turn under this client message id and (with an owner) no turn running
# under another owner; RETURNING gives the turn and its session's version before the unit
# (turn_starts' trigger writes the rest). ``rows`` requests at once (``RowBatcher``).
_START_ROW = "turn, session, client, owner, now, reserved, message, text, only_at"


@cache
def _start_sql(rows: int) -> str:
    return (
        f"WITH v({_START_ROW}) AS (VALUES {values_rows(9, rows)})"
        " INSERT INTO turn_starts (turn_id, session_id, client_message_id, owner, started_at,"
        " seq_reserved, message_id, text)"
        " SELECT v.turn, s.id, v.client, v.owner, v.now, v.reserved, v.message, v.text"
        " FROM v JOIN sessions s ON s.id = v.session"
        " WHERE (v.only_at IS NULL OR s.version = v.only_at)"
        " AND NOT EXISTS (SELECT 1 FROM turns t"
        "  WHERE t.session_id = s.id AND t.client_message_id = v.client)"
        " AND (v.owner IS NULL OR NOT EXISTS (SELECT 1 FROM turns r"
        "  WHERE r.session_id = s.id AND r.status = 'running'"
        "  AND r.owner IS NOT NULL AND r.owner != v.owner))"
        " RETURNING turn_id, (SELECT version FROM sessions WHERE id = turn_starts.session_id)"
    )


# why a start was refused: the session's version, the turn already stored under this
# client message id, a turn running under another owner
_START_REFUSED = (
    "SELECT version,"
    " (SELECT t.id FROM turns t WHERE t.session_id = sessions.id AND t.client_message_id = ?),"
    " (SELECT r.id FROM turns r WHERE r.session_id = sessions.id AND r.status = 'running'"
    "  AND r.owner IS NOT NULL AND r.owner != ?"
    "  ORDER BY r.started_at DESC, r.rowid DESC LIMIT 1)"
    " FROM sessions WHERE id = ?"
)
# finish_turn: each request, selected only while its turn is running; RETURNING gives the
# turn, its session and that session's version before the unit (turn_answers' trigger
# writes it all). ``rows`` requests at once (``RowBatcher``).
_ANSWER_ROW = (
    "turn, status, reason, ended, timings, model, first_token, message, text,"
    " message_status, tool_outputs, context, last_seq, tool_calls"
)


@cache
def _answer_sql(rows: int) -> str:
    return (
        f"WITH v({_ANSWER_ROW}) AS (VALUES {values_rows(14, rows)})"
        " INSERT INTO turn_answers (turn_id, session_id, status, finish_reason, ended_at,"
        " timings, model, first_token_ms, message_id, text, message_status, tool_outputs,"
        " context, last_seq, tool_calls)"
        " SELECT t.id, t.session_id, v.status, v.reason, v.ended, v.timings, v.model,"
        " v.first_token, v.message, v.text, v.message_status, v.tool_outputs, v.context,"
        " v.last_seq, v.tool_calls"
        " FROM v JOIN turns t ON t.id = v.turn WHERE t.status = 'running'"
        " RETURNING turn_id, session_id,"
        " (SELECT version FROM sessions WHERE id = turn_answers.session_id)"
    )


# a turn no longer running: its status, session version and stored answer
_FINISH_LOOKUP = (
    "SELECT t.status, s.version,"
    " (SELECT m.id FROM messages m WHERE m.turn_id = t.id AND m.role = 'assistant')"
    " FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.id = ?"
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
    """A turn's two write units, and the interruption of running turns. Begins and
    finishes that wait for the connection go to SQLite together (group commit)."""

    @cached_property
    def _starts(self) -> RowBatcher:
        return RowBatcher(self, _start_sql)

    @cached_property
    def _answers(self) -> RowBatcher:
        return RowBatcher(self, _answer_sql)

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
        """See :meth:`partchat.store.protocol.SessionStore.begin_turn`."""
        if not is_valid_id(session_id):
            raise UnknownSession(session_id)
        check_client_message_id(client_message_id)
        reserved = int(seq_reserved)

        turn_id = new_turn_id()
        message_id = new_message_id()
        now = self._clock()
        start = (
            turn_id,
            session_id,
            client_message_id,
            owner,
            now,
            reserved,
            message_id,
            text,
            only_at_version,
        )
        turn = TurnRecord.running(turn_id, session_id, client_message_id, now, owner)

        def begun(started: tuple[Any, ...]) -> BeginTurn:
            # three rows written: the session, the turn, the message
            before = int(started[1])
            return BeginTurn(turn, message_id, False, version_after(before, expect_version, 3))

        async def refused(conn: aiosqlite.Connection) -> BeginTurn:
            # Under the write lock, nothing changes between the statements.
            again = list(await conn.execute_fetchall(_start_sql(1), start))
            if again:  # what refused it has gone (a turn elsewhere ended)
                return begun(tuple(again[0]))
            found = list(
                await conn.execute_fetchall(
                    _START_REFUSED, (client_message_id, owner or "", session_id)
                )
            )
            if not found:
                raise UnknownSession(session_id)
            before, existing, elsewhere = found[0]
            if owner is None:
                elsewhere = None  # as in _start_sql: without an owner no other owner's turn refuses
            if existing is None and elsewhere is None:
                raise SessionChanged(session_id)  # the only refusal left: the version
            rows = list(
                await conn.execute_fetchall(
                    f"SELECT {TURN_COLUMNS}, (SELECT id FROM messages"
                    " WHERE turn_id = turns.id AND role = 'user') FROM turns WHERE id = ?",
                    (existing or elsewhere,),
                )
            )
            if existing is None:
                raise TurnRunningElsewhere(turn_from_row(rows[0]))
            return BeginTurn(
                turn=turn_from_row(rows[0]),
                user_message_id=rows[0][9],
                duplicate=True,
                session_version=version_after(before, expect_version, 0),
            )

        # One row of a statement, its own transaction; refused, the unit that says why.
        started = await self._starts.submit(session_id, start)
        if started is not None:
            return begun(started)
        return await self._write(refused)

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

        message_id = new_message_id()
        now = self._clock()
        answer = (
            turn_id,
            TURN_STATUS_FOR_REASON[finish_reason],
            finish_reason,
            now,
            timings_json,
            model,
            first_token_ms,
            message_id,
            text,
            status,
            tool_outputs_json,
            context_json,
            seq,
            calls_json,
        )

        # One row of a statement, its own transaction.
        closed = await self._answers.submit(turn_id, answer)
        if closed is not None:
            # three rows written: the turn, the message, the session (tool calls have no
            # version trigger)
            return FinishTurn(message_id, version_after(int(closed[2]), expect_version, 3))
        # unknown, or finished already: nothing written (a finished turn stays finished)
        found = await self._fetch_one(_FINISH_LOOKUP, (turn_id,))
        if found is None:
            raise UnknownTurn(turn_id)
        turn_status, before, answer_id = found
        if answer_id is not None:
            return FinishTurn(str(answer_id), version_after(before, expect_version, 0))
        raise StoreError(f"turn {turn_id} is {turn_status} without an answer")

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
