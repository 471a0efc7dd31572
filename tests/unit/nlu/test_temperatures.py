"""The reader of temperatures by compartment, and how its states settle the symptoms."""

from __future__ import annotations

import pytest

from partchat.nlu.features import features
from partchat.nlu.temperatures import (
    BOTH_WARM,
    FREEZER_COLD,
    FREEZER_WARM,
    FRIDGE_COLD,
    FRIDGE_WARM,
    one_state_each,
    readings,
    settle,
    states,
    warm_said_instead,
    warmth_of_its_own,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fridge 50 degrees, freezer 35, help!!", {"fridge": "warm", "freezer": "warm"}),
        ("fridge 50 freezer 30 what gives", {"fridge": "warm", "freezer": "warm"}),
        ("fridge thermometer says 48F, freezer is fine at 0", {"fridge": "warm", "freezer": "ok"}),
        (
            "the freezer reads 34 degrees and the fridge reads 58",
            {"freezer": "warm", "fridge": "warm"},
        ),
        ("freezer at 25F, fridge part at 37 like normal", {"freezer": "warm", "fridge": "ok"}),
        ("my fridge is 9 degree celsius, freezer -18", {"fridge": "warm", "freezer": "ok"}),
        # No unit: a fridge at 4 can only be °C, so the freezer's -2 is °C too.
        (
            "freezer is showing minus 2 degree only, fridge is 4 degree",
            {"freezer": "warm", "fridge": "ok"},
        ),
        ("fridge at -1 C, the eggs cracked", {"fridge": "cold"}),
        ("fridge reads 29 degrees, the milk has slush in it", {"fridge": "cold"}),
        ("why would a freezer go down to -20 when its set to 0?", {"freezer": "cold"}),
        ("my freezer goes down to -30 celsius, i set it -18", {"freezer": "cold"}),
        ("refrigerator and freezer 15c and 0c, not cooling", {"fridge": "warm", "freezer": "warm"}),
        ("my GE refrigerator, the freezer reads 20", {"freezer": "warm"}),
        (
            "minus 3 in the freezer and 12 in the fridge (celsius)",
            {"freezer": "warm", "fridge": "warm"},
        ),
        # Spelled out, and read where the fridge keeps its food.
        ("fridge sitting at fifty-one, freezer at zero", {"fridge": "warm", "freezer": "ok"}),
        ("freezer went up to minus five degrees celsius", {"freezer": "warm"}),
        ("the crisper drawer thermometer shows 47", {"fridge": "warm"}),
        # a bound far past the number: "way below zero" is no freezer at zero
        ("freezer goes way below zero wherever i set the knob", {"freezer": "cold"}),
        ("fridge is well over 40 most days", {"fridge": "warm"}),
        ("the freezer wont go below 20", {"freezer": "warm"}),
        ("top shelf reads 30 degrees, lettuce froze", {"fridge": "cold"}),
        ("freezer shelf reads 22", {"freezer": "warm"}),
        # a reading after clauses of both: the nearest one that names a compartment
        (
            "freezer side's great but the deli meat in the fridge goes slimy and my "
            "thermometer reads 50",
            {"fridge": "warm"},
        ),
    ],
)
def test_states_by_compartment(text: str, expected: dict[str, str]) -> None:
    assert states(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "fridge never shuts off, runs 24/7",  # not a temperature
        "whirlpool fridge too cold even on setting 1",  # a setting
        "milk spoils in 2 days, fridge like 4 yrs old",  # a duration and an age
        "freezer runs about 15 degrees colder than it should",  # a difference
        "its a 7WF736SDAM13 freezer",  # a model number
        "freezer door: is the gasket the right one? need it in two days",  # words, no reading
        "dishwasher is 50 degrees",  # no compartment
        "freezer used to be 0",  # what it was
    ],
)
def test_numbers_that_are_not_readings(text: str) -> None:
    assert states(text) == {}


def test_a_reading_in_celsius_is_converted() -> None:
    (r,) = readings("fridge at 10 C")
    assert r.compartment == "fridge" and r.fahrenheit == pytest.approx(50.0)


