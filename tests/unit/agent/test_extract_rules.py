"""The context rules (``apply_extraction``), pure, and the catalog-aware extraction."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from partchat.agent.context_rules import apply_extraction, merged_symptoms, moved_to
from partchat.agent.extract import confirmed_suggestion, make_extract_node
from partchat.agent.list_picks import newest_list_size, place_past_the_end, referenced_part
from partchat.agent.prompts import context_block
from partchat.agent.state import AgentState, turn_input
from partchat.catalog import Catalog
from partchat.catalog.types import Appliance
from partchat.nlu.dialogue import names_another_appliance, tells_appliance
from partchat.nlu.extraction import Extraction, ModelMention, extract
from partchat.nlu.model import Understanding
from partchat.protocol.shapes import empty_context


def mention(
    model: str,
    *,
    known: bool = True,
    appliance: Appliance | None = "dishwasher",
    suggestions: list[str] | None = None,
) -> ModelMention:
    return ModelMention(
        model=model,
        known=known,
        brand="Whirlpool" if known else None,
        appliance=appliance if known else None,
        suggestions=suggestions or [],
    )


def found(
    *,
    parts: list[str] | None = None,
    unknown_parts: list[str] | None = None,
    models: list[ModelMention] | None = None,
    symptoms: list[str] | None = None,
    appliance: Appliance | None = None,
) -> Extraction:
    return Extraction(
        part_numbers=parts or [],
        unknown_part_numbers=unknown_parts or [],
        models=models or [],
        symptoms=symptoms or [],
        appliance=appliance,
    )


def state(**fields: Any) -> AgentState:
    return AgentState(**{**turn_input(empty_context()), **fields})  # type: ignore[typeddict-item]


# -- models ------------------------------------------------------------------------------
def test_first_model_is_set_without_a_change_note() -> None:
    out = apply_extraction(state(), found(models=[mention("WDT780SAEM1")]))
    assert out["product_model"] == "WDT780SAEM1"
    assert out["appliance_type"] == "dishwasher"
    assert out["model_changed_from"] is None


def test_a_new_model_replaces_the_old_and_says_so() -> None:
    before = state(product_model="WDT780SAEM1", appliance_type="dishwasher")
    out = apply_extraction(before, found(models=[mention("WDF520PADM7")]))
    assert out["product_model"] == "WDF520PADM7"
    assert out["model_changed_from"] == "WDT780SAEM1"


def test_the_same_model_again_is_not_a_change() -> None:
    before = state(product_model="WDT780SAEM1", appliance_type="dishwasher")
    out = apply_extraction(before, found(models=[mention("WDT780SAEM1")]))
    assert out["model_changed_from"] is None
    assert out["product_model"] == "WDT780SAEM1"


def test_the_last_known_model_of_a_message_wins_and_the_others_are_kept_for_the_turn() -> None:
    out = apply_extraction(state(), found(models=[mention("WDT780SAEM1"), mention("WDF520PADM7")]))
    assert out["product_model"] == "WDF520PADM7"
    assert out["other_models"] == ["WDT780SAEM1"]
    assert "Other models named in this message: WDT780SAEM1" in context_block({**state(), **out})
    again = apply_extraction(out, found(models=[mention("WDF520PADM7")]))
    assert again["other_models"] == []
    assert "Other models" not in context_block({**out, **again})


def test_an_unknown_model_keeps_the_old_one_and_carries_suggestions() -> None:
    before = state(product_model="WDF520PADM7", appliance_type="dishwasher")
    typo = mention("WDT780SAM1", known=False, suggestions=["WDT780SAEM1"])
    out = apply_extraction(before, found(models=[typo]))
    assert out["product_model"] == "WDF520PADM7"
    assert out["unknown_model"] == "WDT780SAM1"
    assert out["model_suggestions"] == ["WDT780SAEM1"]
    assert out["model_changed_from"] is None


def test_per_turn_fields_are_reset_each_turn() -> None:
    before = state(unknown_model="X1", model_suggestions=["X2"], unknown_part="PS1")
    out = apply_extraction(before, found())
    assert out["unknown_model"] is None
    assert out["model_suggestions"] == []
    assert out["unknown_part"] is None
    assert out["mentioned_part"] is None
    assert out["model_changed_from"] is None


# -- symptoms and appliance --------------------------------------------------------------
def test_symptoms_accumulate_for_the_same_appliance_without_duplicates() -> None:
    before = state(appliance_type="dishwasher", symptoms=["Not draining"])
    out = apply_extraction(before, found(symptoms=["Leaking", "Not draining"]))
    assert out["symptoms"] == ["Not draining", "Leaking"]
    assert out["appliance_type"] == "dishwasher"


def test_changing_appliance_clears_symptoms_and_the_other_appliance_model() -> None:
    before = state(
        product_model="WDT780SAEM1", appliance_type="dishwasher", symptoms=["Not draining"]
    )
    out = apply_extraction(before, found(symptoms=["Fridge too warm"], appliance="refrigerator"))
    assert out["symptoms"] == ["Fridge too warm"]
    assert out["appliance_type"] == "refrigerator"
    assert out["product_model"] is None


def test_a_model_of_the_other_appliance_switches_appliance_and_clears_symptoms() -> None:
    before = state(
        product_model="WDT780SAEM1", appliance_type="dishwasher", symptoms=["Not draining"]
    )
    fridge = mention("JFX2897DRM02", appliance="refrigerator")
    out = apply_extraction(before, found(models=[fridge]))
    assert out["product_model"] == "JFX2897DRM02"
    assert out["appliance_type"] == "refrigerator"
    assert out["symptoms"] == []
    assert out["model_changed_from"] == "WDT780SAEM1"


def test_same_appliance_word_keeps_symptoms() -> None:
    before = state(appliance_type="dishwasher", symptoms=["Leaking"])
    out = apply_extraction(before, found(appliance="dishwasher", symptoms=["Noisy"]))
    assert out["symptoms"] == ["Leaking", "Noisy"]


def test_symptoms_are_capped_at_ten_keeping_the_newest() -> None:
    many = [f"s{i}" for i in range(12)]
    out = apply_extraction(state(appliance_type="dishwasher"), found(symptoms=many))
    assert out["symptoms"] == many[-10:]


def test_a_correction_replaces_the_symptoms_and_a_denied_one_leaves() -> None:
    before = state(appliance_type="dishwasher", symptoms=["Leaking"])
    # "no wait, it's not leaking, it just won't drain"
    out = apply_extraction(before, found(symptoms=["Not draining"]), replace_symptoms=True)
    assert out["symptoms"] == ["Not draining"]
    # a correction without a symptom of its own keeps them ("no wait, model is …")
    assert apply_extraction(before, found(), replace_symptoms=True)["symptoms"] == ["Leaking"]
    # "it's not leaking, but it's noisy": the denied symptom goes, the new one is added
    out = apply_extraction(before, found(symptoms=["Noisy"]), denied=["Leaking"])
    assert out["symptoms"] == ["Noisy"]
    # without either, symptoms accumulate (the fridge warm, then the freezer: both)
    fridge = state(appliance_type="refrigerator", symptoms=["Fridge too warm"])
    out = apply_extraction(fridge, found(symptoms=["Freezer section too warm"]))
    assert out["symptoms"] == ["Fridge and freezer are too warm"]
    out = apply_extraction(
        fridge, found(symptoms=["Freezer section too warm"]), replace_symptoms=True
    )
    assert out["symptoms"] == ["Freezer section too warm"]


def test_a_compartment_symptom_moves_to_the_compartment_a_correction_names() -> None:
    assert moved_to("fridge", ["Freezer too cold", "Noisy"]) == ["Fridge too cold", "Noisy"]
    assert moved_to("freezer", ["Fridge too warm"]) == ["Freezer section too warm"]
    assert moved_to("freezer", ["Fridge and freezer are too warm"]) == ["Freezer section too warm"]
    assert moved_to("fridge", ["Leaking"]) == ["Leaking"]


# -- parts -------------------------------------------------------------------------------
def test_a_whole_symptom_stands_for_its_parts() -> None:
    whole, fridge, freezer = (
        "Fridge and freezer are too warm",
        "Fridge too warm",
        "Freezer section too warm",
    )
    assert merged_symptoms([whole, freezer, "Noisy"]) == [whole, "Noisy"]
    assert merged_symptoms(["Noisy", fridge, freezer]) == ["Noisy", whole]
    assert merged_symptoms([fridge, "Noisy"]) == [fridge, "Noisy"]
    # said over two messages: the fridge warm, then the freezer too
    before = state(appliance_type="refrigerator", symptoms=[fridge])
    out = apply_extraction(before, found(symptoms=[freezer], appliance="refrigerator"))
    assert out["symptoms"] == [whole]


def test_a_part_number_replaces_the_part_and_is_marked_as_mentioned() -> None:
    # "how much are PS2 and PS3", "the difference between PS2 and PS3": the first named
    out = apply_extraction(state(part_number="PS1"), found(parts=["PS2", "PS3"]))
    assert out["part_number"] == "PS2"
    assert out["mentioned_part"] == "PS2"
    # "not PS2, sorry, PS3": a correction's last
    out = apply_extraction(state(part_number="PS1"), found(parts=["PS2", "PS3"]), corrected=True)
    assert out["part_number"] == "PS3"
    assert out["mentioned_part"] == "PS3"


def test_a_trouble_said_to_be_over_gives_way_to_the_new_one() -> None:
    # "it isn't warm anymore, that's sorted, but now there's frost": the symptom said
    # again is the one over; the new one takes the session's place
    before = state(appliance_type="refrigerator", symptoms=["Fridge too warm", "Noisy"])
    said = found(symptoms=["Fridge too warm", "Frost buildup"], appliance="refrigerator")
    out = apply_extraction(before, said, moved_on=True)
    assert out["symptoms"] == ["Frost buildup"]
    # nothing new said: the session's symptoms stay
    out = apply_extraction(before, found(symptoms=["Noisy"]), moved_on=True)
    assert out["symptoms"] == ["Fridge too warm", "Noisy"]
    # not moving on: they accumulate
    assert apply_extraction(before, said)["symptoms"] == [
        "Fridge too warm",
        "Noisy",
        "Frost buildup",
    ]


def test_no_part_keeps_the_context_part() -> None:
    out = apply_extraction(state(part_number="PS11752778"), found())
    assert out["part_number"] == "PS11752778"
    assert out["mentioned_part"] is None


def test_an_unknown_part_is_flagged_and_keeps_the_context_part() -> None:
    out = apply_extraction(state(part_number="PS11752778"), found(unknown_parts=["PS99999999"]))
    assert out["unknown_part"] == "PS99999999"
    assert out["part_number"] == "PS11752778"


def test_an_unknown_part_next_to_a_known_one_is_not_flagged() -> None:
    out = apply_extraction(state(), found(parts=["PS2"], unknown_parts=["PS99999999"]))
    assert out["unknown_part"] is None
    assert out["part_number"] == "PS2"


def test_context_block_shows_the_per_turn_notes() -> None:
    text = context_block(
        state(
            product_model="WDF520PADM7",
            model_changed_from="WDT780SAEM1",
            unknown_part="PS9",
            mentioned_part="PS3406971",
        )
    )
    assert "- Appliance model: WDF520PADM7" in text
    assert "- Model changed from: WDT780SAEM1" in text
    assert "- Unknown part number: PS9" in text
    assert "- Part named in this message: PS3406971" in text


# -- references to the previous answer ---------------------------------------------------
LIST_ANSWER = AIMessage(
    "For *Not draining* on your WDT780SAEM1:\n"
    "1. **Dishwasher Drain Pump** (PS11753379) · $59.95: the most common cause of *Leaking*\n"
    "2. **Dishwasher Filter** (PS11759673) · $46.14: listed as fixing *Not draining*\n"
    "3. **Dishwasher Door Seal** (PS12348515) · $54.00: a known cause of *Leaking*"
)


def convo(text: str, previous: BaseMessage = LIST_ANSWER) -> list[BaseMessage]:
    return [HumanMessage("it is not draining"), previous, HumanMessage(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("How do I install the first one?", "PS11753379"),
        ("the second one please", "PS11759673"),
        ("does the last one fit?", "PS12348515"),
        ("tell me about number 2", "PS11759673"),
        ("how do I install the door seal?", "PS12348515"),
        ("how much is the filter", "PS11759673"),
        ("it's also leaking", None),  # a reason word, not a part name
        ("the ice maker is leaking too", None),
        ("install the sixth one", None),
        # a bare name, whatever it reads like
        ("door seal", "PS12348515"),
        ("prob the dishwasher filter", "PS11759673"),
        # every word must be in the name: another part type is not a pick
        ("what about the drain hose", None),
        ("the door latch", None),
        # an ordinal that opens the message
        ("2nd looks right", "PS11759673"),
        ("1st pls, price and stock?", "PS11753379"),
        # not an ordinal: the part its fitting is asked for
        ("first time doing this, how do I fit the filter", "PS11759673"),
        # by price
        ("the cheaper one", "PS11759673"),
        ("the most expensive of those", "PS11753379"),
        ("whichever dishwasher door seal is cheaper", "PS12348515"),  # named, then by price
        # a place and a name that disagree: the name read off the list
        ("the second one, the door seal", "PS12348515"),
        ("the 2nd one, the filter", "PS11759673"),
        # a name, then a remark on what the list says and a question of its own; "any
        # idea", "any chance" ask no "any of them"
        ("the door seal says on order, any idea when it comes back?", "PS12348515"),
        ("the pump, any chance it ships today?", "PS11753379"),
        ("any of those in stock?", None),
        ("the door seal is torn, got another one?", None),  # a new trouble, not a pick
        # a hedged choice that ends the message, its reason before it
        ("filter is brand new so the door seal i guess", "PS12348515"),
        ("the filter's clean so the drain pump then", "PS11753379"),
    ],
)
def test_referenced_part(text: str, expected: str | None) -> None:
    assert referenced_part(convo(text)) == expected


def test_a_generic_word_is_no_misspelt_name() -> None:
    doors = AIMessage(
        "1. **French Door Hinge** (PS4145262) · $11.95\n"
        "2. **Refrigerator Flipper Assembly** (PS5575408) · $154.18"
    )
    assert referenced_part(convo("the flipper thing", doors)) == "PS5575408"  # not "hinge"


def test_a_kind_only_one_listed_name_has_picks_it() -> None:
    racks = AIMessage(
        "Here's what I found for your 58714003100:\n"
        "1. **Upper Dishrack Slide** (PS1525080) · $14.95\n"
        "2. **RACK ASSEMBLY UPPER GREY** (PS17219659) · $93.07\n"
        "3. **Ice Maker Field Install Kit** (PS11739222) · $20.00"
    )
    # "assembly", "kit" and "install" are generic words, yet one listed name each has
    assert referenced_part(convo("the assembly", racks)) == "PS17219659"
    assert referenced_part(convo("how much is the assembly", racks)) == "PS17219659"
    assert referenced_part(convo("the install kit", racks)) == "PS11739222"
    kits = AIMessage(
        "1. **Door Gasket Kit** (PS1000001) · $30.00\n2. **Ice Maker Field Install Kit** "
        "(PS11739222) · $20.00"
    )
    assert referenced_part(convo("the install kit", kits)) == "PS11739222"
    assert referenced_part(convo("the kit", kits)) is None  # two kits: which?


def test_of_several_named_parts_the_first_listed_is_picked() -> None:
    two_pumps = AIMessage(
        "1. **Drain Pump** (PS11753379) · $59.95\n2. **Circulation Pump** (PS11756150) · $99.00"
    )
    assert referenced_part(convo("the pump", two_pumps)) == "PS11753379"
    assert referenced_part(convo("the circulation pump", two_pumps)) == "PS11756150"


def test_a_short_form_names_a_listed_part() -> None:
    fans = AIMessage(
        "1. **Temperature Control Thermostat** (PS11755844) · $92.10\n"
        "2. **Evaporator Fan Motor** (PS11740359) · $52.42"
    )
    assert referenced_part(convo("the evap fan", fans)) == "PS11740359"
    assert referenced_part(convo("the temp control one", fans)) == "PS11755844"


def test_a_name_not_in_the_newest_answer_is_looked_for_in_the_list_before() -> None:
    details = AIMessage("**Dishwasher Filter** (PS11759673) · $46.14 · In Stock")
    messages = [*convo("the filter"), details]
    assert referenced_part([*messages, HumanMessage("the door seal from that list")]) == (
        "PS12348515"
    )
    # "what about …" a part listed before is that part
    assert referenced_part([*messages, HumanMessage("what about the door seal")]) == "PS12348515"
    assert referenced_part([*messages, HumanMessage("what about the drain hose")]) is None


def test_the_likeliest_culprit_is_the_first_part_a_diagnosis_lists() -> None:
    diagnosis = AIMessage(
        "For *Not draining* on your WDT780SAEM1, these parts are the usual fix, most likely "
        "first:\n1. **Dishwasher Drain Pump** (PS11753379) · $59.95\n"
        "2. **Dishwasher Filter** (PS11759673) · $46.14"
    )
    said = "what would you say is the likeliest culprit there"
    assert referenced_part(convo(said, diagnosis)) == "PS11753379"
    # another case asked about is another diagnosis; a search lists no likelihood
    assert referenced_part(convo("whats the usual suspect for a noisy one", diagnosis)) is None
    assert referenced_part(convo(said)) is None


def test_stock_and_price_said_in_other_words_pick_a_part() -> None:
    stocked = AIMessage(
        "1. **GASKET** (PS2331042) · $11.96 · On Order\n2. **SEAL** (PS2367891) · $20.13 · In Stock"
    )
    for text in ("which one's actually in stock", "which one do you actually have in stock"):
        assert referenced_part(convo(text, stocked)) == "PS2367891", text
    assert referenced_part(convo("the one thats actually in stock", stocked)) == "PS2367891"
    assert referenced_part(convo("yep the 20 bucks one?", stocked)) == "PS2367891"


def test_that_one_among_other_words_is_the_one_part_of_the_kind_asked_for() -> None:
    listed = AIMessage(
        "1. **French Door Hinge** (PS4145262) · $11.95\n2. **Door Closing Mechanism** (PS1) · $40.00"
    )
    messages = [HumanMessage("price on a door hinge for RF22K9381SG?"), listed]
    assert referenced_part([*messages, HumanMessage("tell me more about that one")]) == "PS4145262"


def test_the_last_digit_is_no_pick() -> None:
    assert referenced_part(convo("wait no, 10632853011. the last 0 is a 1")) is None


def test_a_pick_put_right_looks_past_the_part_just_shown() -> None:
    funnel = AIMessage("**Dishwasher Filter** (PS11759673) · $46.14 · In Stock")
    shown = [*convo("the filter"), funnel]
    for text, part in (
        ("sorry no i meant the door seal, not the filter", "PS12348515"),
        ("hmm actually give me the first one, its cheaper", "PS11753379"),
        ("hmm nah a filter isnt gonna fix it. back to the list, the drain pump one", "PS11753379"),
        ("and what about the seal on that list", "PS12348515"),
        ("hmm nah a filter isnt it. the actual door seal instead", "PS12348515"),
    ):
        assert referenced_part([*shown, HumanMessage(text)]) == part, text


def test_referenced_part_needs_a_previous_answer() -> None:
    assert referenced_part([HumanMessage("install the first one")]) is None
    assert referenced_part(convo("install the first one", AIMessage("Hi there!"))) is None


def test_yes_confirms_a_did_you_mean() -> None:
    asked = AIMessage("I couldn't find model **WDT780SAM1**. Did you mean **WDT780SAEM1**?")
    assert "WDT780SAEM1" in (confirmed_suggestion(convo("yes", asked)) or "")
    assert "WDT780SAEM1" in (confirmed_suggestion(convo("Yep, that's it", asked)) or "")
    assert confirmed_suggestion(convo("no, it's something else", asked)) is None
    assert confirmed_suggestion(convo("yes", AIMessage("Want the steps?"))) is None


# -- with the real catalog ---------------------------------------------------------------
pytestmark_catalog = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def catalog(catalog_db: Path) -> AsyncIterator[Catalog]:
    c = await Catalog.open(catalog_db)
    yield c
    await c.close()


@pytestmark_catalog
async def test_manufacturer_number_resolves_to_the_ps_number(catalog: Catalog) -> None:
    out = await extract("I have part W10195416", catalog)
    assert out["part_numbers"] == ["PS3406971"]


@pytestmark_catalog
async def test_a_model_pasted_in_pieces_is_found(catalog: Catalog) -> None:
    for text, model in (
        ("LDF 7774 BD not getting dishes clean", "LDF7774BD"),
        ("kenmore 106 4056 2010 too warm", "10640562010"),
        ("WDT 780SAEM1 is leaking", "WDT780SAEM1"),
    ):
        out = await extract(text, catalog)
        assert [(m["model"], m["known"]) for m in out["models"]] == [(model, True)], text
    # counts and sizes are not pieces of a model
    out = await extract("dishwasher is 2 years old, 24 inch, leaks", catalog)
    assert out["models"] == []


@pytestmark_catalog
async def test_a_short_model_after_its_brand_or_appliance_and_a_comma_or_dash_is_found(
    catalog: Catalog,
) -> None:
    for text in (
        "lg fridge 71052 water filter pls",
        "water filter for an lg fridge, 71052",
        "need a new water filter, LG fridge - 71052",
        "LG: 71052 water filter",
    ):
        out = await extract(text, catalog)
        assert [m["model"] for m in out["models"] if m["known"]] == ["71052"], text
    # a plain number after a comma and no brand or appliance is one only beside a part
    # type (the catalog has that model exactly)
    out = await extract("water filter, 71052", catalog)
    assert [m["model"] for m in out["models"]] == ["71052"]
    assert (await extract("oh and 71052 lol", catalog))["models"] == []


@pytestmark_catalog
async def test_a_short_model_given_alone_as_a_reply_is_found(catalog: Catalog) -> None:
    for text, model in (
        ("71052", "71052"),
        ("its a 71052", "71052"),
        ("it's 71052.", "71052"),
        ("ok mine's 71052", "71052"),
        ("71072 is the model", "71072"),
        ("71052 - and can i return the filter if that turns out not to be it?", "71052"),
        # read off where it is written
        ("the sticker says 71052", "71052"),
        ("label inside the door reads 71052", "71052"),
        # put right, or after a fit word and its article
        ("wait sorry its the 71054, i read the wrong sticker", "71054"),
        ("does it fit a 71053 as well? neighbor has the same fridge", "71053"),
    ):
        out = await extract(text, catalog)
        assert [m["model"] for m in out["models"] if m["known"]] == [model], text
    # a short number the catalog lacks is no model, known or not
    for text in (
        "12345",
        "its 45678",
        "2019",
        "does it fit a 2019 model",
        "for the 10000 btu one",
        "the tag says 71052 is the price",
    ):
        out = await extract(text, catalog)
        assert out["models"] == [], text


@pytestmark_catalog
async def test_extract_finds_model_symptom_and_appliance(catalog: Catalog) -> None:
    out = await extract("My dishwasher WDT780SAEM1 is not draining and leaking", catalog)
    assert [m["model"] for m in out["models"] if m["known"]] == ["WDT780SAEM1"]
    assert out["appliance"] == "dishwasher"
    assert out["symptoms"] == ["Not draining", "Leaking"]


@pytestmark_catalog
async def test_extract_flags_typos_and_unknown_parts(catalog: Catalog) -> None:
    out = await extract("Is PS99999999 compatible with WDT780SAM1?", catalog)
    assert out["unknown_part_numbers"] == ["PS99999999"]
    typo = out["models"][0]
    assert typo["known"] is False
    assert "WDT780SAEM1" in typo["suggestions"]


@pytestmark_catalog
async def test_extract_node_resolves_yes_and_ordinals(
    catalog: Catalog, understanding: Understanding
) -> None:
    node = make_extract_node(catalog, understanding)
    asked = AIMessage("I couldn't find model **WDT780SAM1**. Did you mean **WDT780SAEM1**?")
    out = await node(state(messages=convo("yes", asked)))
    assert out["product_model"] == "WDT780SAEM1"
    out = await node(state(messages=convo("How do I install the first one?")))
    assert out["part_number"] == "PS11753379"
    assert out["mentioned_part"] == "PS11753379"


@pytestmark_catalog
async def test_not_knowing_the_model_asks_where_to_find_it_not_the_job_again(
    catalog: Catalog, understanding: Understanding
) -> None:
    node = make_extract_node(catalog, understanding)
    listed = state(messages=convo("i don't know the model, it's a kenmore"))
    assert (await node(listed))["intent"] == "no_model"
    # a problem of its own is still diagnosed
    leaking = state(messages=[HumanMessage("my dishwasher is leaking, dont know the model")])
    assert (await node(leaking))["intent"] == "diagnose"
    # with a model in the context the words say nothing new
    known = state(product_model="WDT780SAEM1", messages=convo("cant find the model sticker"))
    assert (await node(known))["intent"] != "no_model"


@pytestmark_catalog
async def test_a_first_message_is_no_bare_answer(
    catalog: Catalog, understanding: Understanding
) -> None:
    node = make_extract_node(catalog, understanding)
    # a problem in few words, which the classifier may take for a reply: nothing was
    # asked, so it starts a job (and its symptom is looked for as a diagnosis's)
    first = await node(state(messages=[HumanMessage("black gunk around the ice chute")]))
    assert first["intent"] not in ("answer", "no_model")
    assert not first["continues"]
    # a reply the rules are sure of stays one
    bare = await node(state(messages=[HumanMessage("a bosch dishwasher")]))
    assert bare["intent"] == "answer"


def test_a_place_in_a_list_points_into_the_list_not_into_one_parts_details() -> None:
    details = AIMessage("**Dishwasher Filter** (PS11759673) · $46.14 · In Stock")
    messages = [*convo("the filter"), details]
    assert referenced_part([*messages, HumanMessage("the first part you showed me")]) == (
        "PS11753379"
    )
    # three answers back, with a reply between
    later = [*messages, HumanMessage("thanks"), AIMessage("You're welcome!")]
    assert referenced_part([*later, HumanMessage("go back to the 3rd one")]) == "PS12348515"
    # a list of one is still a list
    one = AIMessage("Here's what I found:\n1. **P-Trap Drain Tube Kit** (PS8691807) · $41.95")
    assert referenced_part(convo("the first one", one)) == "PS8691807"
    # a place the newest list lacks is in the longer list before it
    longer = [*convo("its a 2213092N413", LIST_ANSWER), one]
    assert referenced_part([*longer, HumanMessage("whats the 3rd one")]) == "PS12348515"
    assert referenced_part([*longer, HumanMessage("the first one")]) == "PS8691807"
    assert referenced_part([*longer, HumanMessage("the fifth one")]) is None


def test_the_other_one_is_the_listed_part_not_in_focus() -> None:
    two = AIMessage(
        "1. **Defrost Thermostat** (PS11750673) · $33.95\n2. **Capacitor** (PS11757023)"
    )
    shown = AIMessage("**Capacitor** (PS11757023) · $42.95 · In Stock")
    messages = [*convo("the capacitor", two), shown]
    assert referenced_part([*messages, HumanMessage("and the other one you mentioned?")]) == (
        "PS11750673"
    )
    # of three listed, "the other one" is not one part
    assert referenced_part([*convo("the filter"), shown, HumanMessage("the other one")]) is None
    # another model or appliance is not a listed part
    assert referenced_part(convo("does it fit the other fridge")) is None


def test_a_misspelt_name_or_a_word_about_its_price_still_picks_the_part() -> None:
    parts = AIMessage(
        "1. **Heating Element** (PS3653449) · $72.22\n"
        "2. **LED Light Control Board** (PS11755867) · $36.73\n"
        "3. **Drain Hose** (PS2358130) · $24.11"
    )
    assert referenced_part(convo("heating elemnt price", parts)) == "PS3653449"
    assert referenced_part(convo("is that board expensive", parts)) == "PS11755867"
    assert referenced_part(convo("teh drain hose one", parts)) == "PS2358130"
    # a different part type a letter off is not a listed one
    assert referenced_part(convo("the drain pump", parts)) is None


def test_after_a_list_of_one_a_question_that_names_nothing_is_about_that_part() -> None:
    one = AIMessage("Here's what I found:\n1. **ICEMAKER** (PS16660327) · $127.05")
    assert referenced_part(convo("how much", one)) == "PS16660327"
    assert referenced_part(convo("in stock?", one)) == "PS16660327"
    assert referenced_part(convo("how much is the drain pump", one)) is None
    # after several, the question names nothing to pick
    assert referenced_part(convo("how much")) is None


def test_a_choice_that_ends_the_message_after_its_reasons_picks_the_part() -> None:
    said = "my buddy said to check the fan in the back so lets go with the drain pump"
    assert referenced_part(convo(said)) == "PS11753379"
    assert referenced_part(convo("the filter looks fine, ill take the door seal")) == ("PS12348515")
    # a choice of nothing listed picks nothing
    assert referenced_part(convo("the pump is fine, so lets go with the spray arm")) is None
    # a choice that names no part leaves the pick to the rest
    assert referenced_part(convo("prob the drain pump, lets see that one")) == "PS11753379"


def test_yes_to_a_search_that_found_one_part_is_that_part() -> None:
    one = AIMessage(
        "Here's what I found for your 10640563010:\n"
        "1. **Relay and Overload Combination** (PS11749877) · $73.28 · In Stock\n"
        "Would you like details, a fit check or installation steps for one of these?"
    )
    for said in ("yes pls", "yeah", "sure please"):
        assert referenced_part(convo(said, one)) == "PS11749877", said
    # a thanks or an ok closes, it takes no offer
    for said in ("ok thanks", "ok", "yes thanks"):
        assert referenced_part(convo(said, one)) is None, said
    # of several found, the one whose name has every word searched for
    found = AIMessage(
        "Here's what I found for your 004621710A:\n"
        "1. **Dishwasher Door Bottom Seal** (PS11703834) · $8.91 · In Stock\n"
        "2. **Door Spring** (PS1524996) · $48.95 · In Stock\n"
        "Would you like details, a fit check or installation steps for one of these?"
    )
    searched = [HumanMessage("the door bottom seal"), found, HumanMessage("ya")]
    assert referenced_part(searched) == "PS11703834"
    searched = [HumanMessage("door parts"), found, HumanMessage("ya")]
    assert referenced_part(searched) is None
    # a diagnosis's list of several: none
    assert referenced_part(convo("yes pls")) is None
    # a diagnosis's list of one is the usual fix, not an offer of its details
    fix = AIMessage(
        "For *Clicking sound* on your 10640563010, these parts are the usual fix:\n"
        "1. **Relay and Overload Combination** (PS11749877) · $73.28"
    )
    assert referenced_part(convo("yes pls", fix)) is None


def test_a_listed_name_among_courtesy_words_in_a_question_picks_the_part() -> None:
    assert referenced_part(convo("merci! the drain pump, how much?")) == "PS11753379"
    assert referenced_part(convo("Kindly tell me the price of door seal")) == "PS12348515"
    assert referenced_part(convo("danke, is the filter in stock?")) == "PS11759673"
    # the words kept must name a part type: a question about the appliance is no pick
    assert referenced_part(convo("is my dishwasher ok to run meanwhile?")) is None
    # another part type among the words is another part
    assert referenced_part(convo("merci, how much is the drain hose?")) is None


def test_put_in_asks_how_to_install_a_listed_part() -> None:
    arms = AIMessage(
        "1. **Lower Spray Arm** (PS11770610) · $27.59\n"
        "2. **Lower Spray Arm Support** (PS12712289) · $18.95\n"
        "3. **Upper Spray Arm** (PS11770483) · $31.95"
    )
    assert referenced_part(convo("how hard is the upper one to put in", arms)) == "PS11770483"
    assert referenced_part(convo("how hard is the lower one to put in", arms)) == "PS11770610"


def test_a_comparison_points_at_the_part_it_names_first() -> None:
    assert referenced_part(convo("difference between the filter and the pump?")) == "PS11759673"
    assert referenced_part(convo("door seal vs filter, which do i need")) == "PS12348515"
    # the first part compared is not listed: the options, a search
    assert referenced_part(convo("difference between the drain hose and the pump?")) is None


def test_a_hedged_name_picks_the_part() -> None:
    assert referenced_part(convo("is it likely the filter?")) == "PS11759673"
    assert referenced_part(convo("could be the door seal maybe")) == "PS12348515"


def test_change_it_and_interjections_around_a_listed_name() -> None:
    assert referenced_part(convo("filter - how do i change it?")) == "PS11759673"
    assert referenced_part(convo("hmm pricey. the door seal then")) == "PS12348515"
    # a question for the parts that would do is a search, not a pick
    assert referenced_part(convo("ugh ok, what drain pump do i need for it then")) is None
    # a listed part type asked for by name is a search too; a place's stock is a pick
    assert referenced_part(convo("do u have the filter for it")) is None
    assert referenced_part(convo("do u have the top one in stock")) == "PS11753379"
    # one part's answer (a fit check) is not a list: "price?" is about the context's part
    fit = AIMessage("Yes! The **Lower Spray Arm** (PS11770610) fits your **004621710A**.")
    assert referenced_part(convo("price?", fit)) is None


def test_the_one_in_stock_is_the_first_listed_part_in_stock() -> None:
    arms = AIMessage(
        "1. **SPRAY ARM** (PS8703130) · $63.03 · In Stock\n"
        "2. **SPRAY ARM** (PS8715035) · $21.55 · Special Order"
    )
    for text in ("the one in stock pls, price?", "whichever is available", "the in-stock one"):
        assert referenced_part(convo(text, arms)) == "PS8703130", text
    both = AIMessage(arms.text.replace("Special Order", "In Stock"))
    # several in stock: the first, lists go most likely (or best match) first
    assert referenced_part(convo("the one in stock", both)) == "PS8703130"
    assert referenced_part(convo("the one you actually have in stock", both)) == "PS8703130"
    out = AIMessage(arms.text.replace("In Stock", "On Order").replace("Special Order", "In Stock"))
    assert referenced_part(convo("ill try the one thats in stock first", out)) == "PS8715035"
    none = AIMessage(arms.text.replace("In Stock", "On Order"))
    assert referenced_part(convo("the one in stock", none)) is None  # none is
    assert referenced_part(convo("is it in stock?", arms)) is None  # a question, no pick
    assert referenced_part(convo("whichever of those ships today", arms)) == "PS8703130"


def test_a_part_type_said_with_the_one_in_stock_is_the_listed_name_ending_in_it() -> None:
    drawers = AIMessage(
        "1. **Crisper Drawer** (PS12347929) · $101.81 · In Stock\n"
        "2. **Crisper Drawer Roller** (PS7321350) · $28.95 · In Stock\n"
        "3. **Crisper Drawer Frame** (PS427282) · $78.35 · Special Order"
    )
    asked = "whichever of those drawers ships today"
    assert referenced_part(convo(asked, drawers)) == "PS12347929"
    assert referenced_part(convo("the cheaper drawer", drawers)) == "PS12347929"
    assert referenced_part(convo("the one in stock", drawers)) == "PS12347929"  # the first


def test_of_names_that_all_fit_the_one_with_most_of_the_words_is_picked() -> None:
    thermostats = AIMessage(
        "1. **Bi-Metal Defrost Thermostat** (PS11750673) · $33.95 · In Stock\n"
        "2. **Thermostat Assembly** (PS11739232) · $62.67 · In Stock"
    )
    assert referenced_part(convo("the thermostat assembly one, how much", thermostats)) == (
        "PS11739232"
    )
    assert referenced_part(convo("the thermostat one, how much", thermostats)) == "PS11750673"


def test_a_brand_after_a_list_gives_the_make_and_picks_no_part() -> None:
    listed = AIMessage(
        "1. **Ice Maker Water Fill Tube Kit** (PS11739222) · $12.56\n"
        "2. **Whirlpool EveryDrop3 Refrigerator Water Filter** (PS11722128) · $75.79"
    )
    assert referenced_part(convo("its a whirlpool 10672003010", listed)) is None
    assert referenced_part(convo("the whirlpool water filter", listed)) == "PS11722128"


def test_a_choice_said_as_a_decision_picks_the_part_it_names() -> None:
    assert referenced_part(convo("gonna go w/ the door seal")) == "PS12348515"
    assert referenced_part(convo("ok ill go with the filter instead")) == "PS11759673"
    assert referenced_part(convo("decided on the door seal")) == "PS12348515"


def test_asking_whether_the_model_has_a_part_is_a_search_not_a_pick() -> None:
    assert referenced_part(convo("does it have a door seal?")) is None
    assert referenced_part(convo("is there a filter for it")) is None
    assert referenced_part(convo("the door seal?")) == "PS12348515"


def test_a_closing_thanks_does_not_hide_a_listed_name() -> None:
    assert referenced_part(convo("the door seal thanks")) == "PS12348515"
    assert referenced_part(convo("the filter please, thx")) == "PS11759673"


def test_a_digit_alone_with_filler_or_courtesy_is_a_place_in_the_list() -> None:
    assert referenced_part(convo("ok so 1")) == "PS11753379"
    assert referenced_part(convo("2 pls")) == "PS11759673"
    # with its article ("the 2", "ok the 1", "ill take the 2")
    assert referenced_part(convo("ok the 1")) == "PS11753379"
    assert referenced_part(convo("i'll take the 2")) == "PS11759673"
    assert referenced_part(convo("i have 2 dishwashers")) is None
    assert referenced_part(convo("the 2 of them")) is None


def test_a_price_read_off_the_list_picks_the_part_at_it() -> None:
    assert referenced_part(convo("the 46.14 one")) == "PS11759673"
    assert referenced_part(convo("the $54.00 seal pls")) == "PS12348515"
    assert referenced_part(convo("the 99.99 one")) is None  # no part at that price


def test_a_comparison_of_two_places_shows_the_first() -> None:
    assert referenced_part(convo("whats the difference between 2 and 3")) == "PS11759673"
    # the places said first, the comparison after them
    said_first = "the 3 and the 1, whats different between them"
    assert referenced_part(convo(said_first)) == "PS12348515"
    assert referenced_part(convo("whats different between the filter and 1")) == "PS11759673"


def test_words_of_the_part_in_focus_pick_nothing_from_the_list_before() -> None:
    listed = AIMessage(
        "1. **Dishwasher INLET VALVE** (PS12578165) · $52.45\n"
        "2. **Water Inlet Valve** (PS11730996) · $48.95"
    )
    details = AIMessage(
        "**Dishwasher INLET VALVE** (PS12578165) · $52.45\n- Whirlpool · Water Inlet Valve"
    )
    messages = [*convo("the first one", listed), details]
    asked = HumanMessage("do i need to shut the water off first? how do i install it")
    assert referenced_part([*messages, asked]) is None


@pytestmark_catalog
async def test_a_manufacturer_number_of_letters_only_is_found_in_capitals(
    catalog: Catalog,
) -> None:
    assert (await extract("RPWFE", catalog))["part_numbers"] == ["PS10063209"]
    # capitals that are no part's own manufacturer number are words
    for text in ("is it EASY to install", "I NEED A DRAIN PUMP ASAP", "rpwfe"):
        assert (await extract(text, catalog))["part_numbers"] == [], text


@pytestmark_catalog
async def test_a_short_plain_number_is_a_part_only_when_it_is_its_makers_number(
    catalog: Catalog,
) -> None:
    # 82 of the catalog's manufacturer numbers have five or six digits ("675808")
    assert (await extract("how do i install 675808", catalog))["part_numbers"] == ["PS382824"]
    assert (await extract("675808 price?", catalog))["part_numbers"] == ["PS382824"]
    for text in ("my zip is 90210", "it cost me 120000 cents", "had it since 2019"):
        assert (await extract(text, catalog))["part_numbers"] == [], text
    # a model of six digits counts beside a part type wanted for it, not alone
    found = await extract("need a spray arm 403110", catalog)
    assert [m["model"] for m in found["models"]] == ["403110"]
    assert (await extract("paid 403110 for it", catalog))["models"] == []
    # or beside its own brand ("72053" is an LG model), or read off the appliance
    found = await extract("does PS12724833 also work in the other lg we have, 72053", catalog)
    assert [m["model"] for m in found["models"]] == ["72053"]
    assert (await extract("ship it to 72053 please", catalog))["models"] == []
    found = await extract("model on the sticker says 1867", catalog)
    assert [m["model"] for m in found["models"]] == ["1867"]
    assert (await extract("the sticker says 2019", catalog))["part_numbers"] == []


def test_stock_price_and_that_one_choose_among_the_kind_asked_for() -> None:
    listed = AIMessage(
        "1. **Handle** (PS11711867) · $44.83 · In Stock\n"
        "2. **Handle** (PS3535298) · $17.17 · Special Order\n"
        "3. **Gasket** (PS3524965) · $13.75 · In Stock"
    )

    def after(text: str) -> list[BaseMessage]:
        asked = HumanMessage("LDF7551WW, the door handle came off. do u have a replacement")
        return [asked, listed, HumanMessage(text)]

    assert referenced_part(after("the one thats in stock pls")) == "PS11711867"
    assert referenced_part(after("the cheaper one")) == "PS3535298"  # not the gasket
    one = AIMessage(
        "1. **Ice Maker Assembly** (PS11765620) · $77.15 · In Stock\n"
        "2. **Water Filter** (PS11722130) · $75.79 · In Stock"
    )
    asked = HumanMessage("replacement ice maker for whirlpool 10672002011?")
    assert referenced_part([asked, one, HumanMessage("that one. in stock?")]) == "PS11765620"


def test_by_price_after_one_parts_details_chooses_in_the_list_before() -> None:
    details = AIMessage("**Dishwasher Drain Pump** (PS11753379) · $59.95 · In Stock")
    messages = [*convo("the first one"), details, HumanMessage("ok ill just take the cheaper one")]
    assert referenced_part(messages) == "PS11759673"


def test_a_named_part_asked_whether_to_fit_it_oneself_is_picked() -> None:
    text = "the door seal, is that something i can do myself"
    assert referenced_part(convo(text)) == "PS12348515"


def test_a_comparison_by_a_word_only_one_listed_name_has() -> None:
    panels = AIMessage(
        "1. **Control Panel - Black** (PS11723016) · $170.09\n"
        "2. **Control Panel and Touchpad - White** (PS11723017) · $173.65"
    )
    text = "whats the price difference between the black one and the white one"
    assert referenced_part(convo(text, panels)) == "PS11723016"


def test_a_part_named_from_an_earlier_list_is_picked_there() -> None:
    listed = AIMessage(
        "1. **Dishwasher Drain Pump** (PS11753379) · $59.95\n"
        "2. **Door Latch Spring** (PS11748490) · $8.95\n"
        "3. **Dishwasher Filter** (PS11759673) · $46.14"
    )
    details = AIMessage("**Dishwasher Drain Pump** (PS11753379) · $59.95\n- Whirlpool")
    steps = AIMessage("Here's how to install the **Dishwasher Drain Pump** (PS11753379).")
    thanks = AIMessage("You're welcome! Anything else I can help with?")
    history = [
        HumanMessage("not draining"), listed, HumanMessage("1"), details,
        HumanMessage("steps?"), steps, HumanMessage("ok"), thanks,
    ]  # fmt: skip
    for text in (
        "actually wait whats the latch spring from the first list cost",
        "and the latch spring from before, is that in stock?",
        "ok go back to the latch spring",
        "hmm actually the latch spring instead",
    ):
        assert referenced_part([*history, HumanMessage(text)]) == "PS11748490", text
    # "the first list" is no place in a list, and a question for the parts that would do
    # is a search
    assert referenced_part([*history, HumanMessage("the filter from the first list")]) == (
        "PS11759673"
    )
    which = HumanMessage("back to the dishwasher, which one is the filter")
    assert referenced_part([*history, which]) is None


def test_back_to_a_part_is_not_the_part_in_focus() -> None:
    baskets = AIMessage(
        "1. **Silverware Basket - Gray** (PS11743069) · $39.10\n"
        "2. **Silverware Basket - White** (PS3498171) · $35.00"
    )
    fit = AIMessage("Yes! The **Silverware Basket - White** (PS3498171) fits your **ADW862EAB**.")
    messages = [
        HumanMessage("silverware basket ADW862EAB"), baskets,
        HumanMessage("does PS3498171 fit"), fit,
        HumanMessage("ah ok. back to the basket then, how do i put it in"),
    ]  # fmt: skip
    assert referenced_part(messages) == "PS11743069"


def test_a_listed_name_before_a_question_of_its_own_is_picked() -> None:
    assert referenced_part(convo("the door seal. is that a hard fix?")) == "PS12348515"
    assert referenced_part(convo("the filter - on order?? when will it be back")) == "PS11759673"
    text = "the drain pump one not the door seal one lol, is it in stock"
    assert referenced_part(convo(text)) == "PS11753379"


def test_picks_by_stock_whole_dollars_a_descriptor_and_a_fit_question() -> None:
    arms = AIMessage(
        "1. **SPRAY ARM - Black** (PS8703130) · $63.03 · Special Order\n"
        "2. **SPRAY ARM - Gray** (PS8715035) · $12.55 · In Stock"
    )
    for text in (
        "whichever one u actually have in stock",
        "ill take whichever ones in stock, need it by the weekend",
        "ill take the $12 one",
        "gimme the gray one, price?",
        "yep the gray one",
    ):
        assert referenced_part(convo(text, arms)) == "PS8715035", text
    text = "perfect thank you!! oh and does the filter fit my moms 2213223N414 too"
    assert referenced_part(convo(text)) == "PS11759673"


def test_a_diagnosis_list_is_not_narrowed_to_the_part_the_shopper_wondered_about() -> None:
    listed = AIMessage(
        "For *Not draining* on your WDT780SAEM1, these parts are the usual fix:\n"
        "1. **Dishwasher Drain Pump** (PS11753379) · $59.95\n"
        "2. **Circulation Pump** (PS11750000) · $120.00\n"
        "3. **Dishwasher Filter** (PS11759673) · $46.14"
    )
    messages = [
        HumanMessage("WDT780SAEM1. is it normally the pump that goes on these?"),
        listed,
        HumanMessage("ok whichever one is cheapest lol"),
    ]
    assert referenced_part(messages) == "PS11759673"


def test_asking_to_see_a_part_or_the_one_not_meant_picks_the_part_named() -> None:
    assert referenced_part(convo("lets see the door seal")) == "PS12348515"
    assert referenced_part(convo("the drain pump itself not the filter")) == "PS11753379"
    assert referenced_part(convo("hmm actually no, id rather try the filter first")) == (
        "PS11759673"
    )
    assert referenced_part(convo("do u see a drain hose in those?")) is None


def test_a_remark_then_a_listed_name_in_its_own_sentence_picks_it() -> None:
    said = "special order tho, nah. the dishwasher filter then"
    assert referenced_part(convo(said)) == "PS11759673"
    # a name first, then a question of its own, still picks the name
    assert referenced_part(convo("the door seal. is that a hard fix?")) == "PS12348515"


def test_after_details_a_part_type_the_part_lacks_picks_from_the_list_before() -> None:
    wheels = AIMessage(
        "1. **Lower Dishrack Wheel** (PS11748193) · $47.95\n2. **Rack Roller** (PS11746725) · $6.00"
    )
    wheel = AIMessage("**Lower Dishrack Wheel** (PS11748193) · $47.95 · In Stock")
    messages = [*convo("the lower dishrack wheel", wheels), wheel]
    said = "$48 for a wheel?? whats the roller one cost"
    assert referenced_part([*messages, HumanMessage(said)]) == "PS11746725"


def test_a_verb_before_it_names_no_part() -> None:
    rollers = AIMessage(
        "1. **Lower Rack Roller** (PS16217024) · $12.95\n"
        "2. **Rack Roller with Mounting Clip** (PS4222532) · $16.95"
    )
    roller = AIMessage("**Lower Rack Roller** (PS16217024) · $12.95 · In Stock")
    messages = [*convo("the lower rack roller", rollers), roller]
    assert referenced_part([*messages, HumanMessage("how do i clip it on")]) is None
    assert referenced_part([*messages, HumanMessage("what about the clip one")]) == "PS4222532"


def test_the_later_word_of_a_brand_still_names_a_part() -> None:
    filters = AIMessage(
        "1. **Refrigerator Air Filter** (PS2580853) · $16.76\n"
        "2. **Refrigerator Ice and Water Filter** (PS11701542) · $75.79"
    )
    assert referenced_part(convo("the air one not the water one", filters)) == "PS2580853"


def test_yea_that_one_picks_the_one_part_of_the_kind_asked_for() -> None:
    one = AIMessage("1. **Rinse Aid Reservoir** (PS11747725) · $52.48 · In Stock")
    said = "yea that one, how do i swap it out"
    assert referenced_part([HumanMessage("rinse aid thing?"), one, HumanMessage(said)]) == (
        "PS11747725"
    )


def test_make_that_the_other_colour_picks_it_from_the_list_before() -> None:
    gaskets = AIMessage(
        "1. **Door Gasket - White** (PS11759516) · $125.08\n"
        "2. **Door Gasket - Gray** (PS11759515) · $125.08"
    )
    white = AIMessage("**Door Gasket - White** (PS11759516) · $125.08 · In Stock")
    messages = [*convo("the white one", gaskets), white]
    said = "hmm actually make that the gray one, same price?"
    assert referenced_part([*messages, HumanMessage(said)]) == "PS11759515"


def test_a_part_named_with_a_price_question_is_that_part_not_the_cheaper_of_its_kind() -> None:
    switches = AIMessage(
        "1. **Door Light Switch** (PS11738900) · $39.86\n"
        "2. **Refrigerator Door Switch** (PS12728638) · $29.37"
    )
    said = "hmm and the door light switch, is that one any cheaper?"
    assert referenced_part(convo(said, switches)) == "PS11738900"
    assert referenced_part(convo("the cheaper switch", switches)) == "PS12728638"


def test_the_first_part_asked_about_is_the_first_shown_one_at_a_time() -> None:
    messages = [
        HumanMessage("PS652226 how much"),
        AIMessage("**Ice Funnel** (PS652226) · $20.00 · In Stock"),
        HumanMessage("and PS1766247?"),
        AIMessage("**Condenser Fan Motor** (PS1766247) · $47.95 · In Stock"),
        HumanMessage("ok the first one i asked about, does it fit a A4425GDTABB"),
    ]
    assert referenced_part(messages) == "PS652226"


def test_never_mind_and_what_even_name_no_part() -> None:
    gaskets = AIMessage(
        "1. **Door Gasket - White** (PS11759516) · $125.08\n"
        "2. **Door Gasket - Gray** (PS11759515) · $125.08"
    )
    white = AIMessage("**Door Gasket - White** (PS11759516) · $125.08 · In Stock")
    messages = [*convo("the white one", gaskets), white]
    said = "hmm my fridge is actually bisque not white lol. never mind, the gray one then"
    assert referenced_part([*messages, HumanMessage(said)]) == "PS11759515"
    assert referenced_part(convo("what even is the door seal one")) == "PS12348515"


def test_a_place_with_a_part_type_the_newest_list_lacks_is_in_the_list_before() -> None:
    arms = AIMessage("1. **Spray Arm** (PS8737036) · $25.84\n2. **Tube** (PS12072215) · $43.28")
    tubes = AIMessage("Here's what I found:\n1. **TUBE** (PS12072215) · $43.28")
    messages = [*convo("whats wrong", arms), HumanMessage("what even is the tube one"), tubes]
    said = "hm ok. what about the first spray arm, is that hard to swap?"
    assert referenced_part([*messages, HumanMessage(said)]) == "PS8737036"
    assert referenced_part([*messages, HumanMessage("the first one")]) == "PS12072215"


def test_a_name_told_among_other_words_picks_the_part_with_most_of_them() -> None:
    hoses = AIMessage(
        "1. **HOSE-DRAIN** (PS8737004) · $24.76\n2. **Drain Pump** (PS11753379) · $59.95"
    )
    assert referenced_part(convo("the one called HOSE-DRAIN", hoses)) == "PS8737004"
    # another part type, a word that tells parts of a kind apart, or whether it is there:
    # no pick
    arms = AIMessage(
        "1. **Middle Spray Arm Kit** (PS382824) · $32.95\n2. **Drain Pump** (PS1) · $9.00"
    )
    assert referenced_part(convo("the lower spray arm one", arms)) is None
    assert referenced_part(convo("do u have the middle spray arm in there", arms)) is None
    assert referenced_part(convo("the one called drain valve", hoses)) is None


def test_pointing_at_a_search_result_without_naming_it_is_the_best_match() -> None:
    found = AIMessage(
        "Here's what I found for your 2213479N413:\n"
        "1. **Upper Spray Arm** (PS11752935) · $51.40 · In Stock\n"
        "2. **Lower Spray Arm** (PS11752936) · $41.40 · In Stock"
    )
    for text in ("yep thats the one, how much", "that one, $?", "how much is it", "ok that one"):
        assert referenced_part(convo(text, found)) == "PS11752935", text
    # a diagnosis lists several suspects: "that one" is still unclear there
    assert referenced_part(convo("ok that one")) is None
    # a place or a name said is that part
    assert referenced_part(convo("the second one", found)) == "PS11752936"
    assert referenced_part(convo("the lower one, how much", found)) == "PS11752936"


def test_after_a_picked_search_result_a_question_naming_nothing_is_about_that_part() -> None:
    found = AIMessage(
        "Here's what I found for your 2213479N413:\n"
        "1. **Upper Spray Arm** (PS11752935) · $51.40 · In Stock\n"
        "2. **Lower Spray Arm** (PS11752936) · $41.40 · In Stock"
    )
    lower = AIMessage("**Lower Spray Arm** (PS11752936) · $41.40 · In Stock")
    messages = [*convo("the second one", found), lower]
    # not the search's best match two answers back: the part in focus (none picked)
    for said in ("whats the price", "and for my 2213229N414?", "how much is it"):
        assert referenced_part([*messages, HumanMessage(said)]) is None, said
    assert referenced_part([*messages, HumanMessage("the first one")]) == "PS11752935"
    assert referenced_part([*messages, HumanMessage("the upper one")]) == "PS11752935"


def test_a_remark_on_the_part_in_focus_and_going_back_name_the_list_before() -> None:
    listed = AIMessage(
        "For *Will not start* on your FFID2426TS4A, these parts are the usual fix:\n"
        "1. **BOARD,CONTROL FIA** (PS16661027) · $117.32 · In Stock\n"
        "2. **Control Button Assembly** (PS12585991) · $73.21 · In Stock\n"
        "3. **Capacitor** (PS11757023) · $42.95 · In Stock"
    )
    board = AIMessage("**BOARD,CONTROL FIA** (PS16661027) · $117.32 · In Stock")
    messages = [*convo("the board one", listed), board]
    # the $117 said is the board's, a remark: the part named is the button assembly
    said = "117 bucks hmm. what about the button assembly one"
    assert referenced_part([*messages, HumanMessage(said)]) == "PS12585991"
    said = "hmm go back, what does the capacitor do"
    assert referenced_part([*messages, HumanMessage(said)]) == "PS11757023"
    said = "ok ill start w the capacitor. how do i put it in"
    assert referenced_part([*messages, HumanMessage(said)]) == "PS11757023"


def test_that_one_first_after_a_search_is_its_best_match_whatever_is_asked_next() -> None:
    found = AIMessage(
        "Here's what I found for your 2213809N710:\n"
        "1. **Dishwasher INLET VALVE** (PS12578165) · $52.45 · In Stock\n"
        "2. **Dishwasher Drain Hose** (PS11760658) · $78.72 · In Stock"
    )
    said = "that one. does it come with the hose or just the valve? and whats the price"
    assert referenced_part(convo(said, found)) == "PS12578165"
    assert referenced_part(convo("that one, the drain hose", found)) == "PS11760658"


def test_the_top_result_is_the_first_listed() -> None:
    found = AIMessage(
        "Here's what I found for your 10639434990:\n"
        "1. **Refrigerator Crisper Pan** (PS11738958) · $89.24 · In Stock\n"
        "2. **Crisper Drawer Cover** (PS11738959) · $40.00 · In Stock"
    )
    for text in ("the top result", "top hit pls"):
        assert referenced_part(convo(text, found)) == "PS11738958", text
    assert referenced_part(convo("the top rack one", found)) is None


def test_it_right_after_a_search_is_its_best_match() -> None:
    found = AIMessage(
        "Here's what I found for your EDWF800P00WW:\n"
        "1. **Tub Gasket** (PS958888) · $51.43 · In Stock\n"
        "2. **TRIM GASKET** (PS958905) · $20.74 · In Stock"
    )
    assert referenced_part(convo("how do i replace it", found)) == "PS958888"
    for said in (
        "and how do i change that out",
        "whats the best way to get that out and a fresh one in",
        "how do i mount it",  # "mount" is also a part type: here it is the fitting
        "how do i attach it",
        "howd i bolt that on",
        "righto, how do i pop it in",
        "hows it clip on",
        # words of effort or courtesy name no part
        "can i replace it myself",
        "is it easy to put on",
        # moving the appliance to reach the part names no part ("unit" is a part type)
        "how do i install it, do i need to pull the unit out",
        "how do i replace it, do i have to slide the dishwasher out",
    ):
        assert referenced_part(convo(said, found)) == "PS958888", said
    assert referenced_part(convo("thats it, thanks", found)) is None  # a closing
    assert referenced_part(convo("how do i send it back in", found)) is None  # a return
    # not when another answer came after the search
    later = [*convo("is the tub gasket in there", found), AIMessage("You're welcome!")]
    assert referenced_part([*later, HumanMessage("how do i replace it")]) is None


def test_whether_it_fits_another_model_right_after_a_search_is_the_best_match() -> None:
    found = AIMessage(
        "Here's what I found for your 36211XBRFRWW:\n"
        "1. **Condenser Fans Blade Assembly** (PS1022410) · $18.95 · In Stock\n"
        "2. **Condenser Fan Motor** (PS967022) · $52.42 · In Stock"
    )
    for said in (
        "does it fit 36411XBRERWW too?",
        "would that also fit my sisters 36411XBRERWW? she has the same one",
    ):
        assert referenced_part(convo(said, found)) == "PS1022410", said
    # a part type said is another part: its own search
    assert referenced_part(convo("does the door gasket fit it too?", found)) is None
    # a listed part named is that one
    assert referenced_part(convo("does the motor fit it?", found)) == "PS967022"
    # which of them fits is the options, a search
    assert referenced_part(convo("which of those fits it? its a 36411XBRERWW", found)) is None


def test_the_word_one_names_a_listed_part_the_part_in_focus_is_not() -> None:
    found = AIMessage(
        "Here's what I found for your 4070510:\n"
        "1. **Middle Spray Arm** (PS1015640) · $33.95 · In Stock\n"
        "2. **Lower Spray Arm - Gray** (PS1020205) · $101.71 · In Stock"
    )
    lower = AIMessage("**Lower Spray Arm - Gray** (PS1020205) · $101.71 · In Stock")
    messages = [*convo("the lower one, whats that cost", found), lower]
    said = "101 dollars lol no. ok how do i put the middle one in"
    assert referenced_part([*messages, HumanMessage(said)]) == "PS1015640"
    # a word the part in focus has is that part, not the list's
    said = "ok how do i put the gray one in"
    assert referenced_part([*messages, HumanMessage(said)]) in (None, "PS1020205")


def test_a_place_word_the_part_in_focus_lacks_names_another_listed_part() -> None:
    listed = AIMessage(
        "For *Noisy* on your 4070110, these parts are the usual fix:\n"
        "1. **Motor and Drain Pump** (PS1766031) · $238.72 · In Stock\n"
        "2. **Upper Spray Arm Bearing** (PS2353863) · $7.87 · In Stock\n"
        "3. **Middle Spray Arm** (PS1015640) · $33.95 · In Stock"
    )
    card = AIMessage("**Upper Spray Arm Bearing** (PS2353863) · $7.87 · In Stock")
    messages = [*convo("the 2nd one", listed), card]
    for said in (
        "actually does the middle spray arm fit my other GE, its a 4070510",
        "how much is the middle spray arm",
    ):
        assert referenced_part([*messages, HumanMessage(said)]) == "PS1015640", said
    # the part in focus's own words, or another word for its place, keep it
    said = "does the spray arm fit a 4070510"
    assert referenced_part([*messages, HumanMessage(said)]) == "PS2353863"
    seals = AIMessage("**Door Seal Lower** (PS11766757) · $55.03 · In Stock")
    said = "how much is the bottom seal"
    assert referenced_part([*convo("the first one", seals), HumanMessage(said)]) == "PS11766757"


def test_a_word_of_one_listed_name_alone_picks_it_and_a_negated_name_does_not() -> None:
    listed = AIMessage(
        "For *Not cleaning dishes properly* on your CDB6100AWE, these parts are the usual fix:\n"
        "1. **Upper Spray Arm Assembly** (PS11747612) · $9.95 · In Stock\n"
        "2. **Impeller Assembly** (PS11747641) · $49.32 · In Stock\n"
        "3. **Upper Spray Arm Nut** (PS11738161) · $9.95 · In Stock"
    )
    card = AIMessage("**Upper Spray Arm Assembly** (PS11747612) · $9.95 · In Stock")
    messages = [*convo("wheres the upper spray arm on that list", listed), card]
    said = "the assembly, not the nut"
    assert referenced_part([*messages, HumanMessage(said)]) == "PS11747612"
    # in the list alone, "assembly" is two parts' word and the nut is ruled out
    assert referenced_part(convo(said, listed)) is None


def test_the_whole_of_a_part_beside_a_piece_of_it_denied_picks_the_whole() -> None:
    listed = AIMessage(
        "Here's what I found for your DDW261RAB:\n"
        "1. **Upper Spray Arm Assembly** (PS11747612) · $9.95 · In Stock\n"
        "2. **Upper Spray Arm Nut** (PS11738161) · $9.95 · In Stock\n"
        "3. **Wash Arm Support** (PS2099458) · $34.19"
    )
    for said in (
        "the whole assembly",
        "the entire assembly pls",
        "the whole assembly not just the nut",
        "the assembly not only the nut",
        "not the spray arm nut, the assembly",
    ):
        assert referenced_part(convo(said, listed)) == "PS11747612", said
    assert referenced_part(convo("just the nut", listed)) == "PS11738161"


def _found(*parts: tuple[str, str, str]) -> AIMessage:
    """A search's answer listing these (name, PS number, price), in order."""
    lines = [
        f"{i}. **{n}** ({ps}) · {price} · In Stock" for i, (n, ps, price) in enumerate(parts, 1)
    ]
    return AIMessage("Here's what I found for your model:\n" + "\n".join(lines))


