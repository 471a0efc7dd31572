"""The trained model inside ``catalog.db`` (table ``nlu_model``), built with the catalog.

The symptom classifier's labels are the catalog's symptoms, so the model is built, versioned
and replaced together with the catalog it reads: ``partchat catalog build`` (and ``serve``
when the catalog is missing or stale) trains it; serving only loads it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from . import corpus
from .features import FEATURES_VERSION
from .model import Understanding
from .train import MODEL_VERSION, WEIGHTS, Example, origin, train


class ModelMissing(Exception):
    """catalog.db has no understanding model (built by an older partchat)."""


def training_digest() -> str:
    """What a rebuild depends on: the training files' bytes (train, dev, and the test
    split dev is checked against) and the code versions."""
    h = hashlib.sha256(f"features {FEATURES_VERSION} model {MODEL_VERSION}\0".encode())
    for f in corpus.training_files():
        if f.is_file():
            h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def training_mtimes() -> list[float]:
    return [Path(str(f)).stat().st_mtime for f in corpus.training_files() if f.is_file()]


def examples(
    conn: sqlite3.Connection, splits: Sequence[corpus.Split] = corpus.LEARNT
) -> list[Example]:
    """The examples of ``splits``: train and dev for the shipped model, less the dev items
    too close to a test text (``corpus.training_set``)."""
    return examples_of(conn, corpus.training_set(splits))


def examples_of(
    conn: sqlite3.Connection,
    learnt: corpus.TrainingSet,
    weights: Mapping[str, float] = WEIGHTS,
) -> list[Example]:
    """``learnt``'s messages, then its dialogue turns, then every symptom's label and
    phrasings from the catalog (so a symptom the corpus lacks is still known), each
    weighted by its origin (``train.origin``). A corpus symptom the catalog lacks (an
    imported catalog's vocabulary is the store's) is dropped from its example: the model
    only ever names the catalog's symptoms."""
    vocab = conn.execute("SELECT id, label, synonyms FROM symptoms ORDER BY id").fetchall()
    known = {_slug(sid) for sid, _label, _synonyms in vocab}

    def slugs(ids: list[str]) -> tuple[str, ...]:
        return tuple(slug for slug in map(_slug, ids) if slug in known)

    out = [
        Example(m["text"], m["intent"], slugs(m["symptoms"]), weights[origin(m["id"])])
        for m in learnt.messages
    ]
    out += [
        Example(t["user"], t["intent"], slugs(t["symptoms"]), weights[origin(turn_id)])
        for turn_id, t in learnt.turns
    ]
    for sid, label, synonyms in vocab:
        for phrase in dict.fromkeys([label.lower(), *json.loads(synonyms)]):
            out.append(Example(phrase, None, (_slug(sid),), weights[origin(None)]))
    return out


def _slug(symptom_id: str) -> str:
    return symptom_id.split("/", 1)[1]


# The large arrays are stored as float64 bytes beside the JSON of the rest: parsing them
# as JSON lists cost 0.3 s of every start-up.
_ARRAYS = ("idf", "intent_weights", "slug_weights")


def _stored(data: dict[str, Any]) -> tuple[str, bytes]:
    arrays = [np.asarray(data.pop(name), dtype="<f8") for name in _ARRAYS]
    data["shapes"] = [list(a.shape) for a in arrays]
    return json.dumps(data, separators=(",", ":")), b"".join(a.tobytes() for a in arrays)


def insert_model(conn: sqlite3.Connection, splits: Sequence[corpus.Split] = corpus.LEARNT) -> None:
    """Train on the corpus (train + dev) and the catalog's symptoms just inserted; store
    the weights and the splits learnt."""
    data = {**fit(conn, splits), "learnt": list(splits)}
    conn.execute("INSERT INTO nlu_model (id, data, arrays) VALUES (1, ?, ?)", _stored(data))


def fit(conn: sqlite3.Connection, splits: Sequence[corpus.Split] = corpus.LEARNT) -> dict[str, Any]:
    """The model learnt from ``splits`` and the symptoms of the catalog open in ``conn``."""
    return train(examples(conn, splits))


def fit_train_only(db_path: Path) -> Understanding:
    """A model learnt from the train split alone, with ``db_path``'s catalog symptoms:
    what dev is scored with, since the shipped model learns from dev (the same examples
    give the same model, so it needs no cache)."""
    conn = sqlite3.connect(Path(db_path).resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return Understanding(fit(conn, ("train",)))
    finally:
        conn.close()


class _ModelInCatalog:
    """The understanding model as built into catalog.db (a ``catalog.build.Extension``):
    trained from the corpus and the catalog's symptoms inside every catalog build."""

    splits: tuple[corpus.Split, ...] = corpus.LEARNT

    def digest(self) -> str:
        return f"{training_digest()} {'+'.join(self.splits)}"

    def mtimes(self) -> list[float]:
        return training_mtimes()

    def insert(self, conn: sqlite3.Connection) -> None:
        insert_model(conn)


class _TrainOnlyModelInCatalog(_ModelInCatalog):
    """A catalog whose model learnt train alone, to score dev with (``bench/nlu.py --split
    dev`` builds one); its digest differs, so it is never taken for the shipped one."""

    splits = ("train",)

    def insert(self, conn: sqlite3.Connection) -> None:
        insert_model(conn, self.splits)


CATALOG_EXTENSION = _ModelInCatalog()
TRAIN_ONLY_EXTENSION = _TrainOnlyModelInCatalog()


def learnt_by(db_path: Path) -> list[str]:
    """The splits the model in ``db_path`` learnt from (``["train"]``: built before the
    model recorded it, when it learnt train alone; ``[]``: no model)."""
    conn = sqlite3.connect(Path(db_path).resolve().as_uri() + "?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT json_extract(data, '$.learnt') FROM nlu_model").fetchone()
    finally:
        conn.close()
    if row is None:
        return []
    return json.loads(row[0]) if row[0] else ["train"]


def load(db_path: Path) -> Understanding:
    """The model stored in ``db_path`` (read once at start-up)."""
    conn = sqlite3.connect(Path(db_path).resolve().as_uri() + "?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT data, arrays FROM nlu_model WHERE id = 1").fetchone()
    except sqlite3.OperationalError as exc:
        raise ModelMissing(f"{db_path}: no understanding model; rebuild the catalog") from exc
    finally:
        conn.close()
    if row is None:
        raise ModelMissing(f"{db_path}: no understanding model; rebuild the catalog")
    data = json.loads(row[0])
    offset = 0
    for name, shape in zip(_ARRAYS, data.pop("shapes"), strict=True):
        count = int(np.prod(shape))
        data[name] = np.frombuffer(row[1], dtype="<f8", count=count, offset=offset).reshape(shape)
        offset += count * 8
    return Understanding(data)
