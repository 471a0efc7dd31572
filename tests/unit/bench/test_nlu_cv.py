"""``bench/nlu_cv.py``'s folds: a run of ten paraphrases stays on one side of a split."""

from __future__ import annotations

from bench import nlu_cv
from partchat.nlu.train import Example


def test_a_run_of_ten_ids_shares_a_fold() -> None:
    assert len({nlu_cv.fold_of(f"tr-sd-{i:04d}", 5) for i in range(10, 20)}) == 1
    assert nlu_cv.fold_of("df-0007", 5) == nlu_cv.fold_of("df-0003", 5)


def test_folds_are_fixed_and_all_used() -> None:
    ids = [f"tr-xx-{i:04d}" for i in range(0, 2000, 10)]
    folds = [nlu_cv.fold_of(i, 5) for i in ids]
    assert folds == [nlu_cv.fold_of(i, 5) for i in ids]
    assert set(folds) == set(range(5))


def test_the_model_cache_key_covers_weights_and_training_parameters() -> None:
    plain = [Example("fridge leaking", "diagnose", ("leaking",))]
    key = nlu_cv.model_digest(plain)
    assert nlu_cv.model_digest([Example("fridge leaking", "diagnose", ("leaking",), 1.0)]) == key
    assert nlu_cv.model_digest([Example("fridge leaking", "diagnose", ("leaking",), 3.0)]) != key
    assert nlu_cv.model_digest(plain, {"intent_c": 10.0}) != key
    assert nlu_cv.model_digest(plain, {}) == key
