"""The chat's empty-state suggestions (and the demo store page's questions), each in a
fresh session through the offline agent.

A suggestion must carry everything its job needs (the part number, the model): picked as
the very first message it gets a looked-up answer, never a clarifying question back. The
list is the one the frontend shows (``frontend/src/chat/suggestions.json``).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from partchat.agent import offline_writer as w
from partchat.agent.graph import build_graph
from partchat.agent.offline import OfflineChatModel
from partchat.catalog import Catalog
from partchat.nlu.model import Understanding
from partchat.toolbox.dispatch import Toolbox
from tests.support import demo_page
from tests.support.agent_driver import Conversation, grounding_problems

pytestmark = [pytest.mark.timeout(60)]

SUGGESTIONS_FILE = Path(__file__).parents[3] / "frontend" / "src" / "chat" / "suggestions.json"
SUGGESTIONS: list[str] = json.loads(SUGGESTIONS_FILE.read_text(encoding="utf-8"))
# The demo store page's questions ("Ask about this part", the fit box) hold to the same rule.
CANNED = [*SUGGESTIONS, *demo_page.questions()]

PART_OR_MODEL = re.compile(r"(?=.*\d)[A-Z0-9]{6,}")

# The offline model's clarifying questions, as it writes them (offline_writer): the stable
# opening of each, so a wording change there is followed here.
CLARIFYING = [
    w.ask_model("PURPOSE").split("PURPOSE")[0],
    w.ask_part("PURPOSE").split("PURPOSE")[0],
    w.ASK_WHICH,
    w.noted_model("MODEL").split("MODEL")[1][:40],
    w.ask_need("APPLIANCE").split("APPLIANCE")[1][:40],
    w.ask_appliance()[:40],
    w.ask_symptom(None).split("appliance")[1][:30],
    w.unknown_model("MODEL", []).split("MODEL")[0],
]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def graph(catalog_db: Path, understanding: Understanding) -> AsyncIterator[Any]:
    catalog = await Catalog.open(catalog_db)
    yield build_graph(OfflineChatModel(), Toolbox.load(catalog), catalog, understanding)
    await catalog.close()


def test_there_are_three_distinct_suggestions() -> None:
    assert len(SUGGESTIONS) == 3
    assert len(set(SUGGESTIONS)) == 3
    assert all(isinstance(s, str) and 10 <= len(s) <= 120 for s in SUGGESTIONS)


def test_the_clarifying_markers_are_real_sentences() -> None:
    assert all(len(marker.strip()) >= 12 for marker in CLARIFYING), CLARIFYING


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("suggestion", CANNED)
async def test_a_suggestion_in_a_new_session_is_answered_without_a_question_back(
    graph: Any, suggestion: str
) -> None:
    turn = await Conversation(graph).say(suggestion)
    assert turn.finish_reason == "stop"
    assert turn.tool_names, f"{suggestion!r}: no tool was called, so nothing was looked up"
    assert not turn.tool_errors, turn.tool_errors
    asked = [marker for marker in CLARIFYING if marker in turn.text]
    assert not asked, f"{suggestion!r} got a clarifying question back: {turn.text}"
    assert turn.outputs, "no tool output to ground the answer on"
    # The answer is about what the suggestion names: its part and model numbers.
    named = [token for token in suggestion.rstrip("?.").split() if PART_OR_MODEL.fullmatch(token)]
    assert named, f"{suggestion!r} names no part or model number"
    for token in named:
        assert token in turn.text, f"{suggestion!r}: the answer does not mention {token}"
    assert grounding_problems(turn) == []
