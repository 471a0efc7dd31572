"""``bench/nlu_orig_cv.py``: which held-out messages stand for the test split, and which half
of them may be looked at."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any
from unittest.mock import patch

from bench import nlu_cv, nlu_orig_cv
from partchat.nlu import corpus
from partchat.nlu import train as nlu_train


def _message(item_id: str, text: str) -> Any:
    return {"id": item_id, "text": text, "intent": "search", "symptoms": [],
            "appliance": None, "parts": [], "models": []}  # fmt: skip


def test_original_ids_are_split_by_fold_into_look_and_check() -> None:
    ids = [f"{p}-{i:04d}" for p in ("so", "df") for i in range(0, 600, 10)]
    groups = {i: nlu_orig_cv.group_of(i) for i in ids}
    assert set(groups.values()) == {"look", "check"}
    for i, g in groups.items():
        assert (g == "look") == (nlu_cv.fold_of(i, 5) in (0, 1, 2))


def test_later_items_are_their_own_group_and_dev_is_none() -> None:
    assert nlu_orig_cv.group_of("tr-sd-0012") == "tr"
    assert nlu_orig_cv.group_of("dv-fq-0001") is None
    assert nlu_orig_cv.group_of("dlg-0003") is None


def test_a_fold_leaves_out_later_items_close_to_its_originals_and_their_paraphrases(
    tmp_path: Path,
) -> None:
    """The shipped model never learns a ``tr-`` text close to a test one; a fold never
    learns one close to the originals (or their paraphrases) it holds out."""
    learnt = corpus.TrainingSet(
        messages=[
            _message("so-0001", "my fridge is not cold at all"),
            _message("so-0100", "need a new door gasket"),
            _message("tr-xx-0001", "my fridge is not cold at all!!"),  # near so-0001
            _message("tr-xx-0002", "whats the price of that gasket thing"),  # near a paraphrase
            _message("tr-xx-0003", "how do i reset the control board"),
        ]
    )
    told = [dict(_message("pp-so-0100", "what's the price on that gasket thing"), of="so-0100")]
    db = tmp_path / "c.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE symptoms (id TEXT, label TEXT, synonyms TEXT)")
    with patch.object(corpus, "training_set", return_value=learnt):
        out = nlu_orig_cv.folds(db, 5, nlu_train.WEIGHTS, told)  # type: ignore[arg-type]
        loose = nlu_orig_cv.folds(db, 5, nlu_train.WEIGHTS, told, screen=False)  # type: ignore[arg-type]
    f0, f100 = nlu_cv.fold_of("so-0001", 5), nlu_cv.fold_of("so-0100", 5)
    assert f0 != f100
    texts = {f: {e.text for e in out[f][0]} for f in range(5)}
    assert "my fridge is not cold at all!!" not in texts[f0]
    assert "my fridge is not cold at all" not in texts[f0]
    assert "whats the price of that gasket thing" not in texts[f100]
    assert "whats the price of that gasket thing" in texts[f0]
    assert "how do i reset the control board" in texts[f0] | texts[f100]
    assert [p["id"] for p in out[f100][2]] == ["pp-so-0100"]
    assert "my fridge is not cold at all!!" in {e.text for e in loose[f0][0]}
