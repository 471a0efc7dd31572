"""The understanding targets on the frozen test split (offline model).

Each failure prints the messages it got wrong: the text, the expected and the actual
reading. The floors are the issue's targets; tuning happens on the dev split only.
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
    assert report.intent_accuracy >= 0.97, format_misses(report.misses_of("intent"))


async def test_symptom_f1(report: Report) -> None:
    assert report.symptom_f1 >= 0.93, format_misses(report.misses_of("symptoms"))


async def test_part_and_model_numbers(report: Report) -> None:
    assert report.number_accuracy >= 0.99, format_misses(report.misses_of("numbers"))


async def test_dialogue_success(dialogue_results: list[DialogueResult]) -> None:
    failed = [r for r in dialogue_results if not r.ok]
    success = 1 - len(failed) / len(dialogue_results)
    assert success >= 0.95, "\n".join(r.describe() for r in failed)


async def test_no_question_the_conversation_already_answered(
    dialogue_results: list[DialogueResult],
) -> None:
    reasked = [r.describe() for r in dialogue_results if r.reasked]
    assert not reasked, "\n".join(reasked)
