"""The reading's generalisation, estimated on the corpus's ORIGINAL train items. Test unread.

    .venv/bin/python bench/nlu_orig_cv.py --catalog var/catalog.db
    .venv/bin/python bench/nlu_orig_cv.py --catalog var/catalog.db --show-misses
    .venv/bin/python bench/nlu_orig_cv.py --catalog var/catalog.db --json
    .venv/bin/python bench/nlu_orig_cv.py --catalog var/catalog.db --weight original=3 \
        [--intent-c 30] [--symptom-c 30] [--min-df 2] [--threshold 0.2] [--second 0.3]

The splits were made once, by a hash of each id, from one corpus: the messages ``so-…``
and ``df-…`` (and the dialogues ``dlg-…``). The frozen test split is a random quarter of
exactly those; the ``tr-…`` train items and dev were written later, in other styles, and
dev was tuned on. Held-out original train messages are therefore the honest proxy of the
test split. Each of ``nlu_cv``'s grouped folds (runs of ten ids) trains both classifiers on
the other folds (plus every dialogue turn and the catalog's phrasings, never held out) and
reads its held-out messages with the full reading (rules, classifier, arbitration,
symptoms: ``evaluate``); like the shipped model against the test split, a fold learns no
``tr-`` text within ``corpus.TEST_SIMILARITY`` of a held-out original (``--unscreened``:
the leaky figure). Each original is also read as four other shoppers tell it
(``data/nlu/paraphrases*_messages.jsonl``, written blind), by its original's fold model:
the nearest unfrozen sample of the test split, wording nobody tuned on. The originals
are reported in two halves by fold: LOOK (folds 0-2), whose misses (and their
paraphrases') ``--show-misses`` prints to be sorted into classes, and CHECK (folds 3-4),
whose misses are never printed: it judges whether a change made from LOOK's misses
generalises. The later ``tr-…`` items are reported apart. Fold models are cached under
``var/nlu_orig_cv/`` by a digest of what trains them (examples and their weights, the
training parameters, feature and training code). The options try another model setting
(``train.WEIGHTS`` by origin, ``train``'s parameters, the slug thresholds) without editing
the code: each is chosen on the originals' aggregate, never on a CHECK miss.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.nlu_cv import (  # noqa: E402
    BATCHES,
    add_proxy_options,
    batch_of,
    fold_of,
    model_digest,
    near,
    proxy_paraphrases,
    written_later_or_dev,
)

from partchat.catalog import Catalog  # noqa: E402
from partchat.nlu import corpus  # noqa: E402
from partchat.nlu import store as nlu_store  # noqa: E402
from partchat.nlu import train as nlu_train  # noqa: E402
from partchat.nlu.evaluate import Report, evaluate, format_misses  # noqa: E402
from partchat.nlu.model import Understanding  # noqa: E402
from partchat.nlu.train import Example, train  # noqa: E402

FOLDS = 5
LOOK = frozenset({0, 1, 2})
ORIGINAL = ("so-", "df-")
CACHE = ROOT / "var" / "nlu_orig_cv"


def group_of(item_id: str) -> str | None:
    """``look`` / ``check`` for an original message (by its fold), ``tr`` for a later
    train item, None otherwise."""
    if item_id.startswith(ORIGINAL):
        return "look" if fold_of(item_id, FOLDS) in LOOK else "check"
    if item_id.startswith("tr-"):
        return "tr"
    return None


def folds(
    db: Path,
    k: int,
    weights: dict[str, float],
    told_again: list[corpus.Labelled],
    screen: bool = True,
    learn_told: tuple[str, ...] = (),
) -> list[tuple[list[Example], list[corpus.Labelled], list[corpus.Labelled]]]:
    """Each fold's training examples, held-out train messages and held-out paraphrases.

    A fold learns the other folds' messages, every dialogue turn and the catalog's
    phrasings. With ``screen`` it also leaves out every item screened against the test
    split (``tr-``, written after it) whose text is within ``corpus.TEST_SIMILARITY`` of
    a held-out original or of its paraphrase: the shipped model never learns such an
    item close to a test text, and 176 of the 565 originals had one in their folds.
    ``learn_told``: a fold learns the other folds' paraphrases of these batches too,
    screened the same way."""
    learnt = corpus.training_set(("train",))
    messages = list(learnt.messages)
    if learn_told:
        learnt.messages += [p for p in told_again if batch_of(p["id"]) in learn_told]
    conn = sqlite3.connect(db)
    try:
        examples = nlu_store.examples_of(conn, learnt, weights)
    finally:
        conn.close()
    # A paraphrase falls in its original's fold (``pp-so-0001`` → ``so-0001``).
    ids: list[str | None] = [m.get("of", m["id"]) for m in learnt.messages]
    ids += [turn_id for turn_id, _ in learnt.turns]
    ids += [None] * (len(examples) - len(ids))
    n = len(learnt.messages)
    told = set(range(len(messages), n))
    out = []
    for f in range(k):
        held = [m for m in messages if fold_of(m["id"], k) == f]
        theirs = [p for p in told_again if fold_of(p["of"], k) == f]
        close = near(
            [m["text"] for m in held if m["id"].startswith(ORIGINAL)] + [p["text"] for p in theirs]
        )

        kept = [
            e
            for i, (item, e) in enumerate(zip(ids, examples, strict=True))
            if not (i < n and item is not None and fold_of(item, k) == f)
            and not (
                screen
                and item is not None
                and (written_later_or_dev(item) or i in told)
                and close(e.text)
            )
        ]
        out.append((kept, held, theirs))
    return out


def fold_model(
    examples: list[Example], cache: Path | None, params: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The fold's trained model, from the cache when its inputs are unchanged."""
    params = params or {}
    key = model_digest(examples, params)
    path = cache / f"{key}.json" if cache is not None else None
    if path is not None and path.is_file():
        data: dict[str, Any] = json.loads(path.read_text())
        return data
    data = train(examples, **params)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))
    return data


