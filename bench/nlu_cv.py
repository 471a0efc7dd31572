"""Choose the reading's thresholds by grouped k-fold cross-validation on the TRAIN split.

    .venv/bin/python bench/nlu_cv.py --catalog var/catalog.db          # thresholds
    .venv/bin/python bench/nlu_cv.py --catalog var/catalog.db --symptom-c 3 10 30
    .venv/bin/python bench/nlu_cv.py --catalog var/catalog.db --with-dev   # folds of train + dev
    .venv/bin/python bench/nlu_cv.py --catalog var/catalog.db --fixed [--with-dev]   # no search

Each fold trains the classifiers on the other folds (plus the dialogues' turns and the
catalog's symptom phrasings, which are never held out) and reads its own messages with
each setting of ``reading.Tuning`` and the model's second-slug threshold; a coordinate
search keeps the setting with the best symptom F1 over all held-out messages. Folds are
groups of ten consecutive ids: the corpus was written in runs of paraphrases, and a
paraphrase on each side of a split would reward trusting the classifier. Dev and test
are not read: dev stays the check of what this chooses (``--with-dev`` folds train and
the dev items the shipped model learns from together, to compare with train's folds: a
train message falls in the same fold either way; ``--fixed`` reads each fold with today's
settings only and prints the held-out figures of each split).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import hashlib
import itertools
import json
import re
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from partchat.catalog import Catalog  # noqa: E402
from partchat.nlu import corpus  # noqa: E402
from partchat.nlu import store as nlu_store  # noqa: E402
from partchat.nlu.evaluate import Report, evaluate  # noqa: E402
from partchat.nlu.features import normalize  # noqa: E402
from partchat.nlu.model import Understanding  # noqa: E402
from partchat.nlu.reading import TUNING, Tuning  # noqa: E402
from partchat.nlu.train import SECOND_THRESHOLD, SYMPTOM_C, WEIGHTS, Example, train  # noqa: E402

_NUMBERED = re.compile(r"(.*?)(\d+)$")
GRID: list[dict[str, list[Any]]] = [
    {"some_diagnose": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]},
    {"temperatures": [False, True]},
    {"second_own_clause": [False, True], "second": [0.3, 0.4, 0.5]},
    {"match_floor": [0.1, 0.15, 0.25], "clause_sure": [0.7, 0.8, 0.9]},
    {"clause_words": [1, 2]},
    {"warmth_own_clause": [False, True]},
    {"some_elsewhere": [0.3, 0.5, 0.7]},
    {"some_answer": [0.6, 0.8, 0.9]},
]


# What a fitted model depends on besides its examples: the features, training and scoring
# code, and the catalog's vocabularies the features read.
MODEL_SOURCES = (
    *(
        ROOT / "backend/partchat/nlu" / name
        for name in ("features.py", "temperatures.py", "train.py", "model.py")
    ),
    *(ROOT / "backend/partchat/catalog" / name for name in ("vocab.py", "stem.py")),
    *sorted((ROOT / "data/catalog").glob("*.json")),
)


def model_digest(examples: Sequence[Any], params: dict[str, Any] | None = None) -> str:
    """A cache key for the model fitted on ``examples`` (``train.Example``s, with their
    weights) and ``train``'s keyword ``params`` with today's code and vocabularies."""
    h = hashlib.sha256()
    for path in MODEL_SOURCES:
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    for e in examples:
        weight = [] if e.weight == 1.0 else [e.weight]  # unweighted: the same key as before
        h.update(json.dumps([e.text, e.intent, list(e.slugs), *weight]).encode() + b"\n")
    if params:
        h.update(json.dumps(params, sort_keys=True).encode())
    return h.hexdigest()[:24]


def fold_of(item_id: str, k: int) -> int:
    """The fold of an id: its run of ten (``tr-sd-0012`` → ``tr-sd-1``), hashed."""
    m = _NUMBERED.match(item_id)
    group = f"{m.group(1)}{int(m.group(2)) // 10}" if m else item_id
    return int(hashlib.sha256(group.encode()).hexdigest()[:8], 16) % k


def written_later_or_dev(item_id: str) -> bool:
    """An item the test split's texts were screened against: dev (``training_set`` leaves
    out a dev text within ``TEST_SIMILARITY`` of a test one), or written after the split
    (``tr-``, kept clear of held-out texts when written). Only the original train items
    were never screened: a test text may have its paraphrase among them."""
    base = item_id.split("#", 1)[0]
    return base.startswith("tr-") or corpus.split_of(base) == "dev"


def near(texts: Iterable[str]) -> Callable[[str], bool]:
    """Whether a text is within ``corpus.TEST_SIMILARITY`` of one of ``texts`` (both
    normalised): the screen the shipped model's training passes against the test split."""
    from rapidfuzz import fuzz, process

    pool = sorted({normalize(t) for t in texts})
    cutoff = corpus.TEST_SIMILARITY * 100

    def close(text: str) -> bool:
        hit = process.extractOne(normalize(text), pool, scorer=fuzz.ratio, score_cutoff=cutoff)
        return hit is not None

    return close


