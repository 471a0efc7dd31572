"""The labelled corpus in ``data/nlu/`` (shipped as ``partchat.nlu_data``).

``messages_<split>.jsonl``: one message per line with its intent, symptom ids, appliance,
part and model numbers. ``dialogues_<split>.jsonl``: one conversation per line, each turn
labelled the same way plus the tool call the assistant should make. The split was made
once (by a hash of each item's id); ``test`` is frozen and never used to tune anything.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Literal, TypedDict

PACKAGE_DATA = "partchat.nlu_data"
Split = Literal["train", "dev", "test"]
SPLITS: tuple[Split, ...] = ("train", "dev", "test")


class Labelled(TypedDict):
    id: str
    text: str
    intent: str
    symptoms: list[str]
    appliance: str | None
    parts: list[str]
    models: list[str]


class Expect(TypedDict, total=False):
    tool: str | None
    args: dict[str, Any]
    asks: str


class DialogueTurn(TypedDict):
    user: str
    intent: str
    symptoms: list[str]
    appliance: str | None
    parts: list[str]
    models: list[str]
    expect: Expect


class Dialogue(TypedDict):
    id: str
    turns: list[DialogueTurn]


def data_root(source_dir: Path | None = None) -> Traversable:
    return Path(source_dir) if source_dir is not None else resources.files(PACKAGE_DATA)


def _lines(root: Traversable, name: str) -> Iterator[dict[str, Any]]:
    f = root.joinpath(name)
    if not f.is_file():
        return
    for line in f.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def messages(split: Split, root: Traversable | None = None) -> list[Labelled]:
    return [Labelled(**m) for m in _lines(root or data_root(), f"messages_{split}.jsonl")]  # type: ignore[typeddict-item]


def dialogues(split: Split, root: Traversable | None = None) -> list[Dialogue]:
    return [Dialogue(**d) for d in _lines(root or data_root(), f"dialogues_{split}.jsonl")]  # type: ignore[typeddict-item]


def training_files(root: Traversable | None = None) -> list[Traversable]:
    """What the classifiers learn from: the train split only."""
    root = root or data_root()
    return [root.joinpath(f"{kind}_train.jsonl") for kind in ("messages", "dialogues")]


# Items written after the split went to train (``tr-…``: to learn from) or dev
# (``dv-…``: to tune on); the test split stays the one made once.
LATER: dict[str, Split] = {"tr-": "train", "dv-": "dev"}


def split_of(item_id: str) -> Split:
    """The split an item belongs to, fixed by its id: 60 % train, 15 % dev, 25 % test;
    items written after the split by their prefix (``LATER``)."""
    for prefix, split in LATER.items():
        if item_id.startswith(prefix):
            return split
    bucket = int(hashlib.sha256(item_id.encode()).hexdigest()[:8], 16) % 100
    return "train" if bucket < 60 else "dev" if bucket < 75 else "test"
