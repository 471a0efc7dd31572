"""What the session store hands out and raises, whichever backend holds the data.

Identifiers
    * session ids: ``secrets.token_urlsafe(16)`` — 128 random bits, 22 URL-safe chars.
    * turn ids: ``"t_" + secrets.token_urlsafe(12)`` (96 bits, 18 chars).
    * message ids: ``"m_" + secrets.token_urlsafe(12)`` (96 bits, 18 chars).
    Ids from outside are checked against ``^[A-Za-z0-9_-]{16,64}$`` before any query.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict, cast

import orjson

from partchat.protocol.frames import MAX_MESSAGE_ID_CHARS, HistoryMessage
from partchat.protocol.shapes import Context, FinishReason, empty_context

__all__ = [
    "FINISH_REASONS",
    "TURN_STATUS_FOR_REASON",
    "BeginTurn",
    "Context",
    "FinishMessageStatus",
    "FinishReason",
    "FinishTurn",
    "HistoryMessage",
    "MessageStatus",
    "Role",
    "SessionRecord",
    "StorageUnavailable",
    "StoreError",
    "TurnRecord",
    "TurnRunningElsewhere",
    "TurnStatus",
    "UnknownSession",
    "UnknownTurn",
    "WorkerRecord",
    "check_client_message_id",
    "check_finish",
    "empty_context",
    "is_valid_id",
    "message_status",
    "new_message_id",
    "new_session_id",
    "new_turn_id",
]

TurnStatus = Literal["running", "complete", "aborted", "failed", "interrupted"]
MessageStatus = Literal["complete", "partial", "failed", "interrupted"]
Role = Literal["user", "assistant"]

FINISH_REASONS: frozenset[str] = frozenset({"stop", "aborted", "error", "length"})
FinishMessageStatus = Literal["complete", "partial", "failed"]
TURN_STATUS_FOR_REASON: dict[str, TurnStatus] = {
    "stop": "complete",
    "length": "complete",
    "aborted": "aborted",
    "error": "failed",
}

_ID_RE = re.compile(r"[A-Za-z0-9_-]{16,64}")


# --------------------------------------------------------------------------- errors


class StoreError(Exception):
    """Base class of the session store's errors."""


class UnknownSession(StoreError):
    """No session with that id."""


class UnknownTurn(StoreError):
    """No turn with that id."""


class TurnRunningElsewhere(StoreError):
    """The session has a turn ``running`` that another server process owns."""

    def __init__(self, turn: TurnRecord) -> None:
        super().__init__(f"turn {turn.id} is running in another server process")
        self.turn = turn


class SessionChanged(StoreError):
    """The session's version is not the one the caller required: another process wrote
    it since the caller read it (nothing was written)."""


class StorageUnavailable(StoreError):
    """The database cannot do the work (locked, full, read-only, I/O error, closed,
    unreachable). ``str(exc)`` is short and safe to show a client; the engine's error is
    ``__cause__``."""


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class SessionRecord:
    id: str
    created_at: float
    updated_at: float
    context: Context
    last_seq: int
    seq_reserved: int
    version: int = 0  # moves with every write to the session, by any process


@dataclass(frozen=True, slots=True)
class TurnRecord:
    id: str
    session_id: str
    client_message_id: str
    status: TurnStatus
    finish_reason: FinishReason | None
    started_at: float
    ended_at: float | None
    timings: dict[str, Any] | None
    owner: str | None = None  # boot id of the server process running it (None: legacy row)

    @classmethod
    def running(
        cls,
        turn_id: str,
        session_id: str,
        client_message_id: str,
        started_at: float,
        owner: str | None,
    ) -> TurnRecord:
        """A turn just begun, as both backends record it."""
        return cls(
            id=turn_id,
            session_id=session_id,
            client_message_id=client_message_id,
            status="running",
            finish_reason=None,
            started_at=started_at,
            ended_at=None,
            timings=None,
            owner=owner,
        )


