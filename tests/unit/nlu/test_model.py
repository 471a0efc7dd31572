"""Features, training and scoring of the understanding model, on small hand-made sets."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, HumanMessage

from partchat.nlu.dialogue import resolve_intent
from partchat.nlu.features import features, normalize
from partchat.nlu.model import ModelMismatch, Understanding
from partchat.nlu.train import Example, train

EXAMPLES = [
    Example("my dishwasher is not draining", "diagnose", ("not-draining",)),
    Example("water left at the bottom of the dishwasher", "diagnose", ("not-draining",)),
    Example("dw wont drain anymore", "diagnose", ("not-draining",)),
    Example("fridge is leaking water on the floor", "diagnose", ("leaking",)),
    Example("puddle under my refrigerator", "diagnose", ("leaking",)),
    Example("leaky fridge what do i swap", "diagnose", ("leaking",)),
    Example("how do i install PS11752778", "install", ()),
    Example("how do I fit it", "install", ()),
    Example("how to put in the new pump PS11753379", "install", ()),
    Example("does PS11752778 fit my WDT780SAEM1", "compat", ()),
    Example("will it work with 10640262010", "compat", ()),
    Example("is PS3406971 compatible with my model", "compat", ()),
    Example("it's a 10640262010", "answer", ()),
    Example("model is WDT780SAEM1", "answer", ()),
    Example("the second one", "answer", ()),
    Example("hi there", "greeting", ()),
    Example("hello", "greeting", ()),
    Example("hey!", "greeting", ()),
]


def test_numbers_become_placeholders() -> None:
    assert normalize("Does PS11752778 fit WDT780SAEM1?") == "does psnum fit modelnum qmark"
    assert normalize("it's a 10640262010") == "its a modelnum"
    assert normalize("won't") == "wont"


def test_features_are_words_pairs_and_character_grams() -> None:
    f = features("Fridge leaking")
    assert f["w:fridge"] == 1
    assert f["b:fridge leaking"] == 1
    assert f["b:<s> fridge"] == 1
    assert f["c: fr"] == 1
    assert f["c:akin"] == 1
    assert not any(k.startswith("c:") and "psnum" in k for k in features("PS11752778"))


def test_training_is_deterministic() -> None:
    a = json.dumps(train(EXAMPLES))
    b = json.dumps(train(EXAMPLES))
    assert a == b


def test_scores_unseen_phrasings() -> None:
    model = Understanding(train(EXAMPLES))
    assert model.score("how do i install PS3406971 please").intent == "install"
    assert model.score("does PS11753379 fit 10640262010?").intent == "compat"
    assert model.score("hello there").intent == "greeting"
    reading = model.score("the dishwasher won't drain")
    assert reading.intent == "diagnose"
    assert reading.slugs[0] == "not-draining"
    assert reading.no_symptom < 0.5
    assert model.score("how do i install PS3406971").no_symptom > 0.5


def test_a_model_of_other_features_is_refused() -> None:
    data = train(EXAMPLES)
    data["features_version"] = -1
    try:
        Understanding(data)
    except ModelMismatch as exc:
        assert "features" in str(exc)
    else:
        raise AssertionError("ModelMismatch not raised")


def test_an_answer_continues_the_job_the_assistant_asked_about() -> None:
    model = Understanding(train(EXAMPLES))
    messages = [
        HumanMessage("my dishwasher is not draining"),
        AIMessage("Could you tell me your appliance's **model number**?"),
        HumanMessage("it's a WDF520PADM7"),
    ]
    assert resolve_intent("answer", messages, model, picked_part=False) == "diagnose"
    # Not after a statement: nothing was asked.
    messages[1] = AIMessage("Here are the parts.")
    assert resolve_intent("answer", messages, model, picked_part=False) == "answer"
    # A pick from a list is about that part.
    messages[1] = AIMessage("1. **Pump** (PS11753379)\nWant installation steps for one of these?")
    assert resolve_intent("answer", messages, model, picked_part=True) == "details"
    # "yes" to offered installation steps.
    messages[1:] = [AIMessage("... Want the installation steps?"), HumanMessage("yes please")]
    assert resolve_intent("answer", messages, model, picked_part=False) == "install"
    # A message with its own job keeps it.
    assert resolve_intent("compat", messages, model, picked_part=False) == "compat"
