"""Validate server events against the wire protocol's JSON Schema (``$defs/ServerEvent``).

The schema is read from the file (not through ``partchat.protocol.frames``) so the tests check the
server against the contract, not against the server's own idea of it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

SCHEMA_PATH = (
    Path(__file__).resolve().parents[2]
    / "backend"
    / "partchat"
    / "schemas"
    / "protocol.schema.json"
)

# Events that are part of a session's stream: they must carry a seq.
SEQ_REQUIRED = frozenset(
    {
        "start",
        "text-delta",
        "tool-input-available",
        "tool-output-available",
        "tool-output-error",
        "data-context",
        "finish",
    }
)


class InvalidEvent(AssertionError):
    pass


@lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SCHEMA_PATH.read_text("utf-8"))
    return data


@lru_cache(maxsize=4)
def validator(definition: str = "ServerEvent") -> Draft202012Validator:
    schema = _schema()
    uri = schema["$id"]
    registry: Registry = Registry().with_resource(uri, Resource.from_contents(schema))
    return Draft202012Validator({"$ref": f"{uri}#/$defs/{definition}"}, registry=registry)


def validate_server_event(event: Any) -> dict[str, Any]:
    """Raise ``InvalidEvent`` unless ``event`` is a valid ``ServerEvent``; return it."""
    errors = list(validator("ServerEvent").iter_errors(event))
    if errors:
        details = "; ".join(
            f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message[:200]}"
            for e in errors[:5]
        )
        raise InvalidEvent(f"server event does not match $defs/ServerEvent: {details}\n{event!r}")
    if event["type"] in SEQ_REQUIRED and not isinstance(event.get("seq"), int):
        raise InvalidEvent(f"{event['type']} without a seq: {event!r}")
    return dict(event)


def check_seq_stream(events: list[dict[str, Any]], *, start_after: int | None = None) -> list[int]:
    """The seqs of the session-stream events, asserting no gap and no repeat."""
    seqs = [e["seq"] for e in events if e["type"] != "ready" and isinstance(e.get("seq"), int)]
    previous = start_after
    for seq in seqs:
        if previous is not None:
            assert seq == previous + 1, f"seq {seq} after {previous}: gap or repeat in {seqs}"
        previous = seq
    return seqs