_COUNTS = ("n", "intent_right", "numbers_right", "appliance_right", "tp", "fp", "fn")


def _add(total: Report, r: Report) -> None:
    for name in _COUNTS:
        setattr(total, name, getattr(total, name) + getattr(r, name))


def _merged(*reports: Report) -> Report:
    out = Report()
    for r in reports:
        _add(out, r)
    return out


async def run(
    db: Path,
    cache: Path | None,
    weights: dict[str, float] | None = None,
    params: dict[str, Any] | None = None,
    scoring: dict[str, float] | None = None,
    screen: bool = True,
    told_again: list[corpus.Labelled] | None = None,
    learn_told: tuple[str, ...] = (),
) -> dict[str, Report]:
    groups = ("look", "check", "tr", *(f"{b} {h}" for b in BATCHES for h in ("look", "check")))
    reports = {g: Report() for g in groups}
    catalog = await Catalog.open(db)
    try:
        weighted = {**nlu_train.WEIGHTS, **(weights or {})}
        for f, (kept, held, theirs) in enumerate(
            folds(db, FOLDS, weighted, told_again or [], screen, learn_told)
        ):
            t0 = time.perf_counter()
            u = Understanding({**fold_model(kept, cache, params), **(scoring or {})})
            half = "look" if f in LOOK else "check"
            for group, report in reports.items():
                if group.startswith("pp"):
                    batch, which = group.split()
                    mine = [p for p in theirs if batch_of(p["id"]) == batch and which == half]
                else:
                    mine = [m for m in held if group_of(m["id"]) == group]
                r = await evaluate(mine, catalog, u)
                _add(report, r)
                report.misses += r.misses
            print(
                f"  fold {f}: {len(held)} held out, {time.perf_counter() - t0:.0f} s",
                file=sys.stderr,
            )
    finally:
        await catalog.close()
    return reports


