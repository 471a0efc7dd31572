"""The operator's reads (``/api/admin/``): filters, the SQL both backends share, and the
rows they select turned into the API's records.

Both backends select the same columns in the same order, written here once with ``?``
placeholders (the PostgreSQL backend numbers them, :func:`numbered`). What differs (JSON
functions, day arithmetic) each backend writes itself.

Sessions are listed by last activity (``updated_at``) descending, then id descending,
with keyset pagination: a page after ``(updated_at, id)`` reads on from there through
``sessions_activity``, whatever the depth.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal

import orjson

from partchat.store.records import is_valid_id, load_context

__all__ = [
    "DETAIL_TOOL_COLUMNS",
    "DETAIL_TURN_COLUMNS",
    "AdminFilters",
    "filter_sql",
    "iso",
    "numbered",
    "session_detail",
    "session_summary",
]

SymptomMatch = Literal["sqlite", "postgres"]


@dataclass(frozen=True, slots=True)
class AdminFilters:
    """What ``/api/admin/sessions`` narrows to; every filter set must hold (AND).

    ``start``/``end``: epoch seconds, ``start <= updated_at < end``."""

    feedback: Literal["up", "down"] | None = None
    errors: bool = False
    tool_errors: bool = False
    unknown: bool = False
    symptom: str | None = None
    start: float | None = None
    end: float | None = None


# A turn counts as an error when it failed, was interrupted, or ended in error.
ERROR_TURN = "(t.status IN ('failed', 'interrupted') OR t.finish_reason = 'error')"
UNKNOWN_CALL = "(c.unknown_parts IS NOT NULL OR c.unknown_models IS NOT NULL)"


def filter_sql(
    filters: AdminFilters, after: tuple[float, str] | None, dialect: SymptomMatch
) -> tuple[str, list[Any]]:
    """``WHERE`` conditions on ``sessions s`` (joined with AND) and their parameters."""
    where: list[str] = []
    params: list[Any] = []
    if filters.feedback is not None:
        where.append("EXISTS (SELECT 1 FROM feedback f WHERE f.session_id = s.id AND f.rating = ?)")
        params.append(filters.feedback)
    if filters.errors:
        where.append(f"EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id AND {ERROR_TURN})")
    if filters.tool_errors:
        where.append("EXISTS (SELECT 1 FROM tool_calls c WHERE c.session_id = s.id AND NOT c.ok)")
    if filters.unknown:
        where.append(
            f"EXISTS (SELECT 1 FROM tool_calls c WHERE c.session_id = s.id AND {UNKNOWN_CALL})"
        )
    if filters.symptom is not None:
        if dialect == "sqlite":
            where.append(
                "EXISTS (SELECT 1 FROM json_each(s.context, '$.symptoms') j"
                " WHERE lower(j.value) = lower(?))"
            )
        else:
            where.append(
                "EXISTS (SELECT 1 FROM jsonb_array_elements_text("
                "CASE jsonb_typeof(s.context -> 'symptoms') WHEN 'array'"
                " THEN s.context -> 'symptoms' ELSE '[]'::jsonb END) j"
                " WHERE lower(j) = lower(?))"
            )
        params.append(filters.symptom)
    if filters.start is not None:
        where.append("s.updated_at >= ?")
        params.append(filters.start)
    if filters.end is not None:
        where.append("s.updated_at < ?")
        params.append(filters.end)
    if after is not None:
        # a row value: both engines seek the (updated_at, id) index to it
        where.append("(s.updated_at, s.id) < (?, ?)")
        params.extend(after)
    return (" AND ".join(where) or "TRUE"), params


def numbered(sql: str, start: int = 1) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2, …`` (the shared SQL has no other ``?``)."""
    counter = iter(range(start, start + sql.count("?") + 1))
    return re.sub(r"\?", lambda _: f"${next(counter)}", sql)


def page_sql(where: str) -> str:
    """A page of summaries: the page's sessions chosen first (through the activity
    index, no per-row work), then their counts for those rows only; ``LIMIT ?`` last."""
    return (
        f"SELECT {SUMMARY_COLUMNS} FROM (SELECT s.id, s.created_at, s.updated_at, s.context"
        f" FROM sessions s WHERE {where} ORDER BY s.updated_at DESC, s.id DESC LIMIT ?) s"
        " ORDER BY s.updated_at DESC, s.id DESC"
    )


