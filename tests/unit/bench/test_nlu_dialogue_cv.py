"""``bench/nlu_dialogue_cv.py``: a fold learns nothing of its dialogues, as the test split's
screening has it; a variant changes the words, never the labels."""

from __future__ import annotations

from typing import Any

from bench import nlu_dialogue_cv as cv
from partchat.nlu import corpus


def _turn(user: str) -> Any:
    return {"user": user, "intent": "answer", "symptoms": [], "appliance": None,
            "parts": [], "models": [], "expect": {"tool": None}}  # fmt: skip


def _message(item_id: str, text: str) -> Any:
    return {"id": item_id, "text": text, "intent": "answer", "symptoms": [],
            "appliance": None, "parts": [], "models": []}  # fmt: skip


def test_a_fold_leaves_out_its_turns_and_the_screened_texts_close_to_them() -> None:
    held = [corpus.Dialogue(id="dlg-001", turns=[_turn("the second one pls")])]
    learnt = corpus.TrainingSet(
        messages=[
            _message("tr-xx-0001", "the second one please"),  # written later: screened
            _message("dv-xx-0001", "the 2nd one pls"),  # dev: screened
            _message("df-0004", "the second one pls!"),  # an original train item: kept
            _message("tr-xx-0002", "how much is the drain pump"),  # not close: kept
        ],
        turns=[("dlg-001#1", _turn("the second one pls")), ("dlg-002#1", _turn("yes"))],
    )
    kept = cv.fold_set(learnt, held)
    assert [m["id"] for m in kept.messages] == ["df-0004", "tr-xx-0002"]
    assert [i for i, _ in kept.turns] == ["dlg-002#1"]
    unscreened = cv.fold_set(learnt, held, screen=False)
    assert len(unscreened.messages) == 4
    assert [i for i, _ in unscreened.turns] == ["dlg-002#1"]


def test_a_variant_changes_the_words_of_later_turns_only() -> None:
    d = corpus.Dialogue(id="dlg-001", turns=[_turn("My DW leaks."), _turn("number 2?")])
    thanked = cv.variant(d, "thanks")
    assert [t["user"] for t in thanked["turns"]] == ["My DW leaks.", "number 2 thanks"]
    assert [t["expect"] for t in thanked["turns"]] == [t["expect"] for t in d["turns"]]
    assert cv.variant(d, "lower")["turns"][0]["user"] == "my dw leaks"


def test_the_shoppers_spellings_and_marks() -> None:
    d = corpus.Dialogue(id="dlg-001", turns=[_turn("thanks, your site"), _turn("the second one")])
    assert [t["user"] for t in cv.variant(d, "texting")["turns"]] == ["thx, ur site", "the 2nd one"]
    assert [t["user"] for t in cv.variant(d, "asked")["turns"]] == [
        "thanks, your site",
        "the second one?",
    ]
    assert [t["user"] for t in cv.variant(d, "hey")["turns"]] == [
        "hey, thanks, your site",
        "the second one",
    ]
    assert cv.variant(d, "hmm")["turns"][1]["user"] == "hmm the second one"


def test_a_fold_screens_against_its_dialogues_paraphrases_too() -> None:
    held = [corpus.Dialogue(id="dlg-001", turns=[_turn("the second one pls")])]
    told = [corpus.Dialogue(id="pp-dlg-001", turns=[_turn("can i get number two")])]
    learnt = corpus.TrainingSet(
        messages=[_message("tr-xx-0001", "can i get number two pls")],
        turns=[("dlg-002#1", _turn("can i get number two"))],  # original: never screened
    )
    assert cv.fold_set(learnt, held).messages != []
    kept = cv.fold_set(learnt, held, also=told)
    assert kept.messages == []
    assert [i for i, _ in kept.turns] == ["dlg-002#1"]
    assert cv.fold_of_paraphrase(told[0], 5) == cv.fold_of("dlg-001", 5)
