"""The extract node: update the session context from the newest user message."""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from partchat.agent.context_rules import apply_extraction, merged_symptoms, moved_to
from partchat.agent.list_picks import place_past_the_end, referenced_part
from partchat.agent.state import AgentState
from partchat.catalog.types import CatalogReader
from partchat.nlu.dialogue import (
    ANSWER,
    NO_MODEL,
    PAST_THE_END,
    awaits_reply,
    bare,
    corrected_compartment,
    corrects,
    lacks_model,
    model_for_a_wide_list,
    model_then_aside,
    moves_on,
    names_another_appliance,
    only_gives_a_model,
    only_names_the_appliance,
    resolve_intent,
    tells_appliance,
    what_is_said,
)
from partchat.nlu.extraction import Extraction, extract
from partchat.nlu.features import normalize
from partchat.nlu.model import Understanding
from partchat.nlu.reading import read
from partchat.nlu.rules import asks_the_fit_in_words
from partchat.nlu.spelling import respell

_YES = re.compile(
    r"^\s*(yes|yeah|yep|yup|correct|right|exactly|that'?s (it|right|the one|correct)|"
    r"that one|sure|ok(ay)?)\b[\s!.,]*(that'?s (it|right|the one)|please|thanks?)?[\s!.]*$",
    re.IGNORECASE,
)
_DID_YOU_MEAN = re.compile(r"did you mean\b(.{0,200})", re.IGNORECASE | re.DOTALL)


def confirmed_suggestion(messages: Sequence[BaseMessage]) -> str | None:
    """The text after "Did you mean" in the previous answer, when the newest user message
    only says yes to it (so "yes" after "Did you mean WDT780SAEM1?" sets that model)."""
    if len(messages) < 2 or not isinstance(messages[-1], HumanMessage):
        return None
    if not _YES.match(messages[-1].text):
        return None
    previous = messages[-2]
    if not isinstance(previous, AIMessage):
        return None
    m = _DID_YOU_MEAN.search(previous.text)
    return m.group(1).split("?", 1)[0] if m else None


async def _extract_with_confirmation(
    found: Extraction,
    messages: Sequence[BaseMessage],
    catalog: CatalogReader,
    past_the_end: bool = False,
) -> bool:
    """Complete ``found`` from the conversation: "yes" to a suggested model, "the second
    one" from the parts just listed. True when a listed part was picked."""
    suggested = confirmed_suggestion(messages)
    if suggested is not None and not found["models"]:
        offered = await extract(suggested, catalog)
        known = [m for m in offered["models"] if m["known"]]
        if len(known) == 1:  # one clear suggestion: "yes" means that model
            found["models"] = known
    if not found["part_numbers"] and not found["unknown_part_numbers"] and not past_the_end:
        # (a place no list has picks nothing: "the 2nd one, is it in stock" after a list of
        # one is not that one part by its "it"; the shopper is told how many there are)
        pointed = referenced_part(messages, await catalog.part_number_pattern())
        part = await catalog.get_part(pointed) if pointed else None
        if part is not None:
            found["part_numbers"] = [part["ps_number"]]
            return True
    return False