# The list's columns: a page's sessions with their counts, one statement.
SUMMARY_COLUMNS = (
    "s.id, s.created_at, s.updated_at, s.context,"
    " (SELECT COUNT(*) FROM turns t WHERE t.session_id = s.id),"
    " (SELECT m.text FROM messages m WHERE m.session_id = s.id AND m.role = 'user'"
    "  ORDER BY m.seq LIMIT 1),"
    " (SELECT COUNT(*) FROM feedback f WHERE f.session_id = s.id AND f.rating = 'up'),"
    " (SELECT COUNT(*) FROM feedback f WHERE f.session_id = s.id AND f.rating = 'down'),"
    f" (SELECT COUNT(*) FROM turns t WHERE t.session_id = s.id AND {ERROR_TURN}),"
    " (SELECT COUNT(*) FROM tool_calls c WHERE c.session_id = s.id AND NOT c.ok)"
)
# The unknown numbers of a page's sessions (``IN (…)`` appended by the backend).
UNKNOWN_OF_SESSIONS = (
    f"SELECT c.session_id, c.unknown_parts, c.unknown_models FROM tool_calls c"
    f" WHERE {UNKNOWN_CALL} AND c.session_id"
)
DETAIL_SESSION_COLUMNS = "s.id, s.created_at, s.updated_at, s.context"
DETAIL_TURN_COLUMNS = (
    "t.id, t.session_id, t.started_at, t.ended_at, t.status, t.finish_reason, t.model,"
    " t.timings, t.client_message_id, u.text, a.text, a.status, f.rating, f.reason,"
    " f.updated_at FROM turns t"
    " LEFT JOIN messages u ON u.turn_id = t.id AND u.role = 'user'"
    " LEFT JOIN messages a ON a.turn_id = t.id AND a.role = 'assistant'"
    " LEFT JOIN feedback f ON f.turn_id = t.id"
)
DETAIL_TOOL_COLUMNS = (
    "c.turn_id, c.tool_call_id, c.round, c.name, c.arguments, c.ok, c.error_code,"
    " c.duration_ms, c.result_bytes, c.result FROM tool_calls c"
)

FIRST_MESSAGE_CHARS = 200
TIMING_KEYS = ("queueMs", "firstTokenMs", "llmMs", "toolsMs", "totalMs")


def iso(seconds: float | None) -> str | None:
    """Epoch seconds as ISO 8601 UTC with ``Z`` (milliseconds)."""
    if seconds is None:
        return None
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _json(value: Any) -> Any:
    if value is None or isinstance(value, dict | list):
        return value
    return orjson.loads(value)


def unknown_values(rows: Sequence[Sequence[Any]]) -> dict[str, list[str]]:
    """session id → the distinct unknown part and model numbers its tool calls met."""
    found: dict[str, list[str]] = {}
    for session_id, parts, models in rows:
        values = found.setdefault(session_id, [])
        for value in [*(_json(parts) or []), *(_json(models) or [])]:
            if value not in values:
                values.append(value)
    return found


def session_summary(row: Sequence[Any], unknown: list[str]) -> dict[str, Any]:
    first = row[5] or ""
    return {
        "sessionId": row[0],
        "createdAt": iso(row[1]),
        "updatedAt": iso(row[2]),
        "turns": int(row[4]),
        "firstMessage": first[:FIRST_MESSAGE_CHARS],
        "context": _context(row[3]),
        "ratings": {"up": int(row[6]), "down": int(row[7])},
        "errors": int(row[8]),
        "toolErrors": int(row[9]),
        "unknown": unknown,
    }