PARAPHRASES = ROOT / "data" / "nlu"


def paraphrases(kind: str, batch: str = "pp") -> list[dict[str, Any]]:
    """``data/nlu/paraphrases*_<kind>.jsonl``: each original train item (``of``) told
    again in another shopper's words, labels unchanged; a proxy of the test split's
    distribution in wording nobody tuned on (never learnt by the shipped model). Each
    batch's looked-at folds' misses are printed to find classes, its CHECK folds' only
    counted."""
    path = PARAPHRASES / f"paraphrases{batch.removeprefix('pp')}_{kind}.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# The paraphrase batches, in the order written: batch ``ppN`` is ``paraphrasesN_…`` (the
# first, ``pp``, has no number), its ids start ``ppN-``.
BATCHES = ("pp", "pp2", "pp3", "pp4", "pp5")


def add_proxy_options(p: argparse.ArgumentParser, kind: str, leaky: str) -> None:
    """The options of the tools that read the paraphrases of ``kind`` (``messages`` or
    ``dialogues``) with screened folds; ``leaky``: what ``--unscreened`` keeps."""
    p.add_argument(
        "--unscreened",
        action="store_true",
        help=f"keep the {leaky} (a leaky, optimistic figure)",
    )
    p.add_argument(
        "--no-paraphrases",
        action="store_true",
        help=f"skip the paraphrases (data/nlu/paraphrases*_{kind}.jsonl)",
    )


def proxy_paraphrases(kind: str, ns: argparse.Namespace) -> list[dict[str, Any]]:
    """The paraphrases ``add_proxy_options``' flags ask for."""
    if ns.no_paraphrases:
        return []
    return [p for batch in BATCHES for p in paraphrases(kind, batch)]


def batch_of(item_id: str) -> str:
    """``pp``, ``pp2``, …: the paraphrase batch an id belongs to."""
    return item_id.split("-", 1)[0]


def splits(
    db: Path,
    k: int,
    learnt: Sequence[corpus.Split] = ("train",),
    weights: Mapping[str, float] = WEIGHTS,
) -> list[tuple[list[Example], list[corpus.Labelled]]]:
    """Each fold's training examples (the other folds' messages, and every example that is
    not a message of ``learnt``), weighted by origin, and its held-out messages."""
    learnt_set = corpus.training_set(learnt)
    conn = sqlite3.connect(db)
    try:
        examples = nlu_store.examples_of(conn, learnt_set, weights)
    finally:
        conn.close()
    messages = learnt_set.messages
    n = len(messages)  # examples() lists the messages first, in corpus order
    return [
        (
            [e for i, e in enumerate(examples) if i >= n or fold_of(messages[i]["id"], k) != f],
            [m for m in messages if fold_of(m["id"], k) == f],
        )
        for f in range(k)
    ]


def learnt_splits(with_dev: bool) -> tuple[corpus.Split, ...]:
    return corpus.LEARNT if with_dev else ("train",)


