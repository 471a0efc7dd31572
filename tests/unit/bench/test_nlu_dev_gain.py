"""``bench/nlu_dev_gain.py``'s halves: what each model learns besides train."""

from __future__ import annotations

from typing import Any, cast

from bench.nlu_dev_gain import with_half

from partchat.nlu import corpus


def _learnt() -> corpus.TrainingSet:
    def msg(item_id: str) -> corpus.Labelled:
        return cast(corpus.Labelled, {"id": item_id, "text": item_id})

    turn = cast(corpus.DialogueTurn, cast(Any, {"user": "yes"}))
    return corpus.TrainingSet(
        messages=[msg("tr-an-0001"), msg("dv-fx-0001"), msg("dv-fs-0001")],
        turns=[("tr-an-0002#1", turn), ("dv-fd-01#1", turn), ("dv-fe-01#2", turn)],
    )


def test_a_half_adds_its_own_dev_items_to_train() -> None:
    got = with_half(_learnt(), 0, "families")
    assert [m["id"] for m in got.messages] == ["tr-an-0001", "dv-fx-0001"]
    assert [i for i, _ in got.turns] == ["tr-an-0002#1", "dv-fd-01#1"]


def test_without_dev_turns_a_half_adds_its_messages_only() -> None:
    got = with_half(_learnt(), 1, "families", dev_turns=False)
    assert [m["id"] for m in got.messages] == ["tr-an-0001", "dv-fs-0001"]
    assert [i for i, _ in got.turns] == ["tr-an-0002#1"]  # train's turns are kept
