"""``bench/nlu_orig_cv.py``: which held-out messages stand for the test split, and which half
of them may be looked at."""

from __future__ import annotations

from bench import nlu_cv, nlu_orig_cv


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