def folds(
    db: Path, k: int, symptom_c: float, learnt: Sequence[corpus.Split] = ("train",)
) -> list[tuple[dict[str, Any], list[corpus.Labelled]]]:
    out = []
    for f, (kept, held) in enumerate(splits(db, k, learnt)):
        t0 = time.perf_counter()
        out.append((train(kept, symptom_c=symptom_c), held))
        print(f"  fold {f}: {len(held)} held out, trained in {time.perf_counter() - t0:.0f} s")
    return out


async def cv_report(
    catalog: Catalog,
    trained: list[tuple[dict[str, Any], list[corpus.Labelled]]],
    s: dict[str, Any],
) -> Report:
    tuning = Tuning(**{k: v for k, v in s.items() if k != "second"})
    total = Report()
    for data, held in trained:
        u = Understanding({**data, "second_threshold": s["second"]})
        r = await evaluate(held, catalog, u, tuning=tuning)
        for name in ("n", "intent_right", "numbers_right", "appliance_right", "tp", "fp", "fn"):
            setattr(total, name, getattr(total, name) + getattr(r, name))
    return total


async def search(
    db: Path, trained: list[tuple[dict[str, Any], list[corpus.Labelled]]]
) -> dict[str, Any]:
    catalog = await Catalog.open(db)
    try:
        best: dict[str, Any] = {**dataclasses.asdict(TUNING), "second": SECOND_THRESHOLD}
        for stage in GRID:
            scored = []
            for values in itertools.product(*stage.values()):
                s = {**best, **dict(zip(stage, values, strict=True))}
                r = await cv_report(catalog, trained, s)
                scored.append((r.symptom_f1, r.intent_accuracy, s))
                shown = ", ".join(f"{k} {v}" for k, v in zip(stage, values, strict=True))
                print(f"  {shown}: symptom F1 {r.symptom_f1:.4f} (fp {r.fp}, fn {r.fn})")
            best = max(scored, key=lambda x: (x[0], x[1]))[2]
        return best
    finally:
        await catalog.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--catalog", type=Path, required=True, help="a built catalog.db")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--symptom-c", type=float, nargs="+", default=[SYMPTOM_C])
    p.add_argument("--with-dev", action="store_true", help="fold train + dev (as shipped)")
    p.add_argument("--fixed", action="store_true", help="today's settings only, per split")
    ns = p.parse_args()
    for c in ns.symptom_c:
        print(f"symptom C {c}:")
        trained = folds(ns.catalog, ns.folds, c, learnt_splits(ns.with_dev))
        if ns.fixed:
            asyncio.run(_per_split(ns.catalog, trained))
            continue
        best = asyncio.run(search(ns.catalog, trained))
        r = asyncio.run(_final(ns.catalog, trained, best))
        print(f"symptom C {c}: best {best}: CV symptom F1 {r.symptom_f1:.4f}")
    return 0


async def _final(
    db: Path, trained: list[tuple[dict[str, Any], list[corpus.Labelled]]], s: dict[str, Any]
) -> Report:
    catalog = await Catalog.open(db)
    try:
        return await cv_report(catalog, trained, s)
    finally:
        await catalog.close()


async def _per_split(db: Path, trained: list[tuple[dict[str, Any], list[corpus.Labelled]]]) -> None:
    today = {**dataclasses.asdict(TUNING), "second": SECOND_THRESHOLD}
    catalog = await Catalog.open(db)
    try:
        for split in ("train", "dev"):
            held = [
                (data, [m for m in ms if corpus.split_of(m["id"]) == split]) for data, ms in trained
            ]
            r = await cv_report(catalog, held, today)
            if r.n:
                print(
                    f"  held-out {split} messages: {r.n}, intent {r.intent_accuracy:.4f}, "
                    f"symptom F1 {r.symptom_f1:.4f}"
                )
    finally:
        await catalog.close()


if __name__ == "__main__":
    raise SystemExit(main())