def _context(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        raw = orjson.dumps(raw).decode()
    context = load_context(raw)
    return {
        "productModel": context["productModel"],
        "partNumber": context["partNumber"],
        "symptoms": context["symptoms"],
        "applianceType": context["applianceType"],
    }


def tool_call(row: Sequence[Any]) -> dict[str, Any]:
    return {
        "toolCallId": row[1],
        "round": int(row[2]),
        "name": row[3],
        "arguments": _json(row[4]) or {},
        "ok": bool(row[5]),
        "errorCode": row[6],
        "durationMs": float(row[7]),
        "resultBytes": int(row[8]),
        "result": _json(row[9]),
    }


def _turn_status(turn_status: str, answer_status: str | None) -> str:
    if answer_status is not None:
        return answer_status
    return "running" if turn_status == "running" else "failed"


def turn_detail(row: Sequence[Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
    stored = _json(row[7]) or {}
    feedback: dict[str, Any] | None = None
    if row[12] is not None:
        feedback = {"rating": row[12], "at": iso(row[14])}
        if row[13] is not None:
            feedback["reason"] = row[13]
    return {
        "turnId": row[0],
        "startedAt": iso(row[2]),
        "finishedAt": iso(row[3]),
        "status": _turn_status(row[4], row[11]),
        "finishReason": row[5],
        "model": row[6],
        "user": {"id": row[8], "text": row[9] or ""},
        "assistant": None if row[11] is None else {"text": row[10] or "", "status": row[11]},
        "feedback": feedback,
        "timings": {key: stored.get(key) for key in TIMING_KEYS},
        "toolCalls": calls,
    }


def session_detail(
    session: Sequence[Any], turns: Sequence[Sequence[Any]], calls: Sequence[Sequence[Any]]
) -> dict[str, Any]:
    """The session record the detail endpoint and the JSONL export carry. ``turns`` and
    ``calls`` are this session's rows, in order."""
    by_turn: dict[str, list[dict[str, Any]]] = {}
    for row in calls:
        by_turn.setdefault(row[0], []).append(tool_call(row))
    return {
        "sessionId": session[0],
        "createdAt": iso(session[1]),
        "updatedAt": iso(session[2]),
        "context": _context(session[3]),
        "turns": [turn_detail(row, by_turn.get(row[0], [])) for row in turns],
    }


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def top(rows: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    return [{"value": row[0], "count": int(row[1])} for row in rows]


def stats_record(
    days: Sequence[str],
    day_rows: Sequence[Sequence[Any]],
    parts: Sequence[Sequence[Any]],
    models: Sequence[Sequence[Any]],
    symptoms: Sequence[Sequence[Any]],
    tool_row: Sequence[Any] | None,
    ttft: Sequence[Any],
) -> dict[str, Any]:
    """``/api/admin/stats`` from the rows both backends select: ``day_rows`` are (day,
    answers, negative, rated) per day with answers, ``ttft`` the (p50, p95) of the
    first-token times, nearest rank (None without any)."""
    by_day = {row[0]: row for row in day_rows}
    per_day = [
        {
            "day": day,
            "answers": int(by_day[day][1]) if day in by_day else 0,
            "negative": int(by_day[day][2] or 0) if day in by_day else 0,
        }
        for day in days
    ]
    answers = sum(int(row[1]) for row in day_rows)
    negative = sum(int(row[2] or 0) for row in day_rows)
    rated = sum(int(row[3] or 0) for row in day_rows)
    calls = int(tool_row[0] or 0) if tool_row else 0
    failed = int(tool_row[1] or 0) if tool_row else 0
    return {
        "from": days[0] if days else None,
        "to": days[-1] if days else None,
        "answers": answers,
        "answersPerDay": per_day,
        "rated": rated,
        "negativeShare": negative / rated if rated else None,
        "topUnknownParts": top(parts),
        "topUnknownModels": top(models),
        "topSymptoms": top(symptoms),
        "toolCalls": calls,
        "toolErrorRate": failed / calls if calls else None,
        "ttftMs": {"p50": _number(ttft[0]), "p95": _number(ttft[1])},
    }


TOP_LIMIT = 10


def day_range(first: date, last: date) -> tuple[float, float, list[str]]:
    """Epoch seconds ``[start, end)`` covering the UTC days ``first``..``last`` and the days."""
    start = datetime(first.year, first.month, first.day, tzinfo=UTC)
    count = (last - first).days + 1
    days = [(first + timedelta(days=i)).isoformat() for i in range(max(count, 0))]
    return start.timestamp(), start.timestamp() + 86400.0 * max(count, 0), days


@dataclass(frozen=True, slots=True)
class AdminPage:
    """A page of session summaries; ``after``: the keyset the next page starts after
    (None: this was the last page)."""

    items: list[dict[str, Any]]
    after: tuple[float, str] | None


def page_ids(rows: Sequence[Sequence[Any]], limit: int) -> list[str]:
    """The session ids of a page's rows (selected with ``limit + 1``: one more tells
    whether another page follows)."""
    return [row[0] for row in rows[:limit]]


def summary_page(
    rows: Sequence[Sequence[Any]], limit: int, unknown_rows: Sequence[Sequence[Any]]
) -> AdminPage:
    """The page of ``page_sql``'s rows (``limit + 1`` of them at most) and the unknown
    numbers of its sessions."""
    unknown = unknown_values(unknown_rows)
    kept = rows[:limit]
    items = [session_summary(row, unknown.get(row[0], [])) for row in kept]
    more = len(rows) > limit and kept
    return AdminPage(items, (kept[-1][2], kept[-1][0]) if more else None)


def detail_ids(session_ids: Sequence[str]) -> list[str]:
    """The distinct well-formed ids, in order (the others cannot be sessions)."""
    return [i for i in dict.fromkeys(session_ids) if is_valid_id(i)]


def details_in_order(
    ids: Sequence[str],
    sessions: Iterable[Sequence[Any]],
    turns: Iterable[Sequence[Any]],
    calls: Iterable[Sequence[Any]],
) -> list[dict[str, Any]]:
    """Session details in the order of ``ids`` (unknown ids left out) from the rows of
    all of them: ``turns`` in order (their session id second), ``calls`` in order."""
    turns_of: dict[str, list[Sequence[Any]]] = {}
    for row in turns:
        turns_of.setdefault(row[1], []).append(row)
    calls_of: dict[str, list[Sequence[Any]]] = {}
    for row in calls:
        calls_of.setdefault(row[0], []).append(row)
    found = {row[0]: row for row in sessions}
    details = []
    for session_id in ids:
        if session_id in found:
            session_turns = turns_of.get(session_id, [])
            session_calls = [c for t in session_turns for c in calls_of.get(t[0], [])]
            details.append(session_detail(found[session_id], session_turns, session_calls))
    return details
