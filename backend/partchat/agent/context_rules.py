"""The context rules, pure: how one message's extraction updates the session context."""

from __future__ import annotations

from collections.abc import Collection

from partchat.agent.state import AgentState
from partchat.nlu.extraction import Extraction

# A symptom that is two others at once: the fridge warm and the freezer warm is the
# catalog's *Fridge and freezer are too warm* (the corpus never labels the parts with it).
_WHOLES = {"Fridge and freezer are too warm": ("Fridge too warm", "Freezer section too warm")}


def merged_symptoms(labels: list[str]) -> list[str]:
    """``labels`` with a whole symptom in place of its parts: both parts become the whole
    (said in one message or over several), and the whole makes its parts redundant."""
    out = list(labels)
    for whole, parts in _WHOLES.items():
        if whole not in out and all(p in out for p in parts):
            out[out.index(parts[0])] = whole
        if whole in out:
            out = [label for label in out if label not in parts]
    return out


# The same trouble in the other compartment: "sorry, I meant the freezer" after "the
# fridge is too warm".
_IN_COMPARTMENT = {
    "freezer": {
        "Fridge too warm": "Freezer section too warm",
        "Fridge too cold": "Freezer too cold",
        "Fridge and freezer are too warm": "Freezer section too warm",
    },
    "fridge": {
        "Freezer section too warm": "Fridge too warm",
        "Freezer too cold": "Fridge too cold",
        "Fridge and freezer are too warm": "Fridge too warm",
    },
}


def moved_to(compartment: str, labels: list[str]) -> list[str]:
    """``labels`` with each compartment symptom moved to ``compartment``."""
    table = _IN_COMPARTMENT.get(compartment, {})
    return list(dict.fromkeys(table.get(label, label) for label in labels))


def apply_extraction(
    state: AgentState,
    found: Extraction,
    *,
    replace_symptoms: bool = False,
    moved_on: bool = False,
    corrected: bool = False,
    denied: Collection[str] = (),
) -> AgentState:
    """The context rules, pure: new model replaces; symptoms accumulate per appliance.

    The appliance comes from the words, else from a known model. A different appliance
    clears the symptoms gathered for the old one (and a model of the other appliance).
    A correction ("no wait, it just won't drain") replaces the symptoms with the
    message's own (``replace_symptoms``); so does a message that says the trouble before
    is over and tells another (``moved_on``: its symptoms not said before, as the one
    said again is the one over: "isn't warm anymore, but now it frosts up"); a symptom
    the message says is not the problem (``denied``: "it's not leaking") leaves them.
    Of several part numbers in one message the first named is the one in focus ("how
    much are PS1 and PS2", "the difference between PS1 and PS2"), the last in a
    correction ("not PS1, sorry, PS2": ``corrected``).
    """
    update = AgentState(
        model_changed_from=None,
        unknown_model=None,
        model_suggestions=[],
        other_models=[],
        unknown_part=None,
        mentioned_part=None,
    )
    model = state.get("product_model")
    appliance = state.get("appliance_type")
    symptoms = list(state.get("symptoms") or [])

    known = [m for m in found["models"] if m["known"]]
    unknown = [m for m in found["models"] if not m["known"]]
    new_appliance = found["appliance"]
    if known:
        chosen = known[-1]
        if chosen["model"] != model:
            if model is not None:
                update["model_changed_from"] = model
            model = chosen["model"]
        new_appliance = new_appliance or chosen["appliance"]
        others = [m["model"] for m in known[:-1] if m["model"] != chosen["model"]]
        update["other_models"] = list(dict.fromkeys(others))[-2:]
    elif unknown:
        update["unknown_model"] = unknown[-1]["model"]
        update["model_suggestions"] = unknown[-1]["suggestions"]

    if new_appliance is not None and new_appliance != appliance:
        if appliance is not None:
            symptoms = []
            if not known:
                model = None
        appliance = new_appliance

    said = found["symptoms"]
    if moved_on and (fresh := [label for label in said if label not in symptoms]):
        symptoms, said = [], fresh
    if replace_symptoms and said:
        symptoms = []
    symptoms = [label for label in symptoms if label not in denied]
    for label in said:
        if label not in symptoms:
            symptoms.append(label)

    focus = found["part_numbers"][-1 if corrected else 0] if found["part_numbers"] else None
    update["part_number"] = focus or state.get("part_number")
    if focus:
        update["mentioned_part"] = focus
    if found["unknown_part_numbers"] and not found["part_numbers"]:
        update["unknown_part"] = found["unknown_part_numbers"][-1]

    update["product_model"] = model
    update["appliance_type"] = appliance
    update["symptoms"] = merged_symptoms(symptoms)[-10:]
    return update