def _line(name: str, r: Report) -> str:
    return (
        f"{name:<14} {r.n:>5}  intent {r.intent_right}/{r.n} ({r.intent_accuracy:.2%})  "
        f"symptom F1 {r.symptom_f1:.4f} (tp {r.tp}, fp {r.fp}, fn {r.fn})"
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--catalog", type=Path, required=True, help="a built catalog.db")
    p.add_argument("--show-misses", action="store_true", help="the LOOK half's misses")
    p.add_argument("--json", action="store_true", help="figures as JSON (LOOK misses too)")
    p.add_argument("--no-cache", action="store_true", help="train every fold afresh")
    p.add_argument(
        "--weight", action="append", default=[], metavar="ORIGIN=W", help="train.WEIGHTS"
    )
    p.add_argument("--intent-c", type=float)
    p.add_argument("--symptom-c", type=float)
    p.add_argument("--min-df", type=int)
    p.add_argument("--intent-min-df", type=int)
    p.add_argument("--balanced", action="store_true", help="intent classes balanced")
    add_proxy_options(p, "messages", "tr- texts close to a held-out one")
    p.add_argument(
        "--learn-paraphrases",
        nargs="?",
        const="pp",
        default="",
        metavar="BATCHES",
        help="each fold learns the other folds' paraphrases of these batches (comma "
        "separated, default pp: would learning them help?)",
    )
    p.add_argument("--threshold", type=float, help="the first slug's threshold")
    p.add_argument("--second", type=float, help="the second slug's threshold")
    ns = p.parse_args()
    weights = {k: float(v) for k, v in (w.split("=", 1) for w in ns.weight)}
    params = {
        k: v
        for k, v in (
            ("intent_c", ns.intent_c),
            ("symptom_c", ns.symptom_c),
            ("min_df", ns.min_df),
            ("intent_min_df", ns.intent_min_df),
        )
        if v is not None
    }
    if ns.balanced:
        params["intent_weight"] = "balanced"
    scoring = {
        k: v
        for k, v in (("slug_threshold", ns.threshold), ("second_threshold", ns.second))
        if v is not None
    }
    cache = None if ns.no_cache else CACHE
    told_again = proxy_paraphrases("messages", ns)
    reports = asyncio.run(
        run(
            ns.catalog,
            cache,
            weights,
            params,
            scoring,
            not ns.unscreened,
            told_again,
            tuple(b for b in ns.learn_paraphrases.split(",") if b),
        )
    )
    reports["orig"] = _merged(reports["look"], reports["check"])
    for batch in BATCHES:
        reports[batch] = _merged(reports[f"{batch} look"], reports[f"{batch} check"])
    if ns.json:
        out: dict[str, Any] = {g: r.summary() for g, r in reports.items()}
        out["look_misses"] = [
            m
            for g in ("look", *(f"{b} look" for b in BATCHES))
            for m in reports[g].misses
            if {"intent", "symptoms"} & set(m["wrong"])
        ]
        print(json.dumps(out, indent=1))
        return 0
    names = {
        "look": "orig LOOK",
        "check": "orig CHECK",
        **{f"{b} look": f"{b} LOOK" for b in BATCHES},
    }
    shown = ["orig", "look", "check", "tr"]
    for batch in BATCHES:
        if reports[batch].n:
            shown += [batch, f"{batch} look", f"{batch} check"]
    for name in shown:
        print(_line(names.get(name, name.replace("check", "CHECK")), reports[name]))
    if ns.show_misses:
        read = tuple(f"{b} look" for b in BATCHES) if told_again else ()
        for group in ("look", *read):
            for kind in ("intent", "symptoms"):
                misses = reports[group].misses_of(kind)
                print(f"\n{names[group]} {kind} misses ({len(misses)}):")
                print(format_misses(misses, limit=1000))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
