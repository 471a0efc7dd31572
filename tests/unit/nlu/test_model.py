"""Features, training and scoring of the understanding model, on small hand-made sets."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from partchat.nlu.dialogue import (
    DECLINE,
    awaits_reply,
    before_courtesy,
    declines,
    fit_asked_first,
    intent_of,
    lacks_model,
    model_then_aside,
    moves_on,
    names_only_a_part_type,
    only_gives_a_model,
    pending_job,
    resolve_intent,
    thanks_with_a_plan,
    unawaited,
    without_opening_filler,
    without_opening_greeting,
)
from partchat.nlu.features import (
    FITTED_IN,
    features,
    negated_words,
    nonstop,
    normalize,
    part_type_named,
    without_fine_clauses,
)
from partchat.nlu.model import ModelMismatch, Scores, Understanding
from partchat.nlu.train import Example, origin, train

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


def test_examples_are_weighted_by_where_they_come_from() -> None:
    assert origin("so-0174") == origin("df-0041") == origin("dlg-0003#2") == "original"
    assert origin("tr-sd-0012") == origin("dv-fq-001") == "later"
    assert origin(None) == "catalog"


def test_a_heavier_example_moves_the_fit_and_weight_one_changes_nothing() -> None:
    plain = train(EXAMPLES)
    assert train([Example(e.text, e.intent, e.slugs, 1.0) for e in EXAMPLES]) == plain
    heavier = [
        Example(e.text, e.intent, e.slugs, 5.0 if i == 0 else 1.0) for i, e in enumerate(EXAMPLES)
    ]
    assert train(heavier)["slug_weights"] != plain["slug_weights"]
    assert train(heavier)["intent_weights"] != plain["intent_weights"]


def test_the_intent_classifier_reads_only_the_features_of_two_texts_or_more() -> None:
    import numpy as np

    data = train(EXAMPLES)
    vocab = data["vocab"]
    intent = np.abs(np.asarray(data["intent_weights"])).sum(axis=0)
    slug = np.abs(np.asarray(data["slug_weights"])).sum(axis=0)
    once = vocab.index("w:puddle")  # one text says it
    assert intent[once] == 0 and slug[once] > 0
    assert intent[vocab.index("w:fridge")] > 0
    assert "w:puddle" not in train(EXAMPLES, min_df=2)["vocab"]


def test_scores_unseen_phrasings(model: Understanding) -> None:
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


def test_an_answer_continues_the_job_the_assistant_asked_about(model: Understanding) -> None:
    messages = [
        HumanMessage("my dishwasher is not draining"),
        AIMessage("Could you tell me your appliance's **model number**?"),
        HumanMessage("it's a WDF520PADM7"),
    ]
    assert resolve_intent("answer", messages, model, picked_part=False) == "diagnose"
    # A model given unasked: the same job, for that model.
    messages[1] = AIMessage("Here are the parts.")
    assert resolve_intent("answer", messages, model, picked_part=False) == "diagnose"
    # Anything else after a statement: nothing was asked.
    messages[2] = HumanMessage("whirlpool")
    assert resolve_intent("answer", messages, model, picked_part=False) == "answer"
    messages[2] = HumanMessage("it's a WDF520PADM7")
    # A pick from a list is about that part.
    messages[1] = AIMessage("1. **Pump** (PS11753379)\nWant installation steps for one of these?")
    assert resolve_intent("answer", messages, model, picked_part=True) == "details"
    # "yes" to offered installation steps.
    messages[1:] = [AIMessage("... Want the installation steps?"), HumanMessage("yes please")]
    assert resolve_intent("answer", messages, model, picked_part=False) == "install"
    # Words that only take up the offer take it, whatever they are read as.
    assert resolve_intent("compat", messages, model, picked_part=False) == "install"
    # A message with its own job keeps it.
    messages[-1] = HumanMessage("yes, does it fit a WDT780SAEM1")
    assert resolve_intent("compat", messages, model, picked_part=False) == "compat"


class _HeardAsAProblem(Understanding):
    """The classifier reads "hang on..." as a problem told (a model trained on other
    words can)."""

    def score(self, text: str) -> Scores:
        scores = super().score(text)
        return replace(scores, intent="diagnose") if "hang on" in text else scores


def test_a_model_corrected_after_a_fit_check_checks_the_fit_again() -> None:
    model = _HeardAsAProblem(train(EXAMPLES, min_df=2))
    fits = AIMessage("Yes! The **Water Filter** (PS10063209) fits your **CFE28TP4MBW2**.")
    messages = [
        HumanMessage("do you carry the RPWFE water filter? for our GE cafe fridge"),
        AIMessage("**Water Filter** (PS10063209) · $68.55 · In Stock"),
        HumanMessage("and itll fit mine?"),
        AIMessage("Could you tell me your appliance's **model number** so I can check the fit?"),
        # the model given as asked starts no job, whatever the classifier makes of it
        HumanMessage("hang on... CFE28TP4MBW2"),
        AIMessage(f"{fits.text}\n\nWant the installation steps?"),
        HumanMessage("sorry read it wrong, its CFE28TP4MCW2"),
    ]
    assert resolve_intent("answer", messages, model, picked_part=False, known_model=True) == (
        "compat"
    )
    # the part shown said to be the one, with thanks: nothing more is asked
    messages[-1] = HumanMessage("perfect thats the one, thx")
    assert resolve_intent("thanks", messages, model, picked_part=False) == "thanks"


_FIT_SHOWN = "Yes! The **Lower Spray Arm** (PS11770610) fits your **FGID2466QB0A**."
_TWO_LISTED = "1. **Lower Spray Arm** (PS11770610)\n2. **Pump** (PS11753379)"
_DRYING = "For *Not drying dishes properly*:\n1. **Heating Element** (PS3653449)"


@pytest.mark.parametrize(
    ("answer", "said", "states_symptom", "expected"),
    [
        # "pop in" heard as a door that pops open: no symptom found, one part shown
        (_FIT_SHOWN, "and is it easy to pop in?", False, "install"),
        (_FIT_SHOWN, "and is it easy to pop in?", True, "diagnose"),  # a problem told
        (_TWO_LISTED, "and is it easy to pop in?", False, "diagnose"),  # no part in focus
        # a name with a word the vocabulary lacks: that part, searched
        (_DRYING, "the blower vent thing", False, "search"),
        (_DRYING, "the door is stuck", False, "diagnose"),  # a state beside the name
    ],
)
def test_a_diagnosis_without_a_symptom_is_another_job_when_the_words_say_so(
    model: Understanding, answer: str, said: str, states_symptom: bool, expected: str
) -> None:
    messages = [HumanMessage("my dishwasher isnt drying"), AIMessage(answer), HumanMessage(said)]
    found = resolve_intent(
        "diagnose", messages, model, picked_part=False, states_symptom=states_symptom
    )
    assert found == expected


def test_small_numbers_are_one_placeholder() -> None:
    assert normalize("fridge at 48F, freezer -20") == "fridge at smallnum freezer smallnum"
    assert normalize("the 2nd one") == "the 2nd one"  # an ordinal keeps its word


def test_a_part_types_word_said_as_a_verb_names_no_part() -> None:
    for text in (
        "how do i mount it",
        "do i screw them in or clip them",
        "seal it up",
        "howd i bolt that on",  # "that" as the object before a particle
        "hows it clip on",
        "they wire in at the back",
    ):
        assert not part_type_named(text), text
    for text in (
        "the bolt that holds the hinge",
        "a wire that goes to the pump",
        "the mount",
        "do you have a mount for the upper spray arm",
        "a clip for it",
        "the switch that broke",  # a noun before a clause
        "is the seal it came with any good",
    ):
        assert part_type_named(text), text


def test_a_part_put_in_place_with_any_verb_is_a_fitting() -> None:
    for text in ("righto, how do i pop it in", "can i slot it in myself", "does it snap on?"):
        assert FITTED_IN.search(text), text
    for text in (
        "turn it on",
        "plug it in",
        "how do i send it back in",
        "can i get it in white",
        "do you have it in stock",
    ):
        assert not FITTED_IN.search(text), text


def test_symptom_odds_are_given_a_symptom(model: Understanding) -> None:
    reading = model.score("water left at the bottom")
    assert abs(sum(reading.symptom_odds.values()) - 1.0) < 1e-6
    assert max(reading.symptom_odds, key=reading.symptom_odds.__getitem__) == "not-draining"
    assert "-" not in reading.symptom_odds


@pytest.fixture(scope="module")
def model() -> Understanding:
    """The model of ``EXAMPLES``, trained once for the module (it is only read). On twenty
    texts, the intent classifier's floor of two texts a feature (``INTENT_MIN_DF``) leaves
    it little to read, so both classifiers read the vocabulary of two texts a feature: these
    tests are about the reading around the classifier, not its vocabulary."""
    return Understanding(train(EXAMPLES, min_df=2))


def _after_a_list(text: str, intent: str, model: Understanding, *, picked: bool) -> str:
    messages = [
        HumanMessage("my dishwasher is not draining"),
        AIMessage("1. **Drain Pump** (PS11753379)\n2. **Filter** (PS11759673)"),
        HumanMessage(text),
    ]
    return resolve_intent(intent, messages, model, picked_part=picked)


def test_naming_a_listed_part_is_about_that_part_whatever_it_reads_like(
    model: Understanding,
) -> None:
    # "start relay" reads like a symptom, "damper control" like a search
    assert _after_a_list("drain pump", "diagnose", model, picked=True) == "details"
    assert _after_a_list("drain pump", "search", model, picked=True) == "details"
    assert _after_a_list("how do I install the drain pump", "install", model, picked=True) == (
        "install"
    )
    assert _after_a_list("will the drain pump work with it", "details", model, picked=True) == (
        "compat"
    )
    # how to put in a part picked by its place: its steps, however the pick reads
    for text in ("ok how do i put the first one in", "how do i put that second one in"):
        assert _after_a_list(text, "answer", model, picked=True) == "install", text
    # a mount that is a part is picked, not fitted
    assert _after_a_list("the mounting plate", "answer", model, picked=True) == "details"
    assert _after_a_list("how do i mount it", "answer", model, picked=True) == "install"
    # a listed part named alone, whatever its name sounds like, is shown
    for text in ("the installation screw", "the cabinet mount pls"):
        assert _after_a_list(text, "install", model, picked=True) == "details", text
    assert _after_a_list("the screw, how do i install it", "install", model, picked=True) == (
        "install"
    )
    # what it is asked first, then the fitting: what it is
    text = "whats the 2nd one and is it hard to swap"
    assert _after_a_list(text, "answer", model, picked=True) == "details"
    # putting an order in is no fitting
    assert _after_a_list(
        "can i put my order in for the first one", "answer", model, picked=True
    ) == ("details")


def test_a_fitting_heard_only_in_a_listed_name_is_no_fitting(model: Understanding) -> None:
    listed = AIMessage(
        "1. **Motor Mounting Bracket** (PS1000001)\n2. **Mounting Screw** (PS419819)"
    )
    for text in ("what about the mounting screw", "ok lets go with the mounting screw"):
        said = [HumanMessage("do you have a mounting bracket for my 58714012407A"), listed]
        messages = [*said, HumanMessage(text)]
        assert resolve_intent("install", messages, model, picked_part=True) == "details", text
    # the words beside the name still ask for the fitting
    messages = [*said, HumanMessage("the mounting screw, what tools do i need to fit it")]
    assert resolve_intent("install", messages, model, picked_part=True) == "install"
    # a fitting's own word in the name ("install", "mount") asks for none either
    kits = AIMessage(
        "1. **Refrigerator Installation Screw** (PS11741512)\n2. **Cabinet Mount** (PS1)\n"
        "3. **Ice Maker Field Install Kit** (PS17917059)"
    )
    for text, intent, want in (
        ("is the installation screw in stock?", "install", "details"),
        ("what about the cabinet mount", "install", "details"),
        ("ok lets go with the install kit", "answer", "details"),
        ("how do i install the install kit", "install", "install"),
        ("how do i mount the cabinet mount", "answer", "install"),
        # each article starts a name of its own: the kit denied asks for no fitting
        ("the cabinet mount not just the install kit", "install", "details"),
    ):
        messages = [HumanMessage("my fridge is leaking"), kits, HumanMessage(text)]
        assert resolve_intent(intent, messages, model, picked_part=True) == want, text


def test_an_elliptical_follow_up_naming_another_part_type_searches(model: Understanding) -> None:
    assert _after_a_list("what about the drain hose", "details", model, picked=False) == "search"
    assert _after_a_list("and the spray arm?", "answer", model, picked=False) == "search"
    # without a part type it keeps the previous job
    assert _after_a_list("and PS3406971?", "details", model, picked=False) != "search"


def test_a_bare_part_name_not_on_the_list_searches_for_it(model: Understanding) -> None:
    # read as an answer, but it picks nothing: that part is searched, not the diagnosis redone
    assert _after_a_list("the drain hose", "answer", model, picked=False) == "search"
    # a model given with where it is written continues the job ("door" is a part type)
    assert _after_a_list("WDF520PADM7, sticker inside the door", "answer", model, picked=False) == (
        "diagnose"
    )
    # a yes or no first answers the question
    assert _after_a_list("no, the drain hose", "answer", model, picked=False) == "answer"


def test_yes_with_a_few_words_accepts_offered_installation_steps(model: Understanding) -> None:
    for text in (
        "yes please",
        "yeah show me how",
        "yes pls, walk me through it",
        "sure go ahead",
        "mhm yes",
        "uh huh",
    ):
        messages = [
            HumanMessage("hello"),
            AIMessage("**Drain Pump** (PS11753379) · $59.95\nWant the installation steps?"),
            HumanMessage(text),
        ]
        assert resolve_intent("answer", messages, model, picked_part=False) == "install", text
    messages[-1] = HumanMessage("yes but not for this one, the filter")
    assert resolve_intent("answer", messages, model, picked_part=False) == "answer"


def test_a_question_after_a_pick_is_read_alone(model: Understanding) -> None:
    for text, job in (
        ("the first one. can I do it myself?", "install"),
        ("option 1, how hard to put in", "install"),
        ("the 2nd, will it work on my WDT780SAEM1", "compat"),
    ):
        assert _after_a_list(text, "answer", model, picked=True) == job, text
    # a pick alone, or with a question about the part itself, is its details
    assert _after_a_list("the first one", "answer", model, picked=True) == "details"
    assert _after_a_list("the first one, is it any good", "answer", model, picked=True) == (
        "details"
    )


def test_a_greeting_before_a_part_or_a_number_is_read_past() -> None:
    for text, rest in (
        ("hey, evaporator fan motor 10632249101?", "evaporator fan motor 10632249101?"),
        ("hi there - need a drain pump", "need a drain pump"),
        ("hello PS11753379 in stock?", "PS11753379 in stock?"),
        # with whom it greets and a plea for help
        (
            "Hello sir, please kindly help, my Frigidaire 2533111330A has ice on the back",
            "my Frigidaire 2533111330A has ice on the back",
        ),
        ("hi there, can you help? my WDT780SAEM1 wont drain", "my WDT780SAEM1 wont drain"),
    ):
        assert without_opening_greeting(text) == rest, text
    # a greeting alone, or before small talk or a problem, stays the message
    for text in ("hi there", "hey!", "hello, how are you", "hey my fridge is warm"):
        assert without_opening_greeting(text) == text, text


def test_a_reply_with_a_question_mark_is_still_a_reply(model: Understanding) -> None:
    messages = [
        HumanMessage("my dishwasher is not draining"),
        AIMessage("Is this a **refrigerator** or a **dishwasher**?"),
        HumanMessage("a GE dishwasher?"),
    ]
    assert resolve_intent("search", messages, model, picked_part=False) == "diagnose"
    # looking back past it for the job the model number continues
    messages += [
        AIMessage("For *Not draining* on a dishwasher:\n1. **Drain Pump** (PS11753379)"),
        HumanMessage("model # WDF520PADM7?"),
    ]
    assert resolve_intent("answer", messages, model, picked_part=False) == "diagnose"
    messages[2] = HumanMessage("a GE dishwasher")
    assert resolve_intent("answer", messages, model, picked_part=False) == "diagnose"
    # with nothing awaiting a reply it is a question of its own
    first = [HumanMessage("a GE dishwasher?")]
    assert resolve_intent("search", first, model, picked_part=False) == "search"


def test_words_that_only_take_up_offered_steps_install_whatever_the_classifier_read(
    model: Understanding,
) -> None:
    offer = AIMessage(
        "Yes! The **Door Seal** (PS12348515) fits your **2213222N414**.\n\n"
        "Want the installation steps?"
    )
    for text in ("sure go for it", "alright do that", "cool, sounds good go for it", "yep go on"):
        messages = [
            HumanMessage("will PS12348515 work on a 2213222N414"),
            offer,
            HumanMessage(text),
        ]
        for read_as in ("compat", "details", "answer", "thanks"):
            got = resolve_intent(read_as, messages, model, picked_part=False)
            assert got == "install", (text, read_as)
    # a yes that asks for the fit check instead is the fit check
    for text in ("yeah check it fits pls", "yes see if it fits", "ok but is it the right part"):
        messages[-1] = HumanMessage(text)
        assert resolve_intent("answer", messages, model, picked_part=False) == "compat", text
    # an acknowledgement alone, or a new question, takes up nothing
    for text, read_as in (("cool thanks", "thanks"), ("sure, does it fit a WDT780SAEM1", "compat")):
        messages[-1] = HumanMessage(text)
        assert resolve_intent(read_as, messages, model, picked_part=False) == read_as, text
    # a choice offered is not taken up by a yes
    messages[-2] = AIMessage("Want me to check whether it fits your model, or explain how?")
    messages[-1] = HumanMessage("sure go for it")
    assert resolve_intent("compat", messages, model, picked_part=False) == "compat"


def test_a_clause_that_says_all_is_fine_has_its_own_word_features() -> None:
    f = features("fridge is warm, but the freezer is fine")
    assert f["w:fridge"] == 1 and f["w:warm"] == 1
    assert f["o:freezer"] == 1 and f["w:freezer"] == 0
    assert f["w:is"] == 1 and f["o:is"] == 1  # each word where it stands


def test_a_fine_word_under_a_negation_or_a_stop_says_no_part_is_fine() -> None:
    f = features("ice dispenser not working, water still works")
    assert f["w:ice"] == 1 and f["w:working"] == 1 and f["o:water"] == 1
    for text in (
        "the water dispenser stopped working too",
        "freezer isn't cold enough",
        "my dishwasher not wash good",
        "light flickered out for good",
        "louder than normal",
    ):
        assert without_fine_clauses(text) is None, text
    # the water still cold is the dishwasher's heating, not a part that is fine
    assert without_fine_clauses("dishwasher water still cold") is None
    for text in (
        "ice cubes drop no problem",
        "nothing wrong with the freezer",
        "fridge ok",
        "fridge part is still cold",
        "right side is cold as ever",
        "top freezer side is chilly as ever",
        "light inside still comes on",
        "the display still lights up",
    ):
        out = without_fine_clauses(f"not draining, {text}")
        assert out is not None and "draining" in out and text.split()[-1] not in out, text
    # a light that no longer comes on is no fine clause
    assert without_fine_clauses("light doesnt come on anymore") is None


def test_idioms_of_failing_read_as_the_corpus_word() -> None:
    for text in ("the ice maker gave up on me", "pump conked out", "it bit the dust"):
        assert features(text)["w:quit"] == 1, text
    assert features("gave it a go")["w:gave"] == 1  # not every "gave"


def test_price_and_fit_in_rarer_words_read_as_the_corpus_words() -> None:
    assert normalize("whats it go for") == "whats it cost"
    assert normalize("what does PS11753379 usually sell for?") == "what does psnum cost qmark"
    assert normalize("how much will it set me back") == "how much will it cost"
    assert normalize("will it suit my WDT780SAEM1") == "will it fit my modelnum"
    assert normalize("and how bout 10672009010") == "and how about modelnum"
    assert normalize("ill go for the second one") == "ill go for the second one"  # a pick
    # "fit" after the effort it takes is the fitting, said as the corpus says it
    assert normalize("first one - how hard to fit?") == "first one how hard to put in qmark"
    assert normalize("is it easy to fit") == "is it easy to put in"
    assert normalize("is it a pain to fit") == "is it a pain to put in"
    assert normalize("does it fit my WDT780SAEM1") == "does it fit my modelnum"


def test_a_negated_stop_is_one_word_nonstop() -> None:
    assert nonstop(["compressor", "hasnt", "stopped", "running"]) == [
        "compressor",
        "nonstop",
        "running",
    ]
    assert nonstop(["fridge", "never", "shuts", "off"]) == ["fridge", "nonstop"]
    assert nonstop(["it", "never", "seems", "to", "shut", "off"]) == ["it", "nonstop"]
    assert features("the ice maker won't quit")["w:nonstop"] == 1
    for text in ("door wont shut", "it stopped running", "wont turn on"):
        assert nonstop(text.split()) == text.split(), text


def test_a_no_that_only_closes_the_matter_declines(model: Understanding) -> None:
    for text in (
        "no",
        "nope",
        "no thanks",
        "nah i'm good",
        "no, just wanted the price",
        "nope that's not it",
    ):
        assert declines(text), text
    # a no with what the shopper wants instead is not a decline
    for text in (
        "no, the other one",
        "no its a different brand",
        "no, it's also leaving water in the bottom",
        "no, its the freezer",
        "nope PS11753379",
        "now the drain pump",
    ):
        assert not declines(text), text
    messages = [
        HumanMessage("how do i install PS11753379"),
        AIMessage("Here's how to install the **Drain Pump** (PS11753379)."),
        HumanMessage("nah i'm good"),
    ]
    assert resolve_intent("answer", messages, model, picked_part=False) == DECLINE


def test_pointing_at_a_listed_part_outweighs_other_guesses(model: Understanding) -> None:
    text = "what about the first part you showed me"
    assert _after_a_list(text, "orders", model, picked=True) == "details"
    assert _after_a_list("and the other one?", "compat", model, picked=True) == "details"
    # a fit check names the model it is for
    assert _after_a_list("the first one, WDT780SAEM1", "compat", model, picked=True) == "compat"
    # without a pick the guess stands
    assert _after_a_list(text, "orders", model, picked=False) == "orders"


def test_a_model_given_with_a_few_words_continues_the_job_before(model: Understanding) -> None:
    for text in (
        "its for an LDF7551WW",
        "wait, that's my neighbours. mine is 10639422990",
        # what the shopper owns is not a question for parts
        "i also have a KDTE334GPS0, that one?",
        "we've got a KDTE334GPS0 too",
    ):
        assert only_gives_a_model(text), text
    for text in (
        "what parts do you have for LDF7551WW",
        "i have a LDF7551WW, what parts do you have for it",
        "does it fit LDF7551WW",
        # whether the part is the right one for it is a fit check
        "oh and its for a whirlpool 10672013017, thats the right one yeah?",
        "the drain pump for LDF7551WW",
        "its for my fridge",
    ):
        assert not only_gives_a_model(text), text
    messages = [
        HumanMessage("how do i install PS11753379"),
        AIMessage("Here's how to install the **Drain Pump** (PS11753379)."),
        HumanMessage("its for an WDT780SAEM1"),
    ]
    assert resolve_intent("search", messages, model, picked_part=False) == "install"
    assert resolve_intent("details", messages, model, picked_part=False) == "install"
    # whether it is the right one for that model, after the steps: a fit check
    messages[2] = HumanMessage("oh and its for a whirlpool WDT780SAEM1, thats the right one yeah?")
    for heard in ("install", "details", "answer"):
        assert resolve_intent(heard, messages, model, picked_part=False) == "compat", heard
    messages[2] = HumanMessage("and its for a whirlpool WDT780SAEM1, thats the right one yeah?")
    assert resolve_intent("answer", messages, model, picked_part=False) == "compat"
    # read as a problem the reading finds no symptom in: the job that asked for the model
    asked = [
        HumanMessage("is PS3406971 compatible with my model"),
        AIMessage("Could you tell me your appliance's **model number** so I can check?"),
        HumanMessage("hang on let me look... 10641014104"),
    ]
    assert resolve_intent("diagnose", asked, model, picked_part=False, states_symptom=False) == (
        "compat"
    )
    assert resolve_intent("diagnose", asked, model, picked_part=False) == "diagnose"
    # read as another topic, where the model was asked for and is one of ours: the job
    # that asked for it; a number the catalog does not know, or unasked, the topic stands
    elsewhere = [*asked[:2], HumanMessage("my place has a WDT780SAEM1, good to go?")]
    resolved = resolve_intent("out_of_scope", elsewhere, model, picked_part=False, known_model=True)
    assert resolved == "compat"
    weather = [*asked[:2], HumanMessage("whats the weather like in 90210 today")]
    assert resolve_intent("out_of_scope", weather, model, picked_part=False) == "out_of_scope"
    unasked = [
        HumanMessage("is PS3406971 compatible with WDT780SAEM1"),
        AIMessage("Yes! The **Door Cam** (PS3406971) fits your **WDT780SAEM1**."),
        elsewhere[-1],
    ]
    resolved = resolve_intent("out_of_scope", unasked, model, picked_part=False, known_model=True)
    assert resolved == "out_of_scope"


def test_a_trouble_said_to_be_over_before_another_moves_on() -> None:
    for text in (
        "update: it isnt warm anymore, thats sorted, but now theres frost on the back wall",
        "ok it drains fine now, cleaned the filter. but now it grinds",
        "the leak is fixed, now the door wont latch",
    ):
        assert moves_on(text), text
    for text in (
        "its not draining and now its leaking too",  # adds
        "it's fixed, thanks!",  # nothing after it
        "now it wont drain",  # nothing said to be over
        "the door doesnt catch anymore and now it wont start",  # "anymore" states a trouble
    ):
        assert not moves_on(text), text


def test_a_part_types_name_alone_after_a_list_that_lacks_it_searches(model: Understanding) -> None:
    assert names_only_a_part_type("the spring")
    assert names_only_a_part_type("drain hose?")
    assert not names_only_a_part_type("the door springs open")
    assert not names_only_a_part_type("my drain hose is leaking")
    assert _after_a_list("the spring", "diagnose", model, picked=False) == "search"
    assert _after_a_list("the spring", "answer", model, picked=False) == "search"
    # a listed part so named is that part
    assert _after_a_list("the filter", "answer", model, picked=True) == "details"


def test_a_part_number_put_right_continues_the_job_before(model: Understanding) -> None:
    messages = [
        HumanMessage("how do i install PS11746084"),
        AIMessage("Here's how to install the **Door Latch Actuator** (PS11746084)."),
        HumanMessage("wait wrong number, i meant PS11746800, the strike"),
    ]
    assert resolve_intent("compat", messages, model, picked_part=False, names_part=True) == (
        "install"
    )


def test_praise_and_a_not_yet_say_nothing_of_their_own() -> None:
    assert before_courtesy("nice one thanks") is None
    assert before_courtesy("the second one thanks") == "the second one"
    for text in (
        "nah dont think thats it",
        "nah not yet",
        "no not right now",
        "nah ta, ill leave it for now",
    ):
        assert declines(text), text


def test_a_purchase_said_with_thanks_is_a_plan() -> None:
    assert thanks_with_a_plan("lol ok buying two then, thanks")
    assert thanks_with_a_plan("lol no its a light bulb, i think i can manage. thanks")
    assert not thanks_with_a_plan("ok buying two then, is there a discount? thanks")


def test_a_question_after_an_opening_thanks_is_the_job(model: Understanding) -> None:
    messages = [
        HumanMessage("does PS11753379 fit WDT780SAEM1"),
        AIMessage("Yes! The **Drain Pump** (PS11753379) fits your **WDT780SAEM1**."),
        HumanMessage("thanks, how do i install it"),
    ]
    assert resolve_intent("thanks", messages, model, picked_part=False) == "install"
    for text in ("ok thanks, so how do i install it", "thx, n how do i install it"):
        messages[-1] = HumanMessage(text)  # "so", "n": lead on to the question
        assert resolve_intent("thanks", messages, model, picked_part=False) == "install", text
    messages[-1] = HumanMessage("thanks, will order it tonight")
    assert resolve_intent("thanks", messages, model, picked_part=False) == "thanks"


def test_negated_words_are_features_within_their_clause() -> None:
    assert negated_words("latch feels broken, no click when I shut the door") == [
        "n:click",
        "n:when",
        "n:i",
    ]
    assert negated_words("door never pops open") == ["n:pops", "n:open"]
    assert negated_words("it clicks and leaks") == []


def test_an_answer_needs_something_asked_or_listed() -> None:
    assert not awaits_reply([HumanMessage("black gunk around the ice chute")])
    told = AIMessage("The **Drain Pump** (PS11753379) is in stock.")
    assert not awaits_reply([HumanMessage("hi"), told, HumanMessage("the ice chute")])
    asked = AIMessage("Is it a refrigerator or a dishwasher?")
    assert awaits_reply([HumanMessage("it's leaking"), asked, HumanMessage("the ice chute")])
    greeted = AIMessage("Hi! I'm the parts assistant.\n\nWhat can I help you with today?")
    assert not awaits_reply([HumanMessage("hi"), greeted, HumanMessage("the ice chute")])
    offered = AIMessage("Done. Want the installation steps? Anything else I can help with?")
    assert awaits_reply([HumanMessage("hi"), offered, HumanMessage("the ice chute")])
    listed = AIMessage("1. **Drain Pump** (PS11753379)\n2. **Door Latch** (PS11752778)")
    assert awaits_reply([HumanMessage("parts for WDT780SAEM1"), listed, HumanMessage("pump")])


def test_an_answer_to_nothing_asked_is_the_next_intent(model: Understanding) -> None:
    text = "black gunk around the ice chute"  # no rule decides it; the classifier: answer
    scores = model.score(text)
    assert scores.intent == "answer"
    assert scores.runner_up not in ("answer", "")
    assert intent_of(text, model) == "answer"
    assert intent_of(text, model, awaited=False) == scores.runner_up
    # the rules' answers stand: "a bosch dishwasher" is a reply wherever it comes
    assert intent_of("a bosch dishwasher", model, awaited=False) == "answer"


def test_a_first_message_read_as_an_answer_is_the_job_an_answer_to_it_continues(
    model: Understanding,
) -> None:
    first = "black gunk around the ice chute"
    job = model.score(first).runner_up
    assert job in ("diagnose", "search", "details", "compat", "install")
    messages = [
        HumanMessage(first),
        AIMessage("Is it a refrigerator or a dishwasher?"),
        HumanMessage("it's a 10640262010"),
    ]
    assert resolve_intent("answer", messages, model, picked_part=False) == job
    # the same words after a question are an answer: the job continued is the one before
    messages = [
        HumanMessage("how do i install PS11752778"),
        AIMessage("Which part of it do you mean?"),
        HumanMessage(first),
        AIMessage("Which model is it?"),
        HumanMessage("it's a 10640262010"),
    ]
    assert job != "install"
    assert pending_job(messages, model) == "install"


def test_an_unawaited_answer_becomes_only_a_job() -> None:
    def scores(intent: str, runner_up: str) -> Scores:
        return Scores(intent, 0.5, (), 1.0, {}, runner_up)

    assert unawaited(scores("answer", "diagnose")) == "diagnose"
    # "the website said AB-10234 costs $5, right?": a guessed injection is no better
    assert unawaited(scores("answer", "injection")) == "answer"
    assert unawaited(scores("search", "answer")) == "search"


def test_an_elliptical_question_naming_nothing_new_is_its_own_job(model: Understanding) -> None:
    fit = [
        HumanMessage("is PS3406971 compatible with my WDT780SAEM1"),
        AIMessage("Yes! The **Drain Hose** (PS3406971) fits your **WDT780SAEM1**. In Stock."),
    ]
    asked = [*fit, HumanMessage("and is it in stock")]
    assert resolve_intent("details", asked, model, picked_part=False) == "details"
    # a new part: the same question for it
    again = [*fit, HumanMessage("and PS11752778?")]
    assert resolve_intent("details", again, model, picked_part=False, names_part=True) == ("compat")


def test_not_knowing_where_the_model_is_lacks_the_model() -> None:
    assert lacks_model("where would the model number be?")
    asked = [AIMessage("Could you tell me your appliance's **model number** so I can check?")]
    for text in ("not sure where to find that", "where do i look?", "no idea where that is"):
        assert lacks_model(text, [*asked, HumanMessage(text)]), text
        assert not lacks_model(text, [AIMessage("Here you go."), HumanMessage(text)]), text
    assert not lacks_model("where is the drain pump", [*asked, HumanMessage("x")])
    assert not lacks_model("not sure where, its 10641014101", [*asked, HumanMessage("x")])


def test_a_problem_that_tells_no_trouble_but_names_a_part_asks_for_it() -> None:
    requests = [
        Example("need a water filter for my fridge", "search", ()),
        Example("door gasket for a kenmore fridge please", "search", ()),
    ]
    model = Understanding(train([*EXAMPLES, *requests]))
    first = [HumanMessage("lg fridge 71052 water filter pls")]
    assert resolve_intent("diagnose", first, model, picked_part=False, states_symptom=False) == (
        "search"
    )
    # a symptom found, or a word of a trouble, is a diagnosis
    assert resolve_intent("diagnose", first, model, picked_part=False) == "diagnose"
    broken = [HumanMessage("lg fridge 71052 water filter is leaking")]
    assert resolve_intent("diagnose", broken, model, picked_part=False, states_symptom=False) == (
        "diagnose"
    )
    # within a diagnosis, more words about the trouble go on telling it
    more = [
        HumanMessage("fridge is leaking water on the floor"),
        AIMessage("1. **Door Gasket** (PS11759515)\n2. **Water Filter** (PS11722130)"),
        HumanMessage("water comes from under the door gasket i think"),
    ]
    assert resolve_intent("diagnose", more, model, picked_part=False, states_symptom=False) == (
        "diagnose"
    )


def test_a_listed_parts_price_asked_is_its_details_not_its_installation(
    model: Understanding,
) -> None:
    # "replacement" names the part; the classifier's install guess gives way to the price
    text = "replacement ice maker one, how much"
    assert _after_a_list(text, "install", model, picked=True) == "details"
    assert _after_a_list("the first one, how do i replace it", "install", model, picked=True) == (
        "install"
    )
    assert _after_a_list("the first one, can i do it myself", "install", model, picked=True) == (
        "install"
    )
    # a price asked before the fitting, whatever install the classifier heard: the details
    # come first (they offer the steps)
    for text in (
        "how much is the tube and how do i put it in",
        "ok that one. how much and how do i install it",
    ):
        assert _after_a_list(text, "install", model, picked=True) == "details", text


def test_a_closing_thanks_after_a_reply_or_a_request_is_that_reply_or_request(
    model: Understanding,
) -> None:
    assert before_courtesy("its WDT780SAEM1 thanks") == "its WDT780SAEM1"
    assert before_courtesy("option 1 thx") == "option 1"
    assert before_courtesy("the dishwasher, thank you so much!") == "the dishwasher"
    for closing in ("great thank you thanks", "got it thanks", "legend, thanks", "ok so cheers"):
        assert before_courtesy(closing) is None, closing
    asked = [
        HumanMessage("my dishwasher is not draining"),
        AIMessage("Could you tell me your appliance's **model number**?"),
        HumanMessage("its WDT780SAEM1 thanks"),
    ]
    assert resolve_intent("thanks", asked, model, picked_part=False) == "diagnose"
    asked[-1] = HumanMessage("great thank you thanks")
    assert resolve_intent("thanks", asked, model, picked_part=False) == "thanks"
    # a yes and courtesy to offered installation steps accepts them; a closing does not
    offered = [
        HumanMessage("how much is PS11753379"),
        AIMessage("**Drain Pump** (PS11753379) · $59.95\n\nWant the installation steps?"),
        HumanMessage("ya please thanks"),
    ]
    assert resolve_intent("thanks", offered, model, picked_part=False) == "install"
    offered[-1] = HumanMessage("ok ty, ill think about it")
    assert resolve_intent("thanks", offered, model, picked_part=False) == "thanks"


def test_the_filler_that_opens_a_turn_is_not_read_by_the_dialogues_patterns() -> None:
    assert without_opening_filler("ok so is the drain hose on that list") == (
        "is the drain hose on that list"
    )
    assert without_opening_filler("hmm, 2nd looks right") == "2nd looks right"
    assert without_opening_filler("ok") == "ok"
    assert without_opening_filler("the fridge is ok so far") == "the fridge is ok so far"


def test_a_part_type_asked_to_go_in_a_model_is_not_a_search_for_the_type(
    model: Understanding,
) -> None:
    shown = [
        HumanMessage("how much for the filter"),
        AIMessage("**Dishwasher Filter** (PS11759673) · $46.14 · In Stock"),
        HumanMessage("and would that same filter go in a 2213092N413?"),
    ]
    assert resolve_intent("compat", shown, model, picked_part=False) == "compat"
    shown[-1] = HumanMessage("and the drain hose?")
    assert resolve_intent("details", shown, model, picked_part=False) == "search"


def test_a_pick_the_classifier_alone_takes_for_thanks_is_the_picked_part(
    model: Understanding,
) -> None:
    assert _after_a_list("ok 3", "thanks", model, picked=True) == "details"
    # the rules' thanks stays thanks
    assert _after_a_list("thanks so much", "thanks", model, picked=True) == "thanks"


def test_a_model_given_first_with_a_side_question_continues_the_job(model: Understanding) -> None:
    asked = AIMessage(
        "For *Not draining* on a dishwasher, these parts are the usual fix:\n"
        "1. **Dishwasher Drain Pump** (PS11753379) · $59.95\n\n"
        "What's the model number? I'll check which of these fit."
    )
    for text in (
        "WDT780SAEM1. is it normally the pump that goes on these?",
        "its a whirlpool WDT780SAEM1 - do i need to pull it out to look?",
        "WDT780SAEM1 — is it usually the pump?",
    ):
        assert model_then_aside(text), text
        messages = [HumanMessage("dishwasher wont drain"), asked, HumanMessage(text)]
        for read_as in ("search", "install", "answer"):
            got = resolve_intent(read_as, messages, model, picked_part=False)
            assert got == "diagnose", (text, read_as)
    # a job of its own after the model, or words before it that are not filler
    for text in (
        "WDT780SAEM1. how do i install the pump",
        "WDT780SAEM1, does PS11753379 fit it?",
        "my neighbour has a WDT780SAEM1, is it the pump?",
        "WDT780SAEM1",
    ):
        assert not model_then_aside(text), text


def test_a_part_type_other_than_the_part_in_focus_is_searched(model: Understanding) -> None:
    steps = AIMessage("Here's how to install the **Defrost Heater** (PS11740459) · $39.95.")
    text = "perfect thank you. one more - whats the defrost thermostat for it cost"
    messages = [HumanMessage("how do i put in PS11740459"), steps, HumanMessage(text)]
    assert resolve_intent("details", messages, model, picked_part=False) == "search"
    # the part in focus, or a question of it that names another
    for text in ("how much is the heater", "does it come with the thermostat"):
        messages[-1] = HumanMessage(text)
        assert resolve_intent("details", messages, model, picked_part=False) == "details"


def test_ok_go_on_then_takes_up_offered_steps(model: Understanding) -> None:
    offer = AIMessage("Yes! The **Door Seal** (PS12348515) fits.\n\nWant the installation steps?")
    messages = [
        HumanMessage("does PS12348515 fit 2213222N414"),
        offer,
        HumanMessage("ok go on then"),
    ]
    assert resolve_intent("compat", messages, model, picked_part=False) == "install"


def test_a_no_with_the_shoppers_own_plan_declines() -> None:
    for text in (
        "nah thats ok, gonna think about it",
        "no thanks, ill get someone to put it in",
        "special order hmm. nah ill wait then",
        "nah im good, hubby does that stuff lol",  # a remark after a closing phrase
    ):
        assert declines(text), text
    assert not declines("nah im good, but the door leaks too")
    for text in ("no, the other one", "hmm. no its leaking too", "no. what about the pump?"):
        assert not declines(text), text


def test_whether_it_fits_asked_before_the_fitting_is_the_fit_check(model: Understanding) -> None:
    assert fit_asked_first("does it fit 10641012104 too and if so how do i swap it")
    assert fit_asked_first("its going on an ADW662EAS btw, thats the right gasket right?")
    assert not fit_asked_first("how do i swap it, and does it fit 10641012104")
    # "fit" as the fitting's verb after "how do i"; "how do i know if it fits" asks the fit
    assert not fit_asked_first("good. how do i get the old gasket off and fit this one")
    assert fit_asked_first("how do i know if it fits my WDT780SAEM1")
    # "fit" as the verb of the fitting it asks about, with no "how do i"
    assert not fit_asked_first("whats the easiest way to fit that in")
    assert not fit_asked_first("hw long will it take me to fit it")
    assert fit_asked_first("is it the right part to fit it to my 10641012104")
    assert fit_asked_first("does it fit in my 10641012104")
    details = AIMessage("**Door Gasket** (PS11746830) · $42.10\n\nWant the installation steps?")
    text = "does that also fit my other LG, LDS5774ST? and how hard is it to install"
    messages = [HumanMessage("PS11746830"), details, HumanMessage(text)]
    assert resolve_intent("install", messages, model, picked_part=False) == "compat"


def test_the_parts_of_a_type_that_would_do_are_searched(model: Understanding) -> None:
    fit = AIMessage("The **Drain Pump** (PS11753379) is not listed for your **LDF7561ST**.")
    for text in ("dang. what drain pump DOES go in it then?", "which drain pump does fit then"):
        messages = [HumanMessage("does PS11753379 fit LDF7561ST"), fit, HumanMessage(text)]
        for read_as in ("install", "compat", "details"):
            assert resolve_intent(read_as, messages, model, picked_part=False) == "search"


def test_after_a_pick_the_question_asked_first_is_the_job(model: Understanding) -> None:
    listed = AIMessage("1. **Water Filter** (PS12724833) · $79.95\n2. **Tube** (PS1) · $5.00")
    for text, job in (
        ("the filter - how much and how often am i supposed to change it", "details"),
        ("ok that one. how much and how do i install it", "details"),
        ("the filter, how do i change it and how much is it", "install"),
        ("whats the 2nd one and is it hard to change", "details"),
        # "the fix" is the job, not what a part is
        ("whats the fix, how do i swap the filter", "install"),
        # whether to replace it, with its price asked: its details
        ("should i just replace the whole filter? whats the price on that", "details"),
        ("should i replace the filter myself", "install"),
    ):
        messages = [HumanMessage("LG 71052 water filter"), listed, HumanMessage(text)]
        assert resolve_intent("answer", messages, model, picked_part=True) == job, text


_ANY_DISHWASHER = AIMessage(
    "For *Not draining* on a dishwasher, these parts are the usual fix, most likely first:\n"
    "1. **Dishwasher Drain Pump** (PS11753379) · $59.95\n2. **Drain Hose** (PS2358130) · $24.11"
    "\n\nWant installation steps for one of these?"
)


def test_a_model_given_first_after_the_fixes_for_any_appliance_rediagnoses(
    model: Understanding,
) -> None:
    # the pump of any dishwasher is not this model's: its own list
    messages = [
        HumanMessage("my LG dishwasher isnt draining"), _ANY_DISHWASHER,
        HumanMessage("its an LDF7561ST, do u have the pump in stock?"),
    ]  # fmt: skip
    assert (
        resolve_intent("details", messages, model, picked_part=True, known_model=True) == "diagnose"
    )


def test_a_model_put_right_continues_the_job_before(model: Understanding) -> None:
    fits = AIMessage("Yes! The **Drain Pump** (PS11753379) fits your **KDTE334GPS0**.")
    said = "oh wait sorry thats the old one we got rid of, the new one is a WDT780SAEM1"
    messages = [
        HumanMessage("is the pump PS11753379 gonna work in my dishwasher"),
        AIMessage("Could you tell me your appliance's **model number**?"),
        HumanMessage("KDTE334GPS0"), fits, HumanMessage(said),
    ]  # fmt: skip
    assert resolve_intent("search", messages, model, picked_part=False, known_model=True) == (
        "compat"
    )
    # a fit asked again is its own question
    again = [*messages[:-1], HumanMessage("sorry typo, its WDT780SAEM1. does it still fit?")]
    assert resolve_intent("compat", again, model, picked_part=False, known_model=True) == ("compat")


def test_thanks_beside_the_shoppers_own_plan_asks_nothing(model: Understanding) -> None:
    details = AIMessage("**GASKET** (PS2331042) · $11.96 · On Order\n\nWant the steps?")
    messages = [
        HumanMessage("the gasket"),
        details,
        HumanMessage("ok ill just wait for that one then, thx"),
    ]
    assert resolve_intent("details", messages, model, picked_part=True) == "thanks"


def test_a_problem_told_first_then_a_part_asked_for_is_the_diagnosis(
    model: Understanding,
) -> None:
    text = "GE DDT575SGF0BB makes a grinding noise when it washes. also do you have the mid spray arm for it?"
    assert resolve_intent("search", [HumanMessage(text)], model, picked_part=False) == "diagnose"
    # the part asked for first stays a search
    first = "do you have the mid spray arm for a GE DDT575SGF0BB? it makes a grinding noise"
    assert resolve_intent("search", [HumanMessage(first)], model, picked_part=False) == "search"


def test_how_to_fit_it_after_a_no_is_the_fitting(model: Understanding) -> None:
    messages = [
        HumanMessage("door switch, how much is it"),
        AIMessage("**Door Switch** (PS11747659) · $27.95\n\nWant me to check whether it fits?"),
        HumanMessage("nah"), AIMessage("No problem. Anything else I can help with?"),
        HumanMessage("actually wait yeah how do i put it in lol"),
    ]  # fmt: skip
    assert resolve_intent("answer", messages, model, picked_part=False) == "install"


def test_a_yes_for_someone_elses_machine_takes_the_offered_steps(model: Understanding) -> None:
    fits = AIMessage(
        "Yes! The **Door Seal** (PS12348515) fits your **WDT780SAEM1**.\n\nWant the installation steps?"
    )
    for text in (
        "ok yep show me for hers",
        "perfect go ahead with the steps",
        "ya, for that model pls",
    ):
        messages = [HumanMessage("and my sisters WDT780SAEM1?"), fits, HumanMessage(text)]
        assert resolve_intent("search", messages, model, picked_part=False) == "install", text


def test_thanks_then_how_to_fit_it_is_the_fitting(model: Understanding) -> None:
    fits = AIMessage("Yes! The **Condenser Fan Motor** (PS11739140) fits your **10640263010**.")
    messages = [
        HumanMessage("would it fit 10640263010 too?"),
        fits,
        HumanMessage("ok thx!! back to mine, how do i put it in"),
    ]
    assert resolve_intent("thanks", messages, model, picked_part=False) == "install"


def test_whether_the_part_in_focus_fits_asked_first_is_the_fit_check(model: Understanding) -> None:
    details = AIMessage("**Ice Auger** (PS17626595) · $30.00 · In Stock · fits your BSS25JSRFSS")
    for intent, text in (
        ("answer", "so that definitely fits mine?"),
        ("install", "does it fit my fridge for sure and how hard is the install"),
    ):
        messages = [HumanMessage("the auger"), details, HumanMessage(text)]
        assert resolve_intent(intent, messages, model, picked_part=False) == "compat", text


def test_a_model_given_first_after_an_answer_for_any_appliance_redoes_it(
    model: Understanding,
) -> None:
    listed = AIMessage(
        "For *Not draining* on a dishwasher, these parts are the usual fix, most likely "
        "first:\n1. **Drain Pump** (PS11753379) · $59.95\n\nWant installation steps for one?"
    )
    messages = [
        HumanMessage("my dishwasher is not draining"), listed,
        HumanMessage("WDT780SAEM1, also do i need to unplug it to swap it"),
    ]  # fmt: skip
    assert resolve_intent("install", messages, model, picked_part=False, known_model=True) == (
        "diagnose"
    )


def test_a_part_number_given_where_a_search_was_the_job_is_its_details(
    model: Understanding, monkeypatch: pytest.MonkeyPatch
) -> None:
    import partchat.nlu.dialogue as dialogue

    monkeypatch.setattr(dialogue, "pending_job", lambda *_args, **_kw: "search")
    found = AIMessage("Here's what I found for your B36CL80ENS:\n1. **Water Filter** (PS16221878)")
    messages = [
        HumanMessage("water filter for bosch fridge B36CL80ENS pls"), found,
        HumanMessage("oh wait no, i meant the bypass filter. 10013297"),
    ]  # fmt: skip
    assert resolve_intent("answer", messages, model, picked_part=False, names_part=True) == (
        "details"
    )


def test_a_fit_asked_first_is_the_job_an_answer_continues(model: Understanding) -> None:
    messages = [
        HumanMessage("does PS11753379 fit my dishwasher and whats the price on it"),
        AIMessage("Could you tell me your appliance's **model number**?"),
        HumanMessage("WDT780SAEM1 (whirlpool)"),
    ]
    assert pending_job(messages, model) == "compat"


def test_a_model_first_with_a_lifespan_question_continues_the_job() -> None:
    assert model_then_aside("CFE28TP2MKS1. and how often am i supposed to swap it out")
    assert not model_then_aside("CFE28TP2MKS1. and how do i swap it out")


def test_and_a_listed_part_with_a_price_question_is_its_details(model: Understanding) -> None:
    listed = AIMessage(
        "1. **Door Seal** (PS12348515) · $54.00\n2. **Drain Pump** (PS11753379) · $59.95"
    )
    steps = AIMessage("Here's how to install the **Door Seal** (PS12348515).")
    text = "cool thanks, and the drain pump on that list, is that one in stock too?"
    messages = [
        HumanMessage("leaking WDT780SAEM1"), listed, HumanMessage("the seal one"),
        AIMessage("**Door Seal** (PS12348515)"), HumanMessage("is it easy to put in myself?"),
        steps, HumanMessage(text),
    ]  # fmt: skip
    assert resolve_intent("details", messages, model, picked_part=True) == "details"


def test_a_pick_after_a_list_that_shows_the_fit_is_the_parts_details(
    model: Understanding, monkeypatch: pytest.MonkeyPatch
) -> None:
    import partchat.nlu.dialogue as dialogue

    monkeypatch.setattr(dialogue, "pending_job", lambda *a, **k: "compat")
    listed = AIMessage(
        "Here's what I found for your CFE28TP2MBS1:\n"
        "1. **Refrigerator Water Filter** (PS10063209) · $68.55 · In Stock · fits your CFE28TP2MBS1"
        "\n\nWould you like details, a fit check or installation steps for one of these?"
    )
    messages = [
        HumanMessage("need a water filter for my GE fridge"),
        AIMessage("Here's what I found:\n1. **Water Filter** (PS1) · $1.00\n\nWhich one?"),
        HumanMessage("its a CFE28TP2MBS1 btw, which of those fits it?"),
        listed,
        HumanMessage("1st one pls"),
    ]
    assert resolve_intent("answer", messages, model, picked_part=True) == "details"
    # a list without the fit: the fit check the shopper asked for
    messages[-2] = AIMessage(listed.text.replace(" · fits your CFE28TP2MBS1", ""))
    assert resolve_intent("answer", messages, model, picked_part=True) == "compat"


_DETAILS = AIMessage(
    "**Drain Tube Kit** (PS8691807) · $41.95 · In Stock · fits your 10672003010\n\n"
    "Want the installation steps?"
)


def test_a_question_after_thanks_and_one_more_word_is_the_job(model: Understanding) -> None:
    for text, job in (
        ("thanks!! oh and is the drain tube kit in stock too", "details"),
        ("perfect thanks! whats the install like", "install"),
    ):
        messages = [HumanMessage("the drain tube kit"), _DETAILS, HumanMessage(text)]
        assert resolve_intent("thanks", messages, model, picked_part=True) == job, text


def test_how_often_a_picked_part_is_changed_is_its_details(model: Understanding) -> None:
    listed = AIMessage("1. **Water Filter** (PS10063209) · $68.55\n2. **Air Filter** (PS1) · $9.00")
    for text in (
        "the first one, how often am i supposed to change it",
        "first one. how often do u have to change these",
    ):
        messages = [HumanMessage("water filter CFE28TP2MBS1"), listed, HumanMessage(text)]
        for intent in ("answer", "install"):
            assert resolve_intent(intent, messages, model, picked_part=True) == "details", text


def test_a_picked_parts_fit_asked_before_its_fitting_is_the_fit_check(
    model: Understanding,
) -> None:
    text = "ok the condenser fan motor - does it def fit mine? and how long does it take to put in"
    messages = [HumanMessage("noisy 10640262010"), _DETAILS, HumanMessage(text)]
    assert resolve_intent("install", messages, model, picked_part=True) == "compat"


def test_the_part_in_focus_asked_to_be_fitted_first_is_the_fitting(model: Understanding) -> None:
    text = "k is that one easy to put in? and does it come with the clamp"
    messages = [HumanMessage("the drain tube kit"), _DETAILS, HumanMessage(text)]
    assert resolve_intent("details", messages, model, picked_part=False) == "install"
    # the price asked first stays the details
    messages[-1] = HumanMessage("how much is that one? and is it easy to put in")
    assert resolve_intent("details", messages, model, picked_part=False) == "details"


def test_how_it_goes_on_asked_after_its_details_is_the_fitting(model: Understanding) -> None:
    for text in (
        "how many come in a pack? also how do they snap on",
        "does it come with the screws? and how do i put it in",
    ):
        messages = [HumanMessage("the drain tube kit"), _DETAILS, HumanMessage(text)]
        assert resolve_intent("details", messages, model, picked_part=False) == "install", text
    # a price asked beside it is the details; after a list, not the part in focus
    text = "how much is a pack? also how do they snap on"
    messages = [HumanMessage("the drain tube kit"), _DETAILS, HumanMessage(text)]
    assert resolve_intent("details", messages, model, picked_part=False) == "details"
    listed = AIMessage(
        "Here's what I found:\n1. **Drain Hose** (PS1) · $9\n2. **Pump** (PS2) · $40"
    )
    text = "how many come in a pack? also how do they snap on"
    messages = [HumanMessage("drain parts"), listed, HumanMessage(text)]
    assert resolve_intent("details", messages, model, picked_part=False) == "details"


def test_check_it_after_a_parts_details_is_the_fit_check(model: Understanding) -> None:
    for text in ("ya check it", "yeah check it", "sure, check that pls"):
        messages = [HumanMessage("the drain tube kit"), _DETAILS, HumanMessage(text)]
        assert resolve_intent("answer", messages, model, picked_part=False) == "compat", text
    messages = [HumanMessage("hi"), AIMessage("Hi! How can I help?"), HumanMessage("ya check it")]
    assert resolve_intent("answer", messages, model, picked_part=False) != "compat"


def test_a_part_number_given_for_an_asked_fit_check_is_the_fit_check(
    model: Understanding,
) -> None:
    messages = [
        HumanMessage("will this fit my GE A4425GDTABB?"),
        AIMessage("Which part do you mean? Please give me the **part number** you want to check?"),
        HumanMessage("WR55X10025, the temp sensor"),
    ]
    assert resolve_intent("details", messages, model, picked_part=False, names_part=True) == (
        "compat"
    )


def test_no_need_for_the_steps_declines() -> None:
    assert declines("nah dont need the steps, thx")
    assert declines("no i don't need it")
    assert not declines("nah dont need the steps, does it fit WDT780SAEM1 though?")


def test_and_another_part_after_a_nice_is_the_same_job(model: Understanding) -> None:
    fits = AIMessage("Yes! The **Defrost Thermostat** (PS1017716) fits your **BSS25JFRFWW**.")
    messages = [
        HumanMessage("hey does PS1017716 fit a BSS25JFRFWW"),
        fits,
        HumanMessage("nice, and the temp sensor PS304103?"),
    ]
    assert resolve_intent("details", messages, model, picked_part=False, names_part=True) == (
        "compat"
    )


def test_a_model_given_with_i_think_and_a_side_question_continues_the_job() -> None:
    messages = [
        HumanMessage("whats the price on PS3408461"),
        AIMessage("**Door Gasket** (PS3408461) · $120.89\n\nWant me to check whether it fits?"),
        HumanMessage("does it fit my fridge?"),
        AIMessage("Could you tell me your appliance's **model number** so I can check the fit?"),
        HumanMessage("frigidaire CFD26WIS1 i think.. does it come with the screws?"),
    ]
    assert model_then_aside(messages[-1].text)
    assert not model_then_aside("frigidaire CFD26WIS1 i think.. does it fit?")


def test_the_appliance_asked_for_with_a_side_question_continues_the_job(
    model: Understanding,
) -> None:
    asked = AIMessage("Is this a **refrigerator** or a **dishwasher**?")
    messages = [
        HumanMessage("water all over the floor every time it runs"),
        asked,
        HumanMessage("a GE dishwasher, you guys carry parts for those right?"),
    ]
    assert resolve_intent("search", messages, model, picked_part=False) == "diagnose"
    # the model given next continues the diagnosis, not the side question
    listed = AIMessage(
        "For *Leaking* on a dishwasher, these parts are the usual fix:\n1. x\n\nWant the steps?"
    )
    assert pending_job([*messages, listed, HumanMessage("CDW9380N00SS")], model) == "diagnose"
    # a part named beside the appliance is a request of its own
    messages[-1] = HumanMessage("a GE dishwasher, do you have the door seal?")
    assert resolve_intent("search", messages, model, picked_part=False) == "search"


def test_no_with_the_shoppers_own_plan_declines_unless_it_picks() -> None:
    assert declines("nah im gonna try cleaning my old one first")
    assert not declines("no ill try the first one")
    assert not declines("nah ill check the filter first")


def test_a_part_number_given_for_asked_steps_is_the_fitting_whatever_it_sounds_like(
    model: Understanding,
) -> None:
    messages = [
        HumanMessage("how do i put the new one in"),
        AIMessage(
            "Which part do you mean? Please give me the **part number** you want to install?"
        ),
        HumanMessage("oh its WPW10130695, the door handle and latch thing"),
    ]
    for intent in ("diagnose", "answer"):
        assert resolve_intent(intent, messages, model, picked_part=False, names_part=True) == (
            "install"
        )


def test_a_bare_yes_to_a_fit_check_or_the_steps_takes_the_steps(model: Understanding) -> None:
    card = AIMessage(
        "**Lower Spray Arm** (PS2367922) · $56.95 · In Stock\n\n"
        "Want me to check whether it fits your model, or explain how to install it?"
    )
    messages = [HumanMessage("whats PS2367922"), card, HumanMessage("ya")]
    assert resolve_intent("answer", messages, model, picked_part=False) == "install"


def test_a_question_after_cheers_is_the_job(model: Understanding) -> None:
    card = AIMessage("**Condenser Fan Motor** (PS1766247) · $47.95 · In Stock")
    for text in ("cheers. how do I fit it", "ta, how do I fit it"):
        messages = [HumanMessage("WR60X10220"), card, HumanMessage(text)]
        assert resolve_intent("thanks", messages, model, picked_part=False) == "install", text


def test_an_order_question_that_names_a_part_stays_one(model: Understanding) -> None:
    card = AIMessage("**Evaporator Fan Motor** (PS12741350) · $71.47 · In Stock")
    text = "also i ordered a water filter last tuesday and never got a shipping email"
    messages = [HumanMessage("whats PS12741350"), card, HumanMessage(text)]
    assert resolve_intent("orders", messages, model, picked_part=False) == "orders"
    # "also" and a part type with a job of its own is that part's search
    messages[-1] = HumanMessage("also the water filter")
    assert resolve_intent("answer", messages, model, picked_part=False) == "search"


def test_whether_it_snaps_on_after_its_details_is_its_fitting(model: Understanding) -> None:
    details = AIMessage(
        "**White Dishrack Roller** (PS11746834) · $14.95 · In Stock\n"
        "- Manufacturer part number: WP903093\n\nWant the installation steps?"
    )
    for text in ("do they just snap on or what", "does it clip in"):
        messages = [HumanMessage("the white dishrack roller"), details, HumanMessage(text)]
        assert resolve_intent("details", messages, model, picked_part=False) == "install", text


def test_right_for_a_model_after_the_steps_is_the_fit_check(model: Understanding) -> None:
    steps = AIMessage(
        "Here's how to install the **Dishwasher Filter** (PS11759673) · $46.14.\n\n**Steps**\n"
        "1. Open the door."
    )
    text = "is it right for my kenmore 2214545N711"
    messages = [HumanMessage("how do i put in the W10872845 filter"), steps, HumanMessage(text)]
    assert (
        resolve_intent("answer", messages, model, picked_part=False, known_model=True) == "compat"
    )


def test_a_fit_asked_with_a_model_is_the_job_an_elliptical_model_continues(
    model: Understanding,
) -> None:
    fits = AIMessage("Yes! The **Condenser Fan Motor** (PS1766247) fits your **A4425GDTABB**.")
    messages = [
        HumanMessage("how much is WR60X10220"),
        AIMessage("**Condenser Fan Motor** (PS1766247) · $47.95 · In Stock"),
        HumanMessage("is that the right one for GE A4425GDTABB"), fits,
        HumanMessage("and my BSS25JFRFWW?"),
    ]  # fmt: skip
    assert resolve_intent("details", messages, model, picked_part=False) == "compat"
