"""The labelled corpus in ``data/nlu/`` (shipped as ``partchat.nlu_data``).

``messages_<split>.jsonl``: one message per line with its intent, symptom ids, appliance,
part and model numbers. ``dialogues_<split>.jsonl``: one conversation per line, each turn
labelled the same way plus the tool call the assistant should make. The split was made
once (by a hash of each item's id); ``test`` is frozen and never used to tune anything.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Literal, TypedDict

from .features import normalize

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


LEARNT: tuple[Split, ...] = ("train", "dev")
"""What the shipped classifiers learn from. Dev's figures come from a model fitted on
train alone (``bench/nlu.py --split dev``), so dev still measures phrasings not learnt."""
TEST_SIMILARITY = 0.7
"""A dev text at least this similar to a test text (``similarity``) is not learnt from."""


def training_files(root: Traversable | None = None) -> list[Traversable]:
    """What the shipped classifiers' training reads: the learnt splits, and the test split
    that dev items are checked against (never learnt from)."""
    root = root or data_root()
    return [
        root.joinpath(f"{kind}_{split}.jsonl")
        for split in (*LEARNT, "test")
        for kind in ("messages", "dialogues")
    ]


def similarity(a: str, b: str) -> float:
    """How alike two texts are once normalised (lower case, numbers as placeholders):
    rapidfuzz's ratio, 2 × their longest common subsequence / their total length (at
    least difflib's ratio, so a pair difflib finds close is close here too)."""
    from rapidfuzz import fuzz

    return fuzz.ratio(normalize(a), normalize(b)) / 100


@dataclass
class TrainingSet:
    """The labelled texts a model learns from: messages first, then dialogue turns."""

    messages: list[Labelled] = field(default_factory=list)
    turns: list[tuple[str, DialogueTurn]] = field(default_factory=list)
    """Each turn with its id: its dialogue's and its place (``dlg-0003#2``)."""
    left_out: list[str] = field(default_factory=list)
    """Dev ids (``dv-fx-0001``, ``dlg-0003#2`` for a turn) too close to a test text."""


def training_set(splits: Sequence[Split] = LEARNT, root: Traversable | None = None) -> TrainingSet:
    """The messages and dialogue turns of ``splits`` in corpus order, less every dev item
    whose text equals a test text once normalised or is within ``TEST_SIMILARITY`` of one
    (an automated check: the test texts are compared, never shown)."""
    if "test" in splits:
        raise ValueError("the test split is never learnt from")
    out = TrainingSet()
    close = _close_to_test(root) if "dev" in splits else None
    for split in splits:
        for m in messages(split, root):
            if split == "dev" and close is not None and close(m["text"]):
                out.left_out.append(m["id"])
            else:
                out.messages.append(m)
    for split in splits:
        for d in dialogues(split, root):
            for i, t in enumerate(d["turns"], 1):
                turn_id = f"{d['id']}#{i}"
                if split == "dev" and close is not None and close(t["user"]):
                    out.left_out.append(turn_id)
                else:
                    out.turns.append((turn_id, t))
    return out


def _close_to_test(root: Traversable | None) -> Callable[[str], bool]:
    from rapidfuzz import fuzz, process

    texts = [m["text"] for m in messages("test", root)]
    texts += [t["user"] for d in dialogues("test", root) for t in d["turns"]]
    normal = sorted({normalize(t) for t in texts})
    cutoff = TEST_SIMILARITY * 100

    def close(text: str) -> bool:
        a = normalize(text)
        return process.extractOne(a, normal, scorer=fuzz.ratio, score_cutoff=cutoff) is not None

    return close


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