@dataclass(frozen=True, slots=True)
class WorkerRecord:
    """A server process, as the store's ``workers`` records describe it."""

    boot_id: str
    pid: int
    host: str
    started_at: float
    heartbeat_at: float


@dataclass(frozen=True, slots=True)
class BeginTurn:
    turn: TurnRecord
    user_message_id: str
    duplicate: bool
    session_version: int | None = None  # see SessionStore.begin_turn's expect_version


@dataclass(frozen=True, slots=True)
class FinishTurn:
    message_id: str
    session_version: int | None = None  # see SessionStore.finish_turn's expect_version


# --------------------------------------------------------------------------- ids


def new_session_id() -> str:
    return secrets.token_urlsafe(16)


def new_turn_id() -> str:
    return "t_" + secrets.token_urlsafe(12)


def new_message_id() -> str:
    return "m_" + secrets.token_urlsafe(12)


def is_valid_id(value: object) -> bool:
    """True for a string of 16-64 URL-safe characters (the shape of every store id)."""
    return isinstance(value, str) and _ID_RE.fullmatch(value) is not None


def check_client_message_id(value: object) -> None:
    """``ValueError`` unless ``value`` is a string of 1-``MAX_MESSAGE_ID_CHARS`` characters
    (the protocol's limit)."""
    if not isinstance(value, str) or not 0 < len(value) <= MAX_MESSAGE_ID_CHARS:
        raise ValueError(f"client message id must be 1-{MAX_MESSAGE_ID_CHARS} characters")


def message_status(finish_reason: FinishReason, text: str) -> FinishMessageStatus:
    """The answer's stored status: the one the web client shows live too
    (``frontend/src/chat/finishStatus.ts``), so a badge never changes on reload. ``length``
    is the tool-round cap: the model wrapped up without tools, a whole answer. A stopped or
    failed answer keeps what was written (``partial``), ``failed`` with none."""
    if finish_reason in ("stop", "length"):
        return "complete"
    return "partial" if text else "failed"


def check_finish(status: object, finish_reason: object, text: str) -> None:
    """``ValueError`` for a finish reason ``finish_turn`` does not take, or a message status
    other than :func:`message_status`'s for it."""
    if finish_reason not in FINISH_REASONS:
        raise ValueError(f"bad finish reason {finish_reason!r}")
    expected = message_status(cast(FinishReason, finish_reason), text)
    if status != expected:
        raise ValueError(f"bad message status {status!r} for {finish_reason!r}: {expected!r}")


# --------------------------------------------------------------------------- rows
# Both backends select the same columns in the same order (``_TURN_COLUMNS`` …), so one
# decoder each; ``at`` is where the record's columns start in a wider row.


def load_context(raw: str | None) -> Context:
    """A stored context (JSON text) laid over the empty one, so the four keys are always
    present (extra keys a caller saved are passed through)."""
    context = empty_context()
    if raw:
        stored = orjson.loads(raw)
        if isinstance(stored, dict):
            context.update(stored)  # type: ignore[typeddict-item]
    return context


# The columns the ``*_from_row`` readers expect, in order (both backends select them).
SESSION_COLUMNS = "id, created_at, updated_at, context, last_seq, seq_reserved, version"
TURN_COLUMNS = (
    "id, session_id, client_message_id, status, finish_reason, started_at, ended_at, timings, owner"
)
WORKER_COLUMNS = "boot_id, pid, host, started_at, heartbeat_at"


def session_from_row(row: Sequence[Any]) -> SessionRecord:
    return SessionRecord(
        id=row[0],
        created_at=row[1],
        updated_at=row[2],
        context=load_context(row[3]),
        last_seq=row[4],
        seq_reserved=row[5],
        version=row[6],
    )


def turn_from_row(row: Sequence[Any], at: int = 0) -> TurnRecord:
    return TurnRecord(
        id=row[at],
        session_id=row[at + 1],
        client_message_id=row[at + 2],
        status=cast(TurnStatus, row[at + 3]),
        finish_reason=cast("FinishReason | None", row[at + 4]),
        started_at=row[at + 5],
        ended_at=row[at + 6],
        timings=orjson.loads(row[at + 7]) if row[at + 7] else None,
        owner=row[at + 8],
    )