_BULBS = _found(
    ("Light Bulb - 40W", "PS884734", "$17.80"), ("Door Light Switch", "PS11738900", "$72.22")
)
_HINGES = _found(
    ("Refrigerator Center Door Hinge", "PS11739891", "$45.12"),
    ("Refrigerator Screw", "PS11742758", "$11.95"),
)


@pytest.mark.parametrize(
    ("listing", "said", "expected"),
    [
        # how hard the fitting is names no part
        (_found(("Torsion-Fit Spring", "PS2374786", "$17.95")), "is it a long job to put in?",
         "PS2374786"),
        # a price or a wattage in words
        (_BULBS, "the 40 watt one", "PS884734"),
        (_BULBS, "the 72 dollar one", "PS11738900"),
        # what comes in the box is no pick
        (_HINGES, "how do i put it on, and does it come w/ screws", "PS11739891"),
        (_HINGES, "the screw one, how do i put it on", "PS11742758"),
        # putting a named listed part in is its fitting
        (_found(("Defrost Heater", "PS303768", "$68.26")),
         "how do i put that heater in, looks like a pain", "PS303768"),
    ],
)  # fmt: skip
def test_a_pick_from_a_search_list(listing: AIMessage, said: str, expected: str) -> None:
    assert referenced_part(convo(said, listing)) == expected


