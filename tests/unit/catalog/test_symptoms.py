from __future__ import annotations

import pytest

from partchat.catalog import Catalog
from partchat.catalog.build_rows import _symptom_appliances


@pytest.mark.parametrize(
    "text", ["no ice", "ice maker stopped working", "not producing ice", "Ice maker not making ice"]
)
async def test_ice_synonyms(catalog: Catalog, text: str) -> None:
    found = await catalog.match_symptoms(text, "refrigerator")
    assert [s["label"] for s in found] == ["Ice maker not making ice"]


async def test_vocabulary_per_appliance(catalog: Catalog) -> None:
    for app in ("refrigerator", "dishwasher"):
        vocab = await catalog.symptoms(app)  # type: ignore[arg-type]
        assert len(vocab) >= 15
        for s in vocab:
            assert s["id"].startswith(app + "/")
            assert s["synonyms"] and all(x == x.lower() for x in s["synonyms"])
            assert "’" not in s["label"]


async def test_match_in_free_text_detects_appliance(catalog: Catalog) -> None:
    found = await catalog.match_symptoms(
        "My Whirlpool dishwasher won't drain and there's standing water; it's also noisy"
    )
    labels = [s["label"] for s in found]
    assert labels[:2] == ["Not draining", "Noisy"] or set(labels) >= {"Not draining", "Noisy"}
    assert all(s["appliance"] == "dishwasher" for s in found)
    assert await catalog.match_symptoms("hello there") == []


async def test_longer_phrase_wins(catalog: Catalog) -> None:
    found = await catalog.match_symptoms("the freezer not cold at all", "refrigerator")
    assert [s["label"] for s in found] == ["Freezer section too warm"]


async def test_diagnose_not_draining_ranks_drain_pump(catalog: Catalog) -> None:
    d = await catalog.diagnose("dishwasher", ["not draining"], model="WDT780SAEM1")
    assert d["symptoms"] == ["Not draining"]
    top3 = [c["part"]["ps_number"] for c in d["candidates"][:3]]
    assert "PS11753379" in top3
    assert d["guides"] and d["guides"][0]["symptom"] == "Not draining"
    assert all(c["fits"] == "fits" for c in d["candidates"])
    first = d["candidates"][0]
    assert "*Not draining*" in first["reason"]


async def test_diagnose_without_model_uses_guide_order(catalog: Catalog) -> None:
    d = await catalog.diagnose(None, ["no ice"])
    assert d["appliance"] == "refrigerator"
    assert d["symptoms"] == ["Ice maker not making ice"]
    assert d["candidates"]
    assert d["candidates"][0]["reason"].startswith("the most common cause of")
    types = {c["part_type"] for c in d["candidates"]}
    assert types & {"Water Inlet Valve", "Ice Maker Assembly", "Ice Maker Fill Tube"}


@pytest.mark.parametrize(
    "symptom", ["Clicking sound", "Leaking", "Door won't close", "Not heating"]
)
async def test_a_part_named_for_the_other_appliance_fixes_none_of_its_symptoms(
    catalog: Catalog, symptom: str
) -> None:
    # "Refrigerator Screw", "Refrigerator Water Filter": listed for dishwashers too, but no
    # fix for a dishwasher's problem
    d = await catalog.diagnose("dishwasher", [symptom], limit=50)
    names = [c["part"]["name"] for c in d["candidates"]]
    assert not [n for n in names if "refrigerator" in n.lower()], names


def test_a_part_links_its_named_appliance_symptoms() -> None:
    both = '["dishwasher","refrigerator"]'
    assert _symptom_appliances("Refrigerator Screw", both) == '["refrigerator"]'
    assert _symptom_appliances("Dishwasher Screw 8-18 X 5/8", both) == '["dishwasher"]'
    assert _symptom_appliances("Screw", both) == both  # names none: both
    # a name for the other appliance than the only one listed changes nothing
    assert _symptom_appliances("Refrigerator Screw", '["dishwasher"]') == '["dishwasher"]'


async def test_diagnose_reports_unrecognised(catalog: Catalog) -> None:
    d = await catalog.diagnose("dishwasher", ["Not draining", "purple unicorn glitter"])
    assert d["symptoms"] == ["Not draining"]
    assert d["unrecognised"] == ["purple unicorn glitter"]
    d2 = await catalog.diagnose("dishwasher", ["dishwasher/not-draining"], model="NOPE123")
    assert d2["candidates"] and all(c["fits"] == "unknown_model" for c in d2["candidates"])


async def test_every_phrase_is_found_wherever_it_stands(catalog: Catalog) -> None:
    """The index searches a text only for phrases whose first word it has: each catalog
    phrasing is still found at the start, the middle and the end of a sentence."""
    for app in ("refrigerator", "dishwasher"):
        for s in await catalog.symptoms(app):  # type: ignore[arg-type]
            for phrase in s["synonyms"]:
                for text in (phrase, f"well my {app} {phrase} since monday", f"ok so {phrase}"):
                    found = await catalog.match_symptoms(text, app)  # type: ignore[arg-type]
                    assert found, text


@pytest.mark.parametrize(
    ("text", "appliance", "label"),
    [
        ("there is a whirring from the back", "refrigerator", "Noisy"),
        ("makes a racket every night", "dishwasher", "Noisy"),
        ("it is pitch black inside when I open it", "refrigerator", "Light not working"),
        ("the buttons won't react", "dishwasher", "Touchpad does not respond"),
        ("the coils iced over again", "refrigerator", "Freezer not defrosting"),
        ("the door pops open on its own", "refrigerator", "Door won't open or close"),
        ("ice keeps coming out after I let go", "refrigerator", "Ice maker dispenses too much ice"),
        ("the fridge is acting like a freezer", "refrigerator", "Fridge too cold"),
        ("left door keeps popping open", "refrigerator", "Door won't open or close"),
        ("the door no longer self closes", "refrigerator", "Door won't open or close"),
        ("it quit dispensing ice last week", "refrigerator", "Ice maker won't dispense ice"),
        ("the dispenser is dumping ice on the floor", "refrigerator",
         "Ice maker dispenses too much ice"),
        ("the freezer buzzes when it fills", "refrigerator", "Noisy"),
        ("the defrost quit on my freezer", "refrigerator", "Freezer not defrosting"),
        ("the light died yesterday", "refrigerator", "Light not working"),
        ("fridge and freezer hardly cooling", "refrigerator", "Fridge and freezer are too warm"),
    ],
)  # fmt: skip
async def test_phrasings_name_a_symptom_by_its_sound_or_effect(
    catalog: Catalog, text: str, appliance: str, label: str
) -> None:
    found = await catalog.match_symptoms(text, appliance)  # type: ignore[arg-type]
    assert label in [s["label"] for s in found]
