"""A tool call's stored record: unknown numbers read from each tool's result shape, the
result capped, the round and duration the tools node gave."""

from __future__ import annotations

import orjson
from langchain_core.messages import ToolMessage

from partchat.toolbox.records import (
    ARGUMENTS_KEY,
    DURATION_KEY,
    MAX_STORED_RESULT_BYTES,
    tool_records_of,
    unknown_numbers,
)


def test_unknown_numbers_from_each_result_shape() -> None:
    unknown_part = {"ok": False, "error": {"code": "unknown_part", "message": "no"}}
    assert unknown_numbers({"partNumber": "PS1"}, unknown_part) == (["PS1"], [])
    timeout = {"ok": False, "error": {"code": "timeout", "message": "slow"}}
    assert unknown_numbers({"partNumber": "PS1"}, timeout) == ([], [])
    compat_model = {"ok": True, "status": "unknown_model", "model": "XYZ"}
    assert unknown_numbers({"partNumber": "PS1", "model": "xyz"}, compat_model) == ([], ["XYZ"])
    compat_part = {"ok": True, "status": "unknown_part", "model": "WDT1"}
    assert unknown_numbers({"partNumber": "PS2", "model": "WDT1"}, compat_part) == (["PS2"], [])
    fits = {"ok": True, "status": "fits", "model": "WDT1"}
    assert unknown_numbers({"partNumber": "PS2", "model": "WDT1"}, fits) == ([], [])
    extracted = {
        "ok": True,
        "unknownPartNumbers": ["PS9", "PS9"],
        "models": [{"model": "ABC", "known": False}, {"model": "WDT1", "known": True}],
    }
    assert unknown_numbers({"text": "…"}, extracted) == (["PS9"], ["ABC"])
    diagnosis = {"ok": True, "modelInfo": {"model": "QQQ", "known": False}}
    assert unknown_numbers({"symptoms": ["x"]}, diagnosis) == ([], ["QQQ"])


def message(result: dict[str, object], call_id: str = "c1") -> ToolMessage:
    return ToolMessage(
        content=orjson.dumps(result).decode(),
        tool_call_id=call_id,
        name="get_part_details",
        artifact=result,
        response_metadata={DURATION_KEY: 2.5, ARGUMENTS_KEY: {"partNumber": "PS1"}},
    )


def test_records_of_the_tools_update() -> None:
    failed = {"ok": False, "error": {"code": "unknown_part", "message": "no", "errors": []}}
    big = {"ok": True, "blob": "x" * MAX_STORED_RESULT_BYTES}
    records = tool_records_of({"messages": [message(failed), message(big, "c2")], "tool_rounds": 2})
    first, second = records
    assert first == {
        "toolCallId": "c1",
        "round": 2,
        "name": "get_part_details",
        "arguments": {"partNumber": "PS1"},
        "ok": False,
        "errorCode": "unknown_part",
        "durationMs": 2.5,
        "resultBytes": len(orjson.dumps(failed)),
        "result": failed,
        "unknownParts": ["PS1"],
        "unknownModels": [],
    }
    assert second["ok"] and second["errorCode"] is None
    assert second["result"] is None  # over the cap: dropped, its size kept
    assert second["resultBytes"] == len(orjson.dumps(big)) > MAX_STORED_RESULT_BYTES
    assert tool_records_of(None) == [] and tool_records_of({"messages": []}) == []