@pytest.mark.parametrize(
    ("slugs", "measured", "expected"),
    [
        # Both measured warm: one symptom, whatever the classifier thought.
        ([FRIDGE_WARM], {"fridge": "warm", "freezer": "warm"}, [BOTH_WARM]),
        # The classifier put the warmth in the freezer, the reading in the fridge.
        ([FREEZER_WARM], {"fridge": "warm"}, [FRIDGE_WARM]),
        # A measured compartment that is fine has no symptom.
        ([FREEZER_WARM, FRIDGE_WARM], {"fridge": "ok"}, [FREEZER_WARM]),
        # The unmeasured compartment keeps the classifier's words ("and the freezer too").
        ([BOTH_WARM], {"fridge": "warm"}, [BOTH_WARM]),
        # A reading adds its symptom beside another problem, which stays.
        (["clicking-sound"], {"fridge": "warm"}, ["clicking-sound", FRIDGE_WARM]),
        ([FREEZER_WARM], {"fridge": "cold", "freezer": "warm"}, [FRIDGE_COLD, FREEZER_WARM]),
        ([FRIDGE_COLD], {"freezer": "cold"}, [FRIDGE_COLD, FREEZER_COLD]),
        (["noisy"], {}, ["noisy"]),
    ],
)
def test_settle(slugs: list[str], measured: dict, expected: list[str]) -> None:
    assert settle(slugs, measured) == expected


def test_states_are_features() -> None:
    f = features("fridge 50 degrees, freezer 35")
    assert f["t:fridge-warm"] == f["t:freezer-warm"] == f["t:both-warm"] == 1
    assert not any(k.startswith("t:") for k in features("fridge warm, freezer fine"))


@pytest.mark.parametrize(
    ("slugs", "odds", "agreed"),
    [
        # both warm says each compartment's "too warm" already
        (["fridge-and-freezer-are-too-warm", "freezer-section-too-warm", "noisy"], {},
         ["fridge-and-freezer-are-too-warm", "noisy"]),
        # one compartment in two states: the likelier stays
        (["freezer-too-cold", "fridge-and-freezer-are-too-warm", "fridge-too-cold"],
         {"freezer-too-cold": 0.5, "fridge-too-cold": 0.3, "fridge-and-freezer-are-too-warm": 0.2},
         ["freezer-too-cold", "fridge-too-cold"]),
        (["fridge-too-warm", "fridge-too-cold"], {"fridge-too-warm": 0.2, "fridge-too-cold": 0.7},
         ["fridge-too-cold"]),
        # two compartments in states of their own
        (["freezer-section-too-warm", "fridge-too-cold"], {},
         ["freezer-section-too-warm", "fridge-too-cold"]),
    ],
)  # fmt: skip
def test_the_temperature_symptoms_agree(
    slugs: list[str], odds: dict[str, float], agreed: list[str]
) -> None:
    assert one_state_each(slugs, odds) == agreed


@pytest.mark.parametrize(
    ("slugs", "text", "expected"),
    [
        # "warm" said of the freezer alone: the fridge's *too warm* is the freezer's
        ([FRIDGE_WARM, FREEZER_WARM], "GE fridge, the freezer section is warm but the top part is cold",
         (FRIDGE_WARM, FREEZER_WARM)),
        ([FRIDGE_WARM], "whirlpool freezer is warm inside, I can't even feel cold on the back wall",
         (FRIDGE_WARM, FREEZER_WARM)),
        ([FREEZER_WARM], "the fridge is warm, freezer seems ok", (FREEZER_WARM, FRIDGE_WARM)),
        # the other compartment complains of warmth in its own words: both stay
        ([FRIDGE_WARM, FREEZER_WARM], "freezer is warm and the fridge is not cooling", None),
        # "warm" with both or neither named decides nothing
        ([FRIDGE_WARM], "fridge and freezer warm", None),
        ([FRIDGE_WARM], "it feels warm inside", None),
        ([FREEZER_WARM], "the freezer is warm", None),
    ],
)  # fmt: skip
def test_a_compartment_said_warm_is_the_one_too_warm(
    slugs: list[str], text: str, expected: tuple[str, str] | None
) -> None:
    assert warm_said_instead(slugs, text) == expected


def test_a_clause_that_names_a_compartment_and_its_warmth() -> None:
    assert warmth_of_its_own(FREEZER_WARM, "and the freezer side feels kinda warm")
    assert warmth_of_its_own(FRIDGE_WARM, "the fridge side keeps creeping up warmer")
    assert warmth_of_its_own(FRIDGE_WARM, "fridge section isn't cooling anymore")
    assert not warmth_of_its_own(FREEZER_WARM, "the fridge side feels kinda warm")
    assert not warmth_of_its_own(FREEZER_WARM, "the freezer isn't warm")
    assert not warmth_of_its_own(FREEZER_WARM, "it feels kinda warm")  # no compartment
    assert not warmth_of_its_own(BOTH_WARM, "fridge and freezer both warm")
