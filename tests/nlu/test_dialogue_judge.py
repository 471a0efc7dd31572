"""The dialogue judge's "final answer does the job": an empty look-up said honestly counts."""

from __future__ import annotations

from typing import Any

from partchat.agent.offline_writer import write_diagnosis, write_search
from tests.support.agent_driver import Turn
from tests.support.dialogues import _resolve, does_the_job


def _turn(tool: str, result: dict[str, Any], text: str) -> Turn:
    events: list[dict[str, Any]] = [
        {"type": "tool-input-available", "toolName": tool, "input": {}},
        {"type": "tool-output-available", "toolName": tool, "output": result},
        {"type": "text-delta", "delta": text},
    ]
    return Turn(user="", events=events)


def _diagnosis(candidates: list[dict[str, Any]], model: str | None) -> dict[str, Any]:
    return {
        "ok": True,
        "appliance": "dishwasher",
        "model": model,
        "symptoms": ["Will not fill with water"],
        "candidates": candidates,
        "guides": [{"partTypes": ["Water Inlet Valve"], "videoUrl": None}],
    }


def test_every_empty_result_the_writer_can_write_does_the_job() -> None:
    for model in ("14693", None):
        result = _diagnosis([], model)
        turn = _turn("diagnose_repair", result, write_diagnosis(result))
        assert does_the_job("diagnose_repair", turn), turn.text
    result = {"ok": True, "query": "gizmo", "model": "14693", "parts": []}
    assert does_the_job("search_parts", _turn("search_parts", result, write_search(result)))


def test_saying_none_when_the_tool_found_some_does_not() -> None:
    card = {"part": {"partNumber": "PS1", "name": "Valve"}, "reason": "listed"}
    result = _diagnosis([card], "14693")
    text = "I recognise *Will not fill with water* on your dishwasher, but I found no listed parts."
    assert not does_the_job("diagnose_repair", _turn("diagnose_repair", result, text))


def test_a_question_instead_of_parts_does_not() -> None:
    result = _diagnosis([], "14693")
    text = "What exactly is your dishwasher doing?"
    assert not does_the_job("diagnose_repair", _turn("diagnose_repair", result, text))


def test_a_pick_by_name_is_the_part_whose_name_has_the_word() -> None:
    listed = (
        "1. **Water Inlet Valve** (PS11738056) · $60.23: the most common cause of "
        "*Ice maker not making ice*\n"
        "2. **ICE MAKER ASSY-LP** (PS17215831) · $108.59: listed as fixing it\n"
    )
    assert _resolve("@name:ice maker", listed) == "PS17215831"
    assert _resolve("@name:valve", listed) == "PS11738056"
    # a word no name has: the first line that has it
    assert _resolve("@name:most common", listed) == "PS11738056"


def test_a_pick_by_name_after_one_parts_details_looks_in_the_list_before() -> None:
    listed = (
        "1. **Condenser Fan Motor** (PS11739140) · $79.20\n"
        "2. **Refrigerator Fan Grommet** (PS11739011) · $9.95"
    )
    details = "**Refrigerator Fan Grommet** (PS11739011) · $9.95 · In Stock"
    assert _resolve("@name:condenser", details, listed) == "PS11739140"
    assert _resolve("@name:grommet", details, listed) == "PS11739011"  # the details' own
    # a place stays the previous answer's
    assert _resolve("@1", details, listed) == "PS11739011"
