"""What the classifiers learn from, on a small hand-made corpus: the shipped model learns
train and dev, less any dev text too close to a test text; dev is scored with a model of
train alone."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench import nlu as nlu_bench
from partchat.nlu import corpus
from partchat.nlu import store as nlu_store
from partchat.nlu.train import Example, train


def _message(item_id: str, text: str, intent: str, symptoms: list[str] | None = None) -> dict:  # type: ignore[type-arg]
    return {
        "id": item_id,
        "text": text,
        "intent": intent,
        "symptoms": symptoms or [],
        "appliance": None,
        "parts": [],
        "models": [],
    }


def _dialogue(item_id: str, *turns: tuple[str, str]) -> dict:  # type: ignore[type-arg]
    return {
        "id": item_id,
        "turns": [
            {
                "user": text,
                "intent": intent,
                "symptoms": [],
                "appliance": None,
                "parts": [],
                "models": [],
                "expect": {"tool": None, "asks": "model"},
            }
            for text, intent in turns
        ],
    }


DRAIN = ["dishwasher/not-draining"]
TRAIN = [
    _message("tr-a-0001", "my dishwasher is not draining", "diagnose", DRAIN),
    _message("tr-a-0002", "water left at the bottom of the dishwasher", "diagnose", DRAIN),
    _message("tr-a-0003", "how do i install PS11752778", "install"),
    _message("tr-a-0004", "how do I fit it", "install"),
    _message("tr-a-0005", "hi there", "greeting"),
    _message("tr-a-0006", "hello", "greeting"),
]
DEV_NEW = "dw full of dirty water after the cycle, what do i swap"
DEV_SAME = "Price of PS11753379 ?"  # the test's "price of PS3406971?" once normalised
DEV_NEAR = "how can i put the new drain pump in myself"  # a test text, one word changed
DEV = [
    _message("dv-fx-0001", DEV_NEW, "diagnose", DRAIN),
    _message("dv-fx-0002", DEV_SAME, "details"),
    _message("dv-fx-0003", DEV_NEAR, "install"),
]
DEV_TURN_NEW = "its the bosch one under the counter"
DEV_TURN_SAME = "yep"
DEV_DIALOGUES = [_dialogue("dv-fd-01", (DEV_TURN_NEW, "answer"), (DEV_TURN_SAME, "answer"))]
TEST = [
    _message("so-0001", "price of PS3406971?", "details"),
    _message("so-0002", "how can i put the new drain pump in by myself", "install"),
]
TEST_DIALOGUES = [_dialogue("so-0003", ("Yep!", "answer"))]


def _write(path: Path, rows: list[dict]) -> None:  # type: ignore[type-arg]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The hand-made corpus, also as the default root (``corpus.data_root``)."""
    data = tmp_path / "nlu"
    data.mkdir()
    _write(data / "messages_train.jsonl", TRAIN)
    _write(data / "dialogues_train.jsonl", [])
    _write(data / "messages_dev.jsonl", DEV)
    _write(data / "dialogues_dev.jsonl", DEV_DIALOGUES)
    _write(data / "messages_test.jsonl", TEST)
    _write(data / "dialogues_test.jsonl", TEST_DIALOGUES)
    monkeypatch.setattr(corpus, "data_root", lambda source_dir=None: data)
    return data


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A catalog with two symptoms and room for the model."""
    path = tmp_path / "catalog.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE symptoms (id TEXT, label TEXT, synonyms TEXT)")
    conn.execute(
        "CREATE TABLE nlu_model (id INTEGER PRIMARY KEY, data TEXT NOT NULL, arrays BLOB NOT NULL)"
    )
    conn.executemany(
        "INSERT INTO symptoms VALUES (?, ?, ?)",
        [
            ("dishwasher/not-draining", "Not draining", '["water left in the tub"]'),
            ("refrigerator/leaking", "Leaking", '["puddle under the fridge"]'),
        ],
    )
    conn.commit()
    conn.close()
    return path


@pytest.fixture
def learnt(monkeypatch: pytest.MonkeyPatch) -> list[set[str]]:
    """The texts of each model trained from here on."""
    seen: list[set[str]] = []

    def recording(examples: list[Example], **kw: Any) -> dict[str, Any]:
        seen.append({e.text for e in examples})
        return train(examples, **kw)

    monkeypatch.setattr(nlu_store, "train", recording)
    return seen


def test_the_training_set_is_train_and_dev_less_what_is_close_to_a_test_text(root: Path) -> None:
    learnt = corpus.training_set(root=root)
    texts = [m["text"] for m in learnt.messages] + [t["user"] for _, t in learnt.turns]
    assert texts == [*(m["text"] for m in TRAIN), DEV_NEW, DEV_TURN_NEW]
    assert learnt.left_out == ["dv-fx-0002", "dv-fx-0003", "dv-fd-01#2"]
    assert [i for i, _ in learnt.turns] == ["dv-fd-01#1"]


def test_train_alone_has_no_dev_item_and_test_is_never_learnt(root: Path) -> None:
    learnt = corpus.training_set(("train",), root=root)
    assert [m["id"] for m in learnt.messages] == [m["id"] for m in TRAIN]
    assert learnt.turns == [] and learnt.left_out == []
    with pytest.raises(ValueError):
        corpus.training_set(("train", "test"), root=root)


def test_similarity_is_of_normalised_texts() -> None:
    assert corpus.similarity(DEV_SAME, TEST[0]["text"]) == 1.0
    assert corpus.similarity(DEV_NEAR, TEST[1]["text"]) >= corpus.TEST_SIMILARITY
    assert corpus.similarity(DEV_NEW, TEST[1]["text"]) < corpus.TEST_SIMILARITY


def test_the_shipped_model_learns_dev(root: Path, db: Path, learnt: list[set[str]]) -> None:
    conn = sqlite3.connect(db)
    nlu_store.insert_model(conn)
    conn.commit()
    conn.close()
    (texts,) = learnt
    assert {m["text"] for m in TRAIN} | {DEV_NEW, DEV_TURN_NEW, "water left in the tub"} <= texts
    assert not {DEV_SAME, DEV_NEAR, DEV_TURN_SAME} & texts
    assert nlu_store.learnt_by(db) == ["train", "dev"]
    shipped = nlu_bench.model_for("test", db)
    assert shipped[1] == nlu_bench.SHIPPED
    assert shipped[0].score(DEV_NEW).intent == "diagnose"


def test_dev_is_scored_with_a_model_of_train_alone(
    root: Path, db: Path, learnt: list[set[str]]
) -> None:
    model, name = nlu_bench.model_for("dev", db)
    assert name == nlu_bench.TRAIN_ONLY
    (texts,) = learnt
    assert {m["text"] for m in TRAIN} <= texts
    assert not {m["text"] for m in DEV} & texts and DEV_TURN_NEW not in texts
    assert model.intents == ["diagnose", "greeting", "install"]


def test_a_catalog_built_to_score_dev_holds_a_model_of_train_alone(
    root: Path, db: Path, learnt: list[set[str]]
) -> None:
    conn = sqlite3.connect(db)
    nlu_store.TRAIN_ONLY_EXTENSION.insert(conn)
    conn.commit()
    conn.close()
    assert nlu_store.learnt_by(db) == ["train"]
    assert nlu_bench.model_for("dev", db)[1] == nlu_bench.TRAIN_ONLY
    assert len(learnt) == 1  # loaded, not fitted again
    assert not {m["text"] for m in DEV} & learnt[0]
    assert nlu_store.TRAIN_ONLY_EXTENSION.digest() != nlu_store.CATALOG_EXTENSION.digest()


def test_the_model_is_rebuilt_when_dev_changes(root: Path) -> None:
    files: Callable[[], list[str]] = lambda: [f.name for f in corpus.training_files()]  # noqa: E731
    assert {"messages_dev.jsonl", "dialogues_dev.jsonl"} <= set(files())
    before = nlu_store.training_digest()
    _write(root / "messages_dev.jsonl", DEV[:1])
    assert nlu_store.training_digest() != before
