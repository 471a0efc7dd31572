"""The reading with the trained model and the real catalog: where the catalog's symptom
phrases count and where they do not."""

from __future__ import annotations

import pytest

from partchat.catalog import Catalog
from partchat.nlu.model import Understanding
from partchat.nlu.reading import read

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.mark.parametrize(
    ("text", "symptom", "not_symptom"),
    [
        # "dead" is a phrase of *Will not start*; here it describes another part
        ("the ice dispenser on my fridge is dead", "refrigerator/ice-maker-won-t-dispense-ice",
         "refrigerator/will-not-start"),
        ("touch screen on the fridge is dead", "refrigerator/touchpad-does-not-respond",
         "refrigerator/will-not-start"),
        # a hum is how the shopper knows it tries, not a noise complaint
        ("hear a hum but the dishwasher never fills", "dishwasher/will-not-fill-with-water",
         "dishwasher/noisy"),
    ],
)  # fmt: skip
async def test_catalog_phrases_count_where_the_classifier_finds_them_plausible(
    catalog: Catalog, understanding: Understanding, text: str, symptom: str, not_symptom: str
) -> None:
    reading = await read(text, catalog, understanding)
    assert symptom in reading.symptom_ids
    assert not_symptom not in reading.symptom_ids


async def test_a_message_about_something_else_has_no_symptoms(
    catalog: Catalog, understanding: Understanding
) -> None:
    reading = await read("my microwave clicks and won't start", catalog, understanding)
    assert reading.intent == "out_of_scope"
    assert reading.symptom_ids == []
    assert reading.found["symptoms"] == []


@pytest.mark.parametrize(
    ("text", "symptoms"),
    [
        ("my dishwasher is leaking, and it got really loud too",
         {"dishwasher/leaking", "dishwasher/noisy"}),
        ("fridge light is out and the ice maker stopped making ice",
         {"refrigerator/light-not-working", "refrigerator/ice-maker-not-making-ice"}),
        ("the dishwasher won't drain", {"dishwasher/not-draining"}),
    ],
)  # fmt: skip
async def test_each_clause_can_state_a_symptom_of_its_own(
    catalog: Catalog, understanding: Understanding, text: str, symptoms: set[str]
) -> None:
    assert set((await read(text, catalog, understanding)).symptom_ids) == symptoms
