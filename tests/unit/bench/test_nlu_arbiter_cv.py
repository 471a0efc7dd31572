"""``bench/nlu_arbiter_cv.py``: what the answer before a turn was, and a stacked arbiter
that learns, from other batches, where the rules' tool is wrong."""

from __future__ import annotations

from typing import Any

from bench import nlu_arbiter_cv as arb

DETAILS = "**Drain Pump** (PS11753379) · $59.95 · In Stock\n- Manufacturer part number: W1"
LIST = "For *Leaking* on your WDT780SAEM1, these parts:\n1. **Drain Pump** (PS11753379) · $59.95"


def test_the_answer_before_a_turn_is_read_for_what_it_was() -> None:
    assert arb.context_of("") == ["first"]
    assert arb.context_of(LIST) == ["list", "diagnosis"]
    assert arb.context_of(DETAILS + "\n\nWant the installation steps?") == [
        "details",
        "offers_steps",
    ]
    assert arb.context_of("Hmm.") == ["other"]


def _row(batch: int, n: int, user: str, previous: str, expected: str, rules: str) -> Any:
    return {"dialogue": f"dv-b{batch}-{n:04d}", "turn": 1, "user": user, "previous": previous,
            "expected": expected, "rules": rules, "wrong": expected != rules}  # fmt: skip


def test_the_arbiter_learns_from_other_batches_where_the_rules_err() -> None:
    rows = []
    for b in range(5):
        for n in range(12):
            # the rules show the details again where the steps are asked after them
            rows.append(_row(b, n, "ok how do i put it in", DETAILS, "get_installation_instructions",
                             "get_part_details" if n % 3 == 0 else "get_installation_instructions"))  # fmt: skip
            rows.append(_row(b, 100 + n, "the second one", LIST, "get_part_details",
                             "get_part_details"))  # fmt: skip
    figures = arb.cross_validate(rows, c=10.0)
    assert figures["turns"] == 120 and figures["dialogues"] == 120
    assert figures["rules_tool_accuracy"] < figures["arbiter_tool_accuracy"] == 1.0
    loose = figures["by_threshold"]["0.5"]
    assert loose["turns_put_right"] == loose["dialogues_put_right_at_most"] == 20
    assert loose["turns_broken"] == 0
