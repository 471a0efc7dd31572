"""Every reader of the appliance table (data/catalog/appliance_words.json) recognises every
spelling of the kinds it reads, each for its own use; every reader of the brands
(brand_words.json) every brand."""

from __future__ import annotations

import pytest

from partchat.agent import offline_reading, offline_writer
from partchat.agent.list_picks import _generic_stems
from partchat.catalog import Catalog
from partchat.catalog.normalize import appliances_from_text
from partchat.catalog.stem import stem
from partchat.catalog.store_search import _appliance_named
from partchat.catalog.symptom_index import SymptomIndex
from partchat.catalog.vocab import (
    APPLIANCE_KINDS,
    APPLIANCE_NAMES,
    appliance_forms,
    appliance_spellings,
    brand_names,
)
from partchat.nlu import rules
from partchat.nlu.extraction import _brand_cue, _number_cue, appliance_from_words

SPELLINGS = appliance_spellings()
NAMED = (*APPLIANCE_NAMES, "compartment")  # what the shopper calls the appliance itself


def _word(spelling: str, kind: str) -> str:
    """A word the spelling stands for: a stem takes any ending."""
    return spelling + "xyz" if kind == "stem" else spelling


def _of(*kinds: str) -> list[tuple[str, str, str]]:
    return [s for s in SPELLINGS if s[2] in kinds]


def test_the_table_is_one_appliance_per_spelling_in_known_kinds() -> None:
    assert {k for _, _, k in SPELLINGS} <= set(APPLIANCE_KINDS)
    owners: dict[str, set[str]] = {}
    for w, app, _ in SPELLINGS:
        owners.setdefault(w, set()).add(app)
    assert all(len(apps) == 1 for apps in owners.values())
    assert {app for _, app, _ in SPELLINGS} == {"dishwasher", "refrigerator"}


@pytest.mark.parametrize(("spelling", "appliance", "kind"), _of(*APPLIANCE_KINDS))
def test_the_symptom_index_hints_every_spelling(spelling: str, appliance: str, kind: str) -> None:
    for form in appliance_forms(spelling):
        text = f"My {_word(form, kind).upper()} is leaking"
        assert SymptomIndex.detect_appliance(text) == appliance


@pytest.mark.parametrize(
    ("spelling", "appliance", "kind"), [s for s in SPELLINGS if s[2] != "hint"]
)
def test_extraction_and_the_rules_find_every_spelling_but_hints(
    spelling: str, appliance: str, kind: str
) -> None:
    for form in (*appliance_forms(spelling), spelling.replace(" ", "-")):
        text = f"the {_word(form, kind).title()} stopped, can you help"
        assert appliance_from_words(text) == appliance
        assert rules.OUR_APPLIANCE.search(text)
        assert rules.IN_SCOPE.search(text)


@pytest.mark.parametrize(("spelling", "appliance", "kind"), _of(*APPLIANCE_NAMES))
def test_a_name_in_any_spelling_cues_a_number_and_is_search_filler(
    spelling: str, appliance: str, kind: str
) -> None:
    word = _word(spelling, kind)
    assert _number_cue().search(f"my {word} ")
    assert _brand_cue().search(f"a {word} ")
    assert offline_reading._SEARCH_FILLER.sub(" ", f"{word} door bin").split() == ["door", "bin"]
    assert offline_reading._APPLIANCE_ONLY.match(f"whirlpool {word}")


def test_a_long_name_typed_a_letter_off_is_the_appliance() -> None:
    assert appliance_from_words("wet patch in front of our frigidare dishwaher") == "dishwasher"
    assert appliance_from_words("my refrigertor is warm") == "refrigerator"
    assert appliance_from_words("a dishwashing liquid spill") is None  # two letters and more off


def test_hints_and_parts_are_not_the_appliance_s_name() -> None:
    assert appliance_from_words("a sink of dishes") is None
    assert not _number_cue().search("the ice maker ")
    assert _appliance_named("crisper") is None


@pytest.mark.parametrize(("spelling", "appliance", "kind"), _of(*NAMED))
def test_a_one_word_name_is_the_search_s_appliance_and_a_bare_answer(
    spelling: str, appliance: str, kind: str
) -> None:
    if " " in spelling:
        assert rules.rule_intent(f"a {spelling}") == "answer"
        return
    word = _word(spelling, kind)
    assert _appliance_named(word) == appliance
    if kind == "stem":
        return
    assert rules.rule_intent(f"the {word}") == "answer"
    if kind != "compartment":  # "the freezer one" tells listed parts apart
        assert stem(word) in _generic_stems()


@pytest.mark.parametrize(("spelling", "appliance", "kind"), _of("name", "compartment", "part"))
def test_sources_and_part_names_read_names_and_parts(
    spelling: str, appliance: str, kind: str
) -> None:
    assert appliances_from_text(f"Fits: {spelling.title()}.") == {appliance}
    card = {"name": f"{spelling.title()} Door Bin"}
    other = "dishwasher" if appliance == "refrigerator" else "refrigerator"
    assert offline_writer._other_appliance(card, other) == appliance


async def test_an_appliance_word_filters_the_search(catalog: Catalog) -> None:
    for word, appliance in (("dw", "dishwasher"), ("refridgerator", "refrigerator")):
        hits = await catalog.search(f"{word} door")
        assert hits
        assert all(appliance in h["part"]["appliances"] for h in hits)


@pytest.mark.parametrize("brand", brand_names())
def test_every_reader_of_the_brands_knows_every_brand(brand: str) -> None:
    for form in (brand, brand.replace(" ", "-"), brand.replace(" ", "")):
        word = form.title()
        assert _number_cue().search(f"my {word} ")
        assert _brand_cue().search(f"it's a {word} ")
        assert offline_reading._BRAND.sub(" ", f"{word} door bin").split() == ["door", "bin"]
        assert offline_reading._APPLIANCE_ONLY.match(f"{word} fridge")
    assert rules.rule_intent(f"its a {brand}") == "answer"