def test_a_place_past_the_end_of_the_list_gives_its_length() -> None:
    # LIST_ANSWER lists three parts
    for text in ("the 7th one", "ok lets go with the 9", "the fifth one pls", "number 4", "#6"):
        assert place_past_the_end(convo(text)) == 3, text
        assert referenced_part(convo(text)) is None, text
    for text in (
        "the 3rd one",  # listed
        "the last one",
        "can it be here by the 9th",  # a day
        "the 5th of december works",
        "the fifth drain hose",  # a part type: a search
        "hi",
        # another appliance, not a place: "a second one", "an eighth one"
        "will that work in 10651793410 too? we got a fifth one in the basement",
        "does it fit an eighth one we have",
    ):
        assert place_past_the_end(convo(text)) is None, text
    assert place_past_the_end(convo("the 7th one", AIMessage("Hi there!"))) is None


def test_a_thing_only_one_appliance_holds_tells_it() -> None:
    assert tells_appliance("the dishes come out soaking wet", "dishwasher")
    assert tells_appliance("water wont go out of it after the wash", "dishwasher")
    assert tells_appliance("thick frost on the back wall", "refrigerator")
    assert tells_appliance("milk goes off in two days", "refrigerator")
    assert not tells_appliance("wont drain, theres water in the bottom", "dishwasher")
    assert not tells_appliance("the light inside stays dark", "refrigerator")
    assert not tells_appliance("the door latch is broken", "dishwasher")
    assert not tells_appliance("the dishes come out soaking wet", "refrigerator")


