"""A small hand-made corpus (train, dev, test) and catalog for the tests of what the
understanding model learns from (``tests/unit/nlu/test_training_set.py``,
``tests/unit/bench/test_nlu_models.py``)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from partchat.nlu import corpus
from partchat.nlu import store as nlu_store
from partchat.nlu.train import Example, train


def message(item_id: str, text: str, intent: str, symptoms: list[str] | None = None) -> dict:  # type: ignore[type-arg]
    return {
        "id": item_id,
        "text": text,
        "intent": intent,
        "symptoms": symptoms or [],
        "appliance": None,
        "parts": [],
        "models": [],
    }


def dialogue(item_id: str, *turns: tuple[str, str]) -> dict:  # type: ignore[type-arg]
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
    message("tr-a-0001", "my dishwasher is not draining", "diagnose", DRAIN),
    message("tr-a-0002", "water left at the bottom of the dishwasher", "diagnose", DRAIN),
    message("tr-a-0003", "how do i install PS11752778", "install"),
    message("tr-a-0004", "how do I fit it", "install"),
    message("tr-a-0005", "hi there", "greeting"),
    message("tr-a-0006", "hello", "greeting"),
]
DEV_NEW = "dw full of dirty water after the cycle, what do i swap"
DEV_SAME = "Price of PS11753379 ?"  # the test's "price of PS3406971?" once normalised
DEV_NEAR = "how can i put the new drain pump in myself"  # a test text, one word changed
DEV = [
    message("dv-fx-0001", DEV_NEW, "diagnose", DRAIN),
    message("dv-fx-0002", DEV_SAME, "details"),
    message("dv-fx-0003", DEV_NEAR, "install"),
]
DEV_TURN_NEW = "its the bosch one under the counter"
DEV_TURN_SAME = "yep"
DEV_DIALOGUES = [dialogue("dv-fd-01", (DEV_TURN_NEW, "answer"), (DEV_TURN_SAME, "answer"))]
TEST = [
    message("so-0001", "price of PS3406971?", "details"),
    message("so-0002", "how can i put the new drain pump in by myself", "install"),
]
TEST_DIALOGUES = [dialogue("so-0003", ("Yep!", "answer"))]


def write(path: Path, rows: list[dict]) -> None:  # type: ignore[type-arg]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def nlu_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The hand-made corpus, also as the default root (``corpus.data_root``)."""
    data = tmp_path / "nlu"
    data.mkdir()
    write(data / "messages_train.jsonl", TRAIN)
    write(data / "dialogues_train.jsonl", [])
    write(data / "messages_dev.jsonl", DEV)
    write(data / "dialogues_dev.jsonl", DEV_DIALOGUES)
    write(data / "messages_test.jsonl", TEST)
    write(data / "dialogues_test.jsonl", TEST_DIALOGUES)
    monkeypatch.setattr(corpus, "data_root", lambda source_dir=None: data)
    return data


@pytest.fixture
def nlu_db(tmp_path: Path) -> Path:
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
