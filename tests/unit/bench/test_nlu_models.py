"""``bench/nlu.py``'s models, on a small hand-made corpus: the test split is scored with
the shipped model (train + dev), dev with one of train alone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bench import nlu as nlu_bench
from partchat.nlu import store as nlu_store
from tests.support.nlu_corpus import (
    DEV,
    DEV_NEW,
    DEV_TURN_NEW,
    TRAIN,
)


def test_the_test_split_is_scored_with_the_shipped_model(
    nlu_root: Path, nlu_db: Path, learnt: list[set[str]]
) -> None:
    conn = sqlite3.connect(nlu_db)
    nlu_store.insert_model(conn)
    conn.commit()
    conn.close()
    shipped, name = nlu_bench.model_for("test", nlu_db)
    assert name == nlu_bench.SHIPPED
    assert shipped.score(DEV_NEW).intent == "diagnose"
    assert len(learnt) == 1  # the stored model, not fitted again
    assert DEV_NEW in learnt[0]


def test_dev_is_scored_with_a_model_of_train_alone(
    nlu_root: Path, nlu_db: Path, learnt: list[set[str]]
) -> None:
    model, name = nlu_bench.model_for("dev", nlu_db)
    assert name == nlu_bench.TRAIN_ONLY
    (texts,) = learnt
    assert {m["text"] for m in TRAIN} <= texts
    assert not {m["text"] for m in DEV} & texts and DEV_TURN_NEW not in texts
    assert model.intents == ["diagnose", "greeting", "install"]


def test_a_catalog_built_to_score_dev_holds_a_model_of_train_alone(
    nlu_root: Path, nlu_db: Path, learnt: list[set[str]]
) -> None:
    conn = sqlite3.connect(nlu_db)
    nlu_store.TRAIN_ONLY_EXTENSION.insert(conn)
    conn.commit()
    conn.close()
    assert nlu_store.learnt_by(nlu_db) == ["train"]
    assert nlu_bench.model_for("dev", nlu_db)[1] == nlu_bench.TRAIN_ONLY
    assert len(learnt) == 1  # loaded, not fitted again
    assert not {m["text"] for m in DEV} & learnt[0]
    assert nlu_store.TRAIN_ONLY_EXTENSION.digest() != nlu_store.CATALOG_EXTENSION.digest()


def test_a_prefix_reads_one_family_of_probes() -> None:
    items = [{**TRAIN[0], "id": i} for i in ("dv-fq-001", "dv-fm-001", "dv-fq-002")]
    dialogues = [{"id": i, "turns": []} for i in ("dv-fq-01", "dv-fp-01")]
    got, turns = nlu_bench.selected(items, dialogues, prefix="dv-fq")
    assert [m["id"] for m in got] == ["dv-fq-001", "dv-fq-002"]
    assert [d["id"] for d in turns] == ["dv-fq-01"]
    got, turns = nlu_bench.selected(items, dialogues)
    assert len(got) == 3 and len(turns) == 2