def test_a_place_said_as_a_result_or_a_match_is_a_place() -> None:
    assert referenced_part(convo("ok show me that first result")) == "PS11753379"
    assert referenced_part(convo("the second match pls")) == "PS11759673"


def test_a_price_asked_in_slang_picks_the_part_named() -> None:
    bearings = AIMessage(
        "1. **Crisper Support - Rear** (PS2358879) · $14.95 · In Stock\n"
        "2. **Hinge Bearing** (PS976452) · $29.95 · In Stock\n"
        "3. **Ice Chute Door** (PS1526426) · $48.95 · In Stock"
    )
    for text in (
        "the bearing one whats that run",
        "what does the hinge bearing go for",
        "the hinge bearing, whats it go for",
    ):
        assert referenced_part(convo(text, bearings)) == "PS976452", text
    assert referenced_part(convo("what does the first one run", bearings)) == "PS2358879"
    # what goes in it is the options, not a price
    assert referenced_part(convo("what hinge goes on a 25344352401", bearings)) is None


def test_the_newest_list_size_counts_numbered_items_whatever_the_numbers() -> None:
    store = AIMessage("1. **Pump** (AB-10234) · $5\n2. **Hose** (AB-10235) · $6\n\nWant steps?")
    assert newest_list_size([HumanMessage("x"), store, HumanMessage("the 7th")]) == 2
    assert newest_list_size([HumanMessage("x"), AIMessage("Hi there!")]) == 0


def test_two_appliances_of_ones_own_name_another() -> None:
    for text in ("fits 71053 too? we got two lgs", "i have 2 fridges", "we own two LG fridges"):
        assert names_another_appliance(text), text
    for text in ("i have 2 questions", "i have 2 kids, the fridge is always open"):
        assert not names_another_appliance(text), text