def worker_from_row(row: Sequence[Any], at: int = 0) -> WorkerRecord:
    return WorkerRecord(
        boot_id=row[at],
        pid=row[at + 1],
        host=row[at + 2],
        started_at=row[at + 3],
        heartbeat_at=row[at + 4],
    )


def version_after(before: int | None, expect: int | None, moved_by: int = 1) -> int | None:
    """The session's version after a unit that moved it ``moved_by``, when it was
    ``expect`` before it (the writer's view plus its own write is the whole session);
    else None (another process wrote the session since the writer read it)."""
    if expect is None or before is None or before != expect:
        return None
    return before + moved_by


# --------------------------------------------------------------------------- turn records
# What a turn's finish stores besides its answer, and what the operator reads back.

Rating = Literal["up", "down"]
RATINGS: frozenset[str] = frozenset({"up", "down"})
MAX_FEEDBACK_REASON_CHARS = 500


class ToolCallRecord(TypedDict):
    """One tool call of a turn, as ``finish_turn`` stores it (``partchat.toolbox.records``)."""

    toolCallId: str
    round: int  # the LLM → tools round of the turn it belonged to (1, 2, …)
    name: str
    arguments: dict[str, Any]
    ok: bool
    errorCode: str | None
    durationMs: float
    resultBytes: int  # the whole result's JSON size, even when ``result`` was dropped
    result: dict[str, Any] | None  # None when larger than ``MAX_STORED_RESULT_BYTES``
    unknownParts: list[str]  # part numbers the result said the catalog does not have
    unknownModels: list[str]  # model numbers the same


@dataclass(frozen=True, slots=True)
class SavedFeedback:
    """A turn's stored rating after ``save_feedback``; ``changed`` False: it was already so."""

    turn_id: str
    rating: Rating
    reason: str | None
    at: float
    changed: bool
    session_version: int | None = None


def check_feedback(session_id: str, turn_id: str, rating: object, reason: object) -> None:
    """What ``save_feedback`` refuses before it reads anything: ``UnknownSession`` /
    ``UnknownTurn`` for ids no store ever gives, ``ValueError`` for a rating or reason."""
    if not is_valid_id(session_id):
        raise UnknownSession(session_id)
    if not is_valid_id(turn_id):
        raise UnknownTurn(turn_id)
    if rating not in RATINGS:
        raise ValueError("rating must be 'up' or 'down'")
    if reason is not None and (
        not isinstance(reason, str) or len(reason) > MAX_FEEDBACK_REASON_CHARS
    ):
        raise ValueError(
            f"reason must be a string of at most {MAX_FEEDBACK_REASON_CHARS} characters"
        )


# History rows, both backends: message id, role, text, turn id, status, tool outputs (JSON
# text), the turn's client message id, the answer's rating and reason.
HISTORY_SELECT = (
    "SELECT m.id, m.role, m.text, m.turn_id, m.status, m.tool_outputs, t.client_message_id,"
    " f.rating, f.reason FROM messages m LEFT JOIN turns t ON t.id = m.turn_id"
    " LEFT JOIN feedback f ON f.turn_id = m.turn_id AND m.role = 'assistant'"
)


def history_from_row(row: Sequence[Any], client_ids: bool) -> HistoryMessage:
    message: HistoryMessage = {
        "id": row[6] if client_ids and row[1] == "user" and row[6] else row[0],
        "role": row[1],
        "text": row[2],
        "turnId": row[3],
        "status": row[4],
        "toolOutputs": orjson.loads(row[5]) if row[5] else [],
    }
    if row[7] is not None:
        message["feedback"] = (
            {"rating": row[7], "reason": row[8]} if row[8] is not None else {"rating": row[7]}
        )
    return message
