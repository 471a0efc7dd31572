"""Symptoms a message denies ("it's not leaking, it just won't drain"), and corrections."""

from __future__ import annotations

import pytest

from partchat.catalog.types import Symptom
from partchat.nlu.denials import denied_slugs
from partchat.nlu.dialogue import corrected_compartment, corrects

SYMPTOMS = [
    Symptom(id="dishwasher/leaking", appliance="dishwasher", label="Leaking",
            synonyms=["leaking", "leaks", "water on the floor", "puddle"]),
    Symptom(id="dishwasher/not-draining", appliance="dishwasher", label="Not draining",
            synonyms=["not draining", "won't drain", "water in the bottom"]),
    Symptom(id="dishwasher/noisy", appliance="dishwasher", label="Noisy",
            synonyms=["noisy", "loud", "grinding"]),
    Symptom(id="refrigerator/ice-maker-not-making-ice", appliance="refrigerator",
            label="Ice maker not making ice", synonyms=["no ice", "not making ice"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "denied"),
    [
        ("no wait, it's not leaking, it just won't drain", {"leaking"}),
        ("no leaks, it just clicks", {"leaking"}),
        ("isn't really noisy anymore but there's water in the bottom", {"noisy"}),
        ("no longer leaking, now it's loud", {"leaking"}),
        # a negation before another verb, or a phrase that is itself a negation
        ("it won't stop leaking", set()),
        ("it's not draining", set()),
        ("no ice at all", set()),
        # the symptom is stated elsewhere in the message
        ("not sure why but it's leaking", set()),
        ("it was not leaking yesterday, today there's a puddle", set()),
        ("dishwasher not draining and leaking", set()),
        ("leaking and loud", set()),
    ],
)
def test_denied_slugs(text: str, denied: set[str]) -> None:
    assert denied_slugs(text, SYMPTOMS) == denied


@pytest.mark.parametrize(
    ("text", "correction", "compartment"),
    [
        ("sorry I meant the freezer, the fridge side is fine", True, "freezer"),
        ("i mean fridge sorry", True, "fridge"),
        ("not the fridge, the freezer", True, "freezer"),
        ("no wait, it's not leaking, it just won't drain", True, None),
        ("oops typo, I meant 10640563010", True, None),
        ("oh no sorry, its draining fine, its the detergent cup that doesnt open", True, None),
        # adding to what was said is not a correction
        ("actually it's also leaking", False, None),
        ("sorry, the freezer is too warm too", False, None),
        ("sorry, it's the freezer thats too cold, fridge is normal", True, "freezer"),
        ("no, it leaks too", False, None),
        ("my fridge is too warm", False, None),
    ],
)
def test_corrections(text: str, correction: bool, compartment: str | None) -> None:
    assert corrects(text) is correction
    assert corrected_compartment(text) == compartment
