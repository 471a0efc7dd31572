"""GENERATED FILE: do not edit by hand.

Source: backend/partchat/schemas/protocol.schema.json
Regenerate with: python -m partchat.schemas.gen_protocol_py
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

ApplianceType = Literal["refrigerator", "dishwasher"] | None


class Context(TypedDict):
    """What the session knows about the shopper's appliance."""

    productModel: str | None
    partNumber: str | None
    symptoms: list[str]
    applianceType: ApplianceType


class ToolOutput(TypedDict):
    """A tool result stored with an assistant message (see docs/tool-results.md for the shapes)."""

    toolCallId: str
    toolName: str
    output: dict[str, Any]


class HistoryMessage(TypedDict):
    """A stored message. User messages carry the client message id as id."""

    id: str
    role: Literal["user", "assistant"]
    text: str
    turnId: str
    status: NotRequired[Literal["complete", "partial", "failed", "interrupted"]]
    toolOutputs: NotRequired[list[ToolOutput]]
    feedback: NotRequired[Feedback]


class Inflight(TypedDict):
    """The turn running right now in this session, if any."""

    turnId: str
    messageId: str


class FieldError(TypedDict):
    path: str
    message: str


ErrorCode = Literal[
    "bad_frame",
    "not_ready",
    "unknown_type",
    "message_too_long",
    "rate_limited",
    "busy",
    "llm_unavailable",
    "internal",
    "storage_unavailable",
    "server_restarting",
    "turn_elsewhere",
    "not_found",
]


FinishReason = Literal["stop", "aborted", "error", "length"]


# A shopper's rating of one answer.
Rating = Literal["up", "down"]


class Feedback(TypedDict):
    """The rating stored for an answer (the latest one sent wins)."""

    rating: Rating
    reason: NotRequired[str]


class HelloFrame(TypedDict):
    """First frame on every connection. sessionId null starts a new session; lastSeq is the highest
    seq the client has applied (null: none, e.g. after a page reload).
    """

    type: Literal["hello"]
    sessionId: str | None
    lastSeq: int | None


class MessageFrame(TypedDict):
    """A user message. id is chosen by the client and makes the message idempotent: resending the
    same id never stores or runs it twice.
    """

    type: Literal["message"]
    id: str
    text: str


class StopFrame(TypedDict):
    """Cancel the turn in flight; the server answers with finish {finishReason: "aborted"}."""

    type: Literal["stop"]


class PingFrame(TypedDict):
    type: Literal["ping"]


class FeedbackFrame(TypedDict):
    """Rate the answer of a finished turn of this session. Idempotent: sending it again stores
    nothing new; a different rating or reason replaces the stored one. The server answers
    feedback_saved, or error not_found when the session has no such finished turn.
    """

    type: Literal["feedback"]
    turnId: str
    rating: Rating
    reason: NotRequired[str]


ClientFrame = HelloFrame | MessageFrame | StopFrame | PingFrame | FeedbackFrame


class ReadyEvent(TypedDict):
    """Answer to hello. seq is the session's current last seq (not a new one). resumed is false when
    a new session was started (no id, or an unknown one). Events after the client's lastSeq are
    replayed right after it.
    """

    type: Literal["ready"]
    sessionId: str
    resumed: bool
    context: Context
    history: list[HistoryMessage]
    inflight: Inflight | None
    seq: NotRequired[int]


class StartEvent(TypedDict):
    """The user message (messageId = the client message id) is stored; the turn runs."""

    type: Literal["start"]
    turnId: str
    messageId: str
    seq: NotRequired[int]


class TextDeltaEvent(TypedDict):
    type: Literal["text-delta"]
    turnId: str
    delta: str
    seq: NotRequired[int]


class ToolInputAvailableEvent(TypedDict):
    type: Literal["tool-input-available"]
    turnId: str
    toolCallId: str
    toolName: str
    input: dict[str, Any]
    seq: NotRequired[int]


class ToolOutputAvailableEvent(TypedDict):
    type: Literal["tool-output-available"]
    turnId: str
    toolCallId: str
    toolName: str
    output: dict[str, Any]
    seq: NotRequired[int]


class ToolOutputErrorEvent(TypedDict):
    type: Literal["tool-output-error"]
    turnId: str
    toolCallId: str
    toolName: str
    errorText: str
    errors: list[FieldError]
    seq: NotRequired[int]


class DataContextEvent(TypedDict):
    type: Literal["data-context"]
    turnId: str
    context: Context
    seq: NotRequired[int]


class FinishEvent(TypedDict):
    """The turn is over. text is the whole assistant answer as stored (authoritative over the
    concatenated deltas).
    """

    type: Literal["finish"]
    turnId: str
    text: str
    finishReason: FinishReason
    seq: NotRequired[int]


class ErrorEvent(TypedDict):
    """An error. seq is present when the error is part of the session's event stream (e.g. an error
    inside a turn), absent for connection-level errors (bad_frame, not_ready, busy, rate_limited,
    turn_elsewhere...). messageId names the client message the error refers to, when there is
    one.
    """

    type: Literal["error"]
    code: ErrorCode
    message: str
    turnId: NotRequired[str | None]
    messageId: NotRequired[str | None]
    seq: NotRequired[int | None]


class PongEvent(TypedDict):
    """Answer to ping. Not part of the session's event stream."""

    type: Literal["pong"]
    seq: NotRequired[int | None]


class FeedbackSavedEvent(TypedDict):
    """The rating of turnId is stored. Not part of the session's event stream."""

    type: Literal["feedback_saved"]
    turnId: str
    rating: Rating
    reason: NotRequired[str]


ServerEvent = (
    ReadyEvent
    | StartEvent
    | TextDeltaEvent
    | ToolInputAvailableEvent
    | ToolOutputAvailableEvent
    | ToolOutputErrorEvent
    | DataContextEvent
    | FinishEvent
    | ErrorEvent
    | PongEvent
    | FeedbackSavedEvent
)


# partchat WebSocket wire protocol (/ws, JSON text frames). Single source of truth: the server
# validates client frames against $defs.ClientFrame, tests validate server events against
# $defs.ServerEvent, and frontend/src/protocol/generated.ts is generated from this file (npm run
# gen:protocol). See docs/protocol.md.
ProtocolFrame = ClientFrame | ServerEvent
