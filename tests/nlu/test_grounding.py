"""Grounding over the whole corpus: every part number and price in every answer, of every
dialogue and every single message of every split, comes from that turn's tool results."""

from __future__ import annotations

from typing import Any

import pytest

from partchat.nlu import corpus
from tests.support.agent_driver import Conversation, grounding_problems
from tests.support.dialogues import run_dialogue

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.timeout(600)]


# each split's dialogues in this many interleaved parts, each test well within its bound
PARTS = 2


@pytest.mark.parametrize("part", range(PARTS))
@pytest.mark.parametrize("split", corpus.SPLITS)
async def test_every_dialogue_answer_is_grounded(
    graph: Any, labels: dict[str, str], split: corpus.Split, part: int
) -> None:
    problems = []
    for d in corpus.dialogues(split)[part::PARTS]:
        result = await run_dialogue(graph, d, labels)
        problems += [f"{d['id']}: {p}" for p in result.ungrounded]
    assert problems == []


@pytest.mark.parametrize("split", corpus.SPLITS)
async def test_every_single_message_answer_is_grounded(graph: Any, split: corpus.Split) -> None:
    problems = []
    answered = 0
    for m in corpus.messages(split):
        turn = await Conversation(graph).say(m["text"])
        answered += bool(turn.text.strip())
        problems += [f"{m['id']} {m['text']!r}: {p}" for p in grounding_problems(turn)]
    assert problems == []
    assert answered == len(corpus.messages(split))
