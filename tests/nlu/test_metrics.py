"""Understanding on the frozen test split (offline model): floors a change must keep.

The issue's targets (intent 97 %, symptom F1 0.93, numbers 99 %, dialogues 95 %, nothing
re-asked) are what ``bench/nlu.py`` reports against. Where a target is met this asserts
it (numbers; symptom F1, 0.931 on 2026-11-27); where it is not yet met, the floor sits a
few items under the level measured (intent 94.3 %, dialogues 20 of 27), so a change cannot lose
what was won, while training on new data may move a message or two. Each failure prints
what it got wrong: the text, the expected and the actual reading. Tuning happens on the
dev split only.
"""

from __future__ import annotations

import pytest
import pytest_asyncio

from partchat.catalog import Catalog
from partchat.nlu import corpus
from partchat.nlu.evaluate import Report, evaluate, format_misses
from partchat.nlu.model import Understanding
from tests.support.dialogues import DialogueResult, run_dialogue

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.timeout(300)]

INTENT_FLOOR = 0.925  # target 0.97 (210 of 227)
SYMPTOM_F1_FLOOR = 0.93  # the target
NUMBERS_FLOOR = 0.99  # the target
DIALOGUE_FLOOR = 0.70  # target 0.95 (19 of 27)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def report(catalog: Catalog, understanding: Understanding) -> Report:
    return await evaluate(corpus.messages("test"), catalog, understanding)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def dialogue_results(graph: object, labels: dict[str, str]) -> list[DialogueResult]:
    return [await run_dialogue(graph, d, labels) for d in corpus.dialogues("test")]


async def test_the_test_split_is_large_enough() -> None:
    singles = sum(len(corpus.messages(s)) for s in corpus.SPLITS)
    dialogues = sum(len(corpus.dialogues(s)) for s in corpus.SPLITS)
    assert singles >= 800
    assert dialogues >= 60
    assert len(corpus.messages("test")) >= 200
    assert len(corpus.dialogues("test")) >= 20


async def test_intent_accuracy(report: Report) -> None:
    assert report.intent_accuracy >= INTENT_FLOOR, format_misses(report.misses_of("intent"))


async def test_symptom_f1(report: Report) -> None:
    assert report.symptom_f1 >= SYMPTOM_F1_FLOOR, format_misses(report.misses_of("symptoms"))


async def test_part_and_model_numbers(report: Report) -> None:
    assert report.number_accuracy >= NUMBERS_FLOOR, format_misses(report.misses_of("numbers"))


async def test_dialogue_success(dialogue_results: list[DialogueResult]) -> None:
    failed = [r for r in dialogue_results if not r.ok]
    success = 1 - len(failed) / len(dialogue_results)
    assert success >= DIALOGUE_FLOOR, "\n".join(r.describe() for r in failed)


async def test_no_question_the_conversation_already_answered(
    dialogue_results: list[DialogueResult],
) -> None:
    reasked = [r.describe() for r in dialogue_results if r.reasked]
    assert not reasked, "\n".join(reasked)
