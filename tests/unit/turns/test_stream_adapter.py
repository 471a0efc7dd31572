"""``stream_adapter`` on a recorded ``graph.astream`` sequence (updates mode)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from partchat.turns.stream_adapter import (
    adapt,
    context_of_update,
    ends_the_graph,
    finish_reason_of,
)

ok_result = {"ok": True, "parts": [{"partNumber": "PS11752778"}]}
bad_result = {
    "ok": False,
    "error": {
        "code": "invalid_input",
        "message": "partNumber must look like PS followed by digits",
        "errors": [{"path": "/partNumber", "message": "does not match"}],
    },
}

RECORDED: list[tuple[str, Any]] = [
    (
        "updates",
        {
            "extract": {
                "product_model": "WRS325SDHZ",
                "part_number": "PS11752778",
                "symptoms": ["ice_maker_not_making_ice"],
                "appliance_type": "refrigerator",
            }
        },
    ),
    (
        "updates",
        {
            "llm": {
                "messages": [
                    AIMessage(
                        content="",
                        tool_calls=[
                            {
                                "id": "c1",
                                "name": "get_part_details",
                                "args": {"partNumber": "PS11752778"},
                            },
                            {
                                "id": "c2",
                                "name": "check_compatibility",
                                "args": {"partNumber": "x"},
                            },
                        ],
                    )
                ]
            }
        },
    ),
    (
        "updates",
        {
            "tools": {
                "messages": [
                    ToolMessage(
                        content="{}", tool_call_id="c1", name="get_part_details", artifact=ok_result
                    ),
                    ToolMessage(
                        content="{}",
                        tool_call_id="c2",
                        name="check_compatibility",
                        artifact=bad_result,
                    ),
                ],
                "tool_rounds": 1,
            }
        },
    ),
    # the llm node's answer text reached the socket through its text sink, not here
    ("updates", {"llm": {"messages": [AIMessage(content="It fits.")]}}),
]


def test_recorded_sequence_becomes_protocol_events() -> None:
    events = [e for mode, chunk in RECORDED for e in adapt(mode, chunk, "t_1")]
    assert [e["type"] for e in events] == [
        "tool-input-available",
        "tool-input-available",
        "tool-output-available",
        "tool-output-error",
    ]
    assert all(e["turnId"] == "t_1" for e in events)
    assert (events[0]["toolCallId"], events[0]["toolName"], events[0]["input"]) == (
        "c1",
        "get_part_details",
        {"partNumber": "PS11752778"},
    )
    assert events[2]["output"] == ok_result
    assert events[3]["errorText"] == "partNumber must look like PS followed by digits"
    assert events[3]["errors"] == [{"path": "/partNumber", "message": "does not match"}]


def test_adapt_is_pure() -> None:
    first = [adapt(mode, chunk, "t") for mode, chunk in RECORDED]
    again = [adapt(mode, chunk, "t") for mode, chunk in RECORDED]
    assert first == again


def test_tool_result_without_artifact_is_read_from_content() -> None:
    message = ToolMessage(
        content='{"ok": true, "fits": false}', tool_call_id="c", name="check_compatibility"
    )
    (event,) = adapt("updates", {"tools": {"messages": [message]}}, "t")
    assert event["type"] == "tool-output-available" and event["output"] == {
        "ok": True,
        "fits": False,
    }
    broken = ToolMessage(content="not json", tool_call_id="c", name="search_parts")
    (event,) = adapt("updates", {"tools": {"messages": [broken]}}, "t")
    assert event["type"] == "tool-output-error"


def test_apology_node_text_is_streamed_and_finish_reason_read() -> None:
    chunk = {
        "give_up": {
            "messages": [AIMessage(content="Sorry, the catalog failed.")],
            "finish_reason": "error",
        }
    }
    (event,) = adapt("updates", chunk, "t")
    assert event == {"type": "text-delta", "turnId": "t", "delta": "Sorry, the catalog failed."}
    assert finish_reason_of("updates", chunk) == "error"
    assert finish_reason_of("updates", RECORDED[1][1]) is None


def test_context_only_from_extract_updates() -> None:
    # The engine compares it with the session's and sends data-context only on a change.
    assert adapt(*RECORDED[0], "t") == []
    assert context_of_update(*RECORDED[0]) == {
        "productModel": "WRS325SDHZ",
        "partNumber": "PS11752778",
        "symptoms": ["ice_maker_not_making_ice"],
        "applianceType": "refrigerator",
    }
    assert context_of_update(*RECORDED[1]) is None


def test_only_the_answer_ends_the_graph() -> None:
    # extract, llm with tool calls, tools: a node follows; the llm's answer: none does.
    assert [ends_the_graph(mode, chunk) for mode, chunk in RECORDED] == [False, False, False, True]
    apology = {"give_up": {"messages": [AIMessage(content="Sorry.")], "finish_reason": "error"}}
    assert ends_the_graph("updates", apology)
    bad_call = AIMessage(
        content="", invalid_tool_calls=[{"id": "c", "name": "x", "args": "{", "error": None}]
    )
    assert not ends_the_graph("updates", {"llm": {"messages": [bad_call]}})
    assert not ends_the_graph("updates", {"llm": {"finish_reason": "length"}})
    assert not ends_the_graph("values", RECORDED[3][1])