def make_extract_node(catalog: CatalogReader, understanding: Understanding):  # type: ignore[no-untyped-def]
    async def extract_node(state: AgentState) -> AgentState:
        messages = state.get("messages") or []
        last = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
        if last is None:
            return AgentState()
        # the filler that opens a message says nothing ("hmm ty", "ok so a GE dishwasher"),
        # nor a greeting before a part or a number ("hey, evaporator fan motor 10632249101?")
        said = what_is_said(last.text)
        reading = await read(
            said,
            catalog,
            understanding,
            context_appliance=state.get("appliance_type"),
            awaited=awaits_reply(messages),
        )
        found = reading.found
        states_symptom = bool(reading.symptom_ids)
        if found["appliance"] and only_names_the_appliance(said, messages):
            # "fridge haha" to "a refrigerator or a dishwasher?": the trouble told before
            found["symptoms"] = []
            states_symptom = False
        # the dialogue's word patterns read the message with its question words put right
        # ("evap fan moter, in stok?") and without the filler that opens it ("ok so 2nd
        # looks right"); the reading above had the shopper's own
        seen = [*messages[:-1], HumanMessage(respell(said))] if messages[-1] is last else messages
        past_the_end = (
            not found["part_numbers"]
            and not found["unknown_part_numbers"]
            and place_past_the_end(seen, await catalog.part_number_pattern()) is not None
        )
        picked = await _extract_with_confirmation(found, seen, catalog, past_the_end)
        correction = corrects(said)
        update = apply_extraction(
            state,
            found,
            replace_symptoms=correction,
            moved_on=moves_on(said),
            corrected=correction,
            denied=reading.denied,
        )
        compartment = corrected_compartment(said)
        if (
            compartment is not None
            and not found["symptoms"]
            and not found["models"]
            and not found["part_numbers"]
        ):
            # "i mean fridge sorry": the symptom said before, in the other compartment
            update["symptoms"] = moved_to(compartment, list(update.get("symptoms") or []))
        update["intent"] = resolve_intent(
            reading.intent,
            seen,
            understanding,
            picked_part=picked,
            names_part=bool(found["part_numbers"]) and not picked,
            states_symptom=states_symptom,
            known_model=any(m["known"] for m in found["models"]),
        )
        if past_the_end:
            update["intent"] = PAST_THE_END  # "the 7th one" after five parts
        if update.get("model_changed_from") and names_another_appliance(said):
            # "does it fit my sister's WDT780SAEM1 too?": that model is the one in question
            # now, but it is not the shopper's own, so no "switched your model" note
            update["model_changed_from"] = None
        elif not found["models"] and _MINE.search(said):
            # "and how do i put it in on mine" after a fit check for another appliance:
            # back to the shopper's own model
            own = await _own_model(messages[:-1], catalog)
            if own is not None and own != update.get("product_model"):
                update["model_changed_from"] = update.get("product_model")
                update["product_model"] = own
        if (
            lacks_model(said, messages)
            and not update.get("product_model")
            and not (states_symptom or found["part_numbers"])
        ):
            # "i don't know the model, it's a kenmore": where to find it, not the job
            # again (a message with a problem or a part of its own still gets its job)
            update["intent"] = NO_MODEL
        update["continues"] = (
            reading.intent == ANSWER
            or bare(said)
            or only_gives_a_model(said)
            or model_then_aside(said)
            or model_for_a_wide_list(said, messages)
        ) and update["intent"] in ("search", "details", "compat", "diagnose", "install")
        if update.get("appliance_type") is None and reading.symptom_ids:
            implied = {sid.split("/", 1)[0] for sid in reading.symptom_ids}
            if len(implied) == 1 and tells_appliance(said, app := implied.pop()):
                # "the dishes come out wet": the dishwasher; "wont drain" alone: which one?
                update["appliance_type"] = app  # type: ignore[typeddict-item]
        newly_known = state.get("appliance_type") is None and update.get("appliance_type")
        if update["intent"] == "diagnose" and (newly_known or not update.get("symptoms")):
            update["symptoms"] = await _earlier_symptoms(messages, update, catalog, understanding)
        return update

    return extract_node


# The shopper's own appliance, after another's was asked about ("on mine", "my own").
_MINE = re.compile(
    r"\b(on|for|in|to) mine\b|\bmy own\b|\bfor me\b|\bmines\b|"
    # "ok going back to the list, the first spray arm": the list made for their own
    r"\bback to (the|that|your|ur) (first |original |earlier )?list\b",
    re.IGNORECASE,
)


async def _own_model(messages: Sequence[BaseMessage], catalog: CatalogReader) -> str | None:
    """The model the shopper last gave as their own, when a later message gave another
    appliance's (none otherwise: the model in focus is then theirs)."""
    others = False
    for m in reversed([m for m in messages if isinstance(m, HumanMessage)][-8:]):
        found = await extract(m.text, catalog)
        known = [x["model"] for x in found["models"] if x["known"]]
        if not known:
            continue
        if names_another_appliance(m.text) or (
            not others and asks_the_fit_in_words(normalize(m.text))
        ):
            # ("does 242303001 work in a CRSE263TS0 too" then "how would i swap it on
            # mine": the model whose fit was asked last is the other one)
            others = True
            continue
        return known[-1] if others else None
    return None


async def _earlier_symptoms(
    messages: Sequence[BaseMessage],
    update: AgentState,
    catalog: CatalogReader,
    understanding: Understanding,
) -> list[str]:
    """A diagnosis whose symptoms were said before the appliance was known ("it's
    leaking" → "which appliance?" → "the dishwasher"): read the earlier messages again
    (a symptom both appliances have is only recognised once the appliance is)."""
    appliance = update.get("appliance_type")
    if appliance is None:
        return []
    earlier = [m for m in messages[:-1] if isinstance(m, HumanMessage)][-3:]
    found = list(update.get("symptoms") or [])
    for m in earlier:
        again = await read(m.text, catalog, understanding, context_appliance=appliance)
        found += [label for label in again.found["symptoms"] if label not in found]
    return merged_symptoms(found)[-10:]
