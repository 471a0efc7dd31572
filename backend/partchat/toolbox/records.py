"""A turn's tool calls as the store keeps them (``ToolCallRecord``), from the ``tools``
node's update: which round, what arguments, how it went, how long it took, what it said.

The ``tools`` node (``agent.graph``) times each call and puts the duration and the
arguments it validated into the ``ToolMessage``'s ``response_metadata``; the tool's result
is the message's ``artifact``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from langchain_core.messages import ToolMessage

from partchat.store import ToolCallRecord

MAX_STORED_RESULT_BYTES = 64 * 1024  # a larger result is stored as null (its size is kept)
DURATION_KEY = "partchatDurationMs"
ARGUMENTS_KEY = "partchatArguments"


def unknown_numbers(
    arguments: Mapping[str, Any], result: Mapping[str, Any]
) -> tuple[list[str], list[str]]:
    """(part numbers, model numbers) the result says the catalog does not have.

    ``unknown_part`` errors (details, installation), ``check_compatibility``'s
    ``unknown_part`` / ``unknown_model`` status, ``extract_information``'s
    ``unknownPartNumbers`` and unknown ``models``, and a ``modelInfo`` marked not known
    (search, diagnosis)."""
    parts: list[str] = []
    models: list[str] = []

    def add(values: list[str], value: object) -> None:
        if isinstance(value, str) and value and value not in values:
            values.append(value)

    if not result.get("ok"):
        error = result.get("error")
        if isinstance(error, Mapping) and error.get("code") == "unknown_part":
            add(parts, arguments.get("partNumber"))
        return parts, models
    status = result.get("status")
    if status == "unknown_part":
        add(parts, arguments.get("partNumber"))
    elif status == "unknown_model":
        add(models, result.get("model") or arguments.get("model"))
    for number in result.get("unknownPartNumbers") or []:
        add(parts, number)
    for ref in [*(result.get("models") or []), result.get("modelInfo")]:
        if isinstance(ref, Mapping) and ref.get("known") is False:
            add(models, ref.get("model"))
    return parts, models


def tool_call_record(message: ToolMessage, round_: int) -> ToolCallRecord:
    result = message.artifact if isinstance(message.artifact, dict) else None
    if result is None:
        try:
            loaded = orjson.loads(message.text)
        except orjson.JSONDecodeError:
            loaded = None
        result = loaded if isinstance(loaded, dict) else {"ok": False}
    meta = message.response_metadata or {}
    raw_args = meta.get(ARGUMENTS_KEY)
    arguments = dict(raw_args) if isinstance(raw_args, Mapping) else {"raw": raw_args}
    ok = bool(result.get("ok"))
    error = result.get("error")
    code = error.get("code") if isinstance(error, Mapping) else None
    encoded = orjson.dumps(result, option=orjson.OPT_NON_STR_KEYS)
    parts, models = unknown_numbers(arguments, result)
    return ToolCallRecord(
        toolCallId=message.tool_call_id,
        round=round_,
        name=message.name or "",
        arguments=arguments,
        ok=ok,
        errorCode=None if ok else str(code or "internal"),
        durationMs=float(meta.get(DURATION_KEY) or 0.0),
        resultBytes=len(encoded),
        result=result if len(encoded) <= MAX_STORED_RESULT_BYTES else None,
        unknownParts=parts,
        unknownModels=models,
    )


def tool_records_of(update: Any) -> list[ToolCallRecord]:
    """The records of the ``tools`` node's update (empty for anything else)."""
    if not isinstance(update, Mapping):
        return []
    round_ = int(update.get("tool_rounds") or 0)
    return [
        tool_call_record(m, round_)
        for m in update.get("messages") or []
        if isinstance(m, ToolMessage)
    ]
