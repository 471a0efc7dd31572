"""The wire protocol: typed frames, client-frame parsing, event encoding.

The JSON Schema in ``schemas/protocol.schema.json`` is the single source of truth: the
frame and event TypedDicts are generated from it (``types.py``, re-exported
here), client frames are validated against it, and the tests validate every server
event against it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from typing import Any, cast

import orjson
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from partchat.protocol.fast_checks import compile_fast_check
from partchat.protocol.types import (
    ClientFrame,
    DataContextEvent,
    ErrorCode,
    ErrorEvent,
    Feedback,
    FeedbackFrame,
    FeedbackSavedEvent,
    FieldError,
    FinishEvent,
    HelloFrame,
    HistoryMessage,
    Inflight,
    MessageFrame,
    PingFrame,
    Rating,
    ReadyEvent,
    StartEvent,
    StopFrame,
    TextDeltaEvent,
    ToolInputAvailableEvent,
    ToolOutput,
    ToolOutputAvailableEvent,
    ToolOutputErrorEvent,
)

__all__ = [  # the generated frame and event types are re-exported
    "CLIENT_TYPES",
    "MAX_FRAME_BYTES",
    "MAX_MESSAGE_ID_CHARS",
    "MAX_TEXT_CHARS",
    "ClientFrame",
    "DataContextEvent",
    "ErrorCode",
    "ErrorEvent",
    "Feedback",
    "FeedbackFrame",
    "FeedbackSavedEvent",
    "FieldError",
    "FinishEvent",
    "HelloFrame",
    "HistoryMessage",
    "Inflight",
    "MessageFrame",
    "PingFrame",
    "ProtocolError",
    "Rating",
    "ReadyEvent",
    "StartEvent",
    "StopFrame",
    "TextDeltaEvent",
    "ToolInputAvailableEvent",
    "ToolOutput",
    "ToolOutputAvailableEvent",
    "ToolOutputErrorEvent",
    "TurnEvent",
    "encode",
    "error_event",
    "frame_fast_check",
    "parse_client_frame",
    "protocol_schema",
    "validator_for",
]

MAX_FRAME_BYTES = 64 * 1024
MAX_TEXT_CHARS = 4000
# a client message id's length, as the schema's MessageFrame.id says; the store takes no longer
MAX_MESSAGE_ID_CHARS = 64

CLIENT_TYPES = ("hello", "message", "stop", "ping", "feedback")


# Events of a turn: each gets the session's next seq when published.
TurnEvent = (
    StartEvent
    | TextDeltaEvent
    | ToolInputAvailableEvent
    | ToolOutputAvailableEvent
    | ToolOutputErrorEvent
    | DataContextEvent
    | FinishEvent
    | ErrorEvent
)


class ProtocolError(Exception):
    """A client frame the server refuses; ``code`` goes into the ``error`` event."""

    def __init__(self, code: ErrorCode, message: str, message_id: str | None = None) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.message_id = message_id  # the refused message's client id, when it has one


@lru_cache(maxsize=1)
def protocol_schema() -> dict[str, Any]:
    text = (resources.files("partchat") / "schemas" / "protocol.schema.json").read_text("utf-8")
    return cast(dict[str, Any], json.loads(text))


@lru_cache(maxsize=8)
def validator_for(definition: str) -> Draft202012Validator:
    """A validator for ``$defs/<definition>`` (compiled once)."""
    schema = protocol_schema()
    uri = schema.get("$id", "urn:partchat:protocol")
    registry: Registry = Registry().with_resource(uri, Resource.from_contents(schema))
    return Draft202012Validator({"$ref": f"{uri}#/$defs/{definition}"}, registry=registry)


_DEFINITIONS = {
    "hello": "HelloFrame",
    "message": "MessageFrame",
    "stop": "StopFrame",
    "ping": "PingFrame",
    "feedback": "FeedbackFrame",
}


@lru_cache(maxsize=8)
def frame_fast_check(kind: str) -> Callable[[Any], bool] | None:
    """A plain-Python check that a frame of ``kind`` is certainly valid (None when its
    schema is beyond the subset ``compile_fast_check`` handles, e.g. ``hello``).

    Why: ``jsonschema`` ran ``ClientFrame``'s ``oneOf`` over all four frame schemas for
    every message. The frame's ``type`` was matched before this is used, and each frame
    schema pins its own ``type``, so a frame valid for its own schema is valid for the
    ``oneOf``. Anything this does not pass goes to ``jsonschema``, which decides and
    describes the error."""
    schema = dict(protocol_schema()["$defs"][_DEFINITIONS[kind]])
    schema["properties"] = {**schema.get("properties", {}), "type": {"type": "string"}}
    return compile_fast_check(schema)


def parse_client_frame(raw: str | bytes) -> ClientFrame:
    """Decode and validate one client frame, or raise ``ProtocolError``."""
    if isinstance(raw, bytes):
        raise ProtocolError("bad_frame", "Binary frames are not accepted; send JSON text.")
    if len(raw) > MAX_FRAME_BYTES:
        raise ProtocolError("bad_frame", "Frame too large (64 KiB at most).")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise ProtocolError("bad_frame", "Frames must be JSON objects.") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_frame", "Frames must be JSON objects.")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_frame", "A frame needs a string 'type'.")
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            "unknown_type", f"Unknown frame type; expected one of {', '.join(CLIENT_TYPES)}."
        )
    if (
        kind == "message"
        and isinstance(data.get("text"), str)
        and len(data["text"]) > MAX_TEXT_CHARS
    ):
        message_id = data.get("id")
        raise ProtocolError(
            "message_too_long",
            f"Messages are limited to {MAX_TEXT_CHARS} characters.",
            message_id
            if isinstance(message_id, str) and 0 < len(message_id) <= MAX_MESSAGE_ID_CHARS
            else None,
        )
    check = frame_fast_check(kind)
    if check is not None and check(data):
        errors = []  # certainly valid: no need for jsonschema
    else:
        errors = sorted(validator_for("ClientFrame").iter_errors(data), key=lambda e: e.path)
    if errors:
        best = _best_error(data, kind)
        raise ProtocolError("bad_frame", best)
    if kind == "message" and not data["text"].strip():
        raise ProtocolError("bad_frame", "A message needs some text.")
    return cast(ClientFrame, data)


def _best_error(data: dict[str, Any], kind: str) -> str:
    """A short, safe description: which field of which frame is wrong (no echo of input)."""
    definition = _DEFINITIONS[kind]
    errors = list(validator_for(definition).iter_errors(data))
    if not errors:
        return f"Invalid {kind} frame."
    err = min(errors, key=lambda e: len(e.path))
    field = "/".join(str(p) for p in err.absolute_path)
    if err.validator == "required":
        return f"Invalid {kind} frame: a required field is missing."
    if err.validator == "additionalProperties":
        return f"Invalid {kind} frame: unexpected fields."
    if err.validator == "maxLength" and field:
        return f"Invalid {kind} frame: field '{field}' is over {err.validator_value} characters."
    return (
        f"Invalid {kind} frame: field '{field}' has the wrong type or form."
        if field
        else f"Invalid {kind} frame."
    )


def encode(event: dict[str, Any] | TurnEvent | ReadyEvent | FeedbackSavedEvent) -> str:
    return orjson.dumps(event).decode()


def error_event(code: ErrorCode, message: str, turn_id: str | None = None) -> ErrorEvent:
    event = ErrorEvent(type="error", code=code, message=message)
    if turn_id:
        event["turnId"] = turn_id
    return event
