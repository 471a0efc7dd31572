"""What the classifiers learn from, on a small hand-made corpus: train and dev, less any
dev text too close to a test text; train alone for the model dev is scored with."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from partchat.nlu import corpus
from partchat.nlu import store as nlu_store
from tests.support.nlu_corpus import (
    DEV,
    DEV_NEAR,
    DEV_NEW,
    DEV_SAME,
    DEV_TURN_NEW,
    DEV_TURN_SAME,
    TEST,
    TRAIN,
    write,
)


def test_the_training_set_is_train_and_dev_less_what_is_close_to_a_test_text(
    nlu_root: Path,
) -> None:
    learnt = corpus.training_set(root=nlu_root)
    texts = [m["text"] for m in learnt.messages] + [t["user"] for _, t in learnt.turns]
    assert texts == [*(m["text"] for m in TRAIN), DEV_NEW, DEV_TURN_NEW]
    assert learnt.left_out == ["dv-fx-0002", "dv-fx-0003", "dv-fd-01#2"]
    assert [i for i, _ in learnt.turns] == ["dv-fd-01#1"]


def test_train_alone_has_no_dev_item_and_test_is_never_learnt(nlu_root: Path) -> None:
    learnt = corpus.training_set(("train",), root=nlu_root)
    assert [m["id"] for m in learnt.messages] == [m["id"] for m in TRAIN]
    assert learnt.turns == [] and learnt.left_out == []
    with pytest.raises(ValueError):
        corpus.training_set(("train", "test"), root=nlu_root)


def test_similarity_is_of_normalised_texts() -> None:
    assert corpus.similarity(DEV_SAME, TEST[0]["text"]) == 1.0
    assert corpus.similarity(DEV_NEAR, TEST[1]["text"]) >= corpus.TEST_SIMILARITY
    assert corpus.similarity(DEV_NEW, TEST[1]["text"]) < corpus.TEST_SIMILARITY


def test_the_shipped_model_learns_dev_less_what_is_close_to_a_test_text(
    nlu_root: Path, nlu_db: Path, learnt: list[set[str]]
) -> None:
    conn = sqlite3.connect(nlu_db)
    nlu_store.insert_model(conn)
    conn.commit()
    conn.close()
    (texts,) = learnt
    assert {m["text"] for m in TRAIN} | {DEV_NEW, DEV_TURN_NEW, "water left in the tub"} <= texts
    assert not {DEV_SAME, DEV_NEAR, DEV_TURN_SAME} & texts
    assert nlu_store.learnt_by(nlu_db) == ["train", "dev"]
    assert nlu_store.load(nlu_db).score(DEV_NEW).intent == "diagnose"


def test_a_model_of_train_alone_learns_no_dev_item(
    nlu_root: Path, nlu_db: Path, learnt: list[set[str]]
) -> None:
    model = nlu_store.fit_train_only(nlu_db)
    (texts,) = learnt
    assert {m["text"] for m in TRAIN} <= texts
    assert not {m["text"] for m in DEV} & texts and DEV_TURN_NEW not in texts
    assert model.intents == ["diagnose", "greeting", "install"]


def test_the_model_is_rebuilt_when_dev_changes(nlu_root: Path) -> None:
    files: Callable[[], list[str]] = lambda: [f.name for f in corpus.training_files()]  # noqa: E731
    assert {"messages_dev.jsonl", "dialogues_dev.jsonl"} <= set(files())
    before = nlu_store.training_digest()
    write(nlu_root / "messages_dev.jsonl", DEV[:1])
    assert nlu_store.training_digest() != before
