"""Dialogue success on the original TRAIN dialogues, by grouped cross-validation.

    .venv/bin/python bench/nlu_dialogue_cv.py --catalog var/catalog.db           # folds + dev
    .venv/bin/python bench/nlu_dialogue_cv.py --catalog var/catalog.db --show    # LOOK failures
    .venv/bin/python bench/nlu_dialogue_cv.py --catalog var/catalog.db --no-dev  # folds only
    .venv/bin/python bench/nlu_dialogue_cv.py --catalog var/catalog.db --variants  # + varied turns

The frozen test split's dialogues are a random quarter of the one original corpus
(``dlg-…``); its train quarter is the nearest unfrozen sample of the same distribution,
but the shipped model learnt those turns. So each of k folds (runs of ten consecutive
ids, ``nlu_cv.fold_of``) is scored with a model fitted as the shipped one is (train and
dev messages and dialogue turns, less ``corpus.training_set``'s leave-outs), without the
fold's own dialogues' turns, and run end to end through the offline model and the judge
the tests use. Folds 0-2 are the LOOK half (``--show`` prints their failures), folds 3-4
the CHECK half: only its counts are ever printed, so a change can be checked on dialogues
nobody tuned on. Also reported: dev's dialogues by family (the original ``dlg`` ones and
each ``dv-…`` batch) with a model of train alone, as ``bench/nlu.py --split dev`` scores
them. ``--variants`` scores the folds' dialogues again with each later turn varied the
small ways shoppers vary one (a closing thanks, an opening "ok so", lower case without
punctuation), labels unchanged: a mechanism that only knows the corpus's own wording
fails there. Each dialogue is also scored as four other shoppers tell it
(``data/nlu/paraphrases*_dialogues.jsonl``, written blind, labels unchanged) with its
original's fold model, which learns nothing close to the paraphrase either. A fitted
model is cached under ``var/nlu-cv/`` by a digest of its examples and of
the training code, so a change to the reading or the dialogue code reruns in seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sqlite3
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
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
from tests.support.dialogues import DialogueResult, run_dialogue  # noqa: E402

from partchat.agent.graph import build_graph  # noqa: E402
from partchat.agent.offline import OfflineChatModel  # noqa: E402
from partchat.catalog import Catalog  # noqa: E402
from partchat.nlu import corpus  # noqa: E402
from partchat.nlu import store as nlu_store  # noqa: E402
from partchat.nlu import train as nlu_train  # noqa: E402
from partchat.nlu.model import Understanding  # noqa: E402
from partchat.toolbox.dispatch import Toolbox  # noqa: E402

ORIGINAL = "dlg-"
LOOK = (0, 1, 2)
CHECK = (3, 4)
CACHE = ROOT / "var" / "nlu-cv"
_FAMILY = re.compile(r"^(dlg|dv-[a-z]+)-")


def original_train() -> list[corpus.Dialogue]:
    return [d for d in corpus.dialogues("train") if d["id"].startswith(ORIGINAL)]


def fold_set(
    learnt: corpus.TrainingSet,
    held: list[corpus.Dialogue],
    *,
    screen: bool = True,
    also: Sequence[corpus.Dialogue] = (),
) -> corpus.TrainingSet:
    """``learnt`` without the turns of the ``held`` dialogues and, with ``screen``, without
    every item screened against the test split (``written_later_or_dev``) whose text is
    within ``corpus.TEST_SIMILARITY`` of a held turn or of a turn of ``also`` (the held
    dialogues' paraphrases, scored with the same model): the fold is then learnt from what
    the test split's dialogues are (otherwise 119 of the 222 original train turns have a
    dev text this close in training, 70 a ``tr-`` one)."""
    ids = {d["id"] for d in held}
    close = near(t["user"] for d in (*held, *also) for t in d["turns"])

    def kept(item_id: str, text: str) -> bool:
        if item_id.split("#", 1)[0] in ids:
            return False
        return not (screen and written_later_or_dev(item_id) and close(text))

    return corpus.TrainingSet(
        messages=[m for m in learnt.messages if kept(m["id"], m["text"])],
        turns=[(i, t) for i, t in learnt.turns if kept(i, t["user"])],
    )


def fitted(conn: sqlite3.Connection, learnt: corpus.TrainingSet, label: str) -> Understanding:
    """The model of ``learnt`` (fitted once, then read from the cache)."""
    examples = nlu_store.examples_of(conn, learnt)
    path = CACHE / f"{model_digest(examples)}.json"
    if path.is_file():
        return Understanding(json.loads(path.read_text()))
    print(f"  fitting {label} ({len(examples)} examples) …", file=sys.stderr, flush=True)
    data = nlu_train.train(examples)
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    tmp.replace(path)
    return Understanding(data)


async def run_all(
    catalog: Catalog, model: Understanding, dialogues: list[corpus.Dialogue]
) -> list[DialogueResult]:
    graph = build_graph(OfflineChatModel(), Toolbox.load(catalog), catalog, model)
    labels = {s["id"]: s["label"] for s in await catalog.symptoms()}
    return [await run_dialogue(graph, d, labels) for d in dialogues]


# The same dialogues in the small ways shoppers vary a turn, the labels unchanged: a
# closing thanks, an opening filler ("ok so", "hmm"), lower case without punctuation, a
# sentence's capital and full stop, a greeting before the first turn, texting spellings
# ("u", "2nd", "thx"), a question mark on a later turn that has no end mark (each later
# turn; the first turn too where it makes no job).
VARIANTS: dict[str, Callable[[str, int], str]] = {
    "thanks": lambda t, i: t if i == 0 else t.rstrip("?!. ") + " thanks",
    "ok so": lambda t, i: t if i == 0 else "ok so " + t,
    "lower": lambda t, i: re.sub(r"[?!.,']", "", t.lower()),
    "sentence": lambda t, i: t[:1].upper() + t[1:] + ("" if t.endswith(("?", ".", "!")) else "."),
    "hey": lambda t, i: "hey, " + t if i == 0 else t,
    "texting": lambda t, i: _texting(t),
    "asked": lambda t, i: t if i == 0 or t.endswith(("?", ".", "!")) else t + "?",
    "hmm": lambda t, i: t if i == 0 else "hmm " + t,
}

_TEXTING = {
    "you": "u",
    "your": "ur",
    "second": "2nd",
    "first": "1st",
    "third": "3rd",
    "thanks": "thx",
    "please": "pls",
    "okay": "ok",
    "what": "wat",
    "with": "w/",
}


def _texting(text: str) -> str:
    return re.sub(r"\b(\w+)\b", lambda m: _TEXTING.get(m.group(1).lower(), m.group(1)), text)


def variant(dialogue: corpus.Dialogue, name: str) -> corpus.Dialogue:
    change = VARIANTS[name]
    turns = [{**t, "user": change(t["user"], i)} for i, t in enumerate(dialogue["turns"])]
    return corpus.Dialogue(id=dialogue["id"], turns=turns)  # type: ignore[typeddict-item]


def family(dialogue_id: str) -> str:
    m = _FAMILY.match(dialogue_id)
    return m.group(1) if m else dialogue_id


def as_dialogues(told: list[dict[str, Any]]) -> list[corpus.Dialogue]:
    """Paraphrased dialogues (``nlu_cv.paraphrases``) as the judge takes them."""
    return [corpus.Dialogue(id=d["id"], turns=d["turns"]) for d in told]


def fold_of_paraphrase(dialogue: corpus.Dialogue, k: int) -> int:
    """A paraphrase's fold: its original's (``pp-dlg-001``, ``pp3-dlg-001`` → ``dlg-001``)."""
    return fold_of(dialogue["id"].split("-", 1)[1], k)


def fit_models(
    db: Path,
    dialogues: list[corpus.Dialogue],
    k: int,
    dev: bool,
    screen: bool,
    told_again: Sequence[corpus.Dialogue] = (),
) -> tuple[dict[int, Understanding], Understanding | None]:
    """Each fold's model, and (``dev``) the model of train alone."""
    conn = sqlite3.connect(Path(db).resolve().as_uri() + "?mode=ro", uri=True)
    try:
        learnt = corpus.training_set(corpus.LEARNT)
        models = {}
        for f in range(k):
            held = [d for d in dialogues if fold_of(d["id"], k) == f]
            also = [d for d in told_again if fold_of_paraphrase(d, k) == f]
            models[f] = fitted(conn, fold_set(learnt, held, screen=screen, also=also), f"fold {f}")
        train_only = fitted(conn, corpus.training_set(("train",)), "train only") if dev else None
    finally:
        conn.close()
    return models, train_only


async def run(
    db: Path,
    dialogues: list[corpus.Dialogue],
    models: dict[int, Understanding],
    train_only: Understanding | None,
    show: bool,
    show_dev: str | None = None,
    variants: tuple[str, ...] = (),
    told_again: Sequence[corpus.Dialogue] = (),
) -> dict[str, Any]:
    k = len(models)
    catalog = await Catalog.open(db)
    out: dict[str, Any] = {"folds": {}, "variants": {}, "paraphrases": {}}
    try:
        for f in range(k):
            mine = [d for d in dialogues if fold_of(d["id"], k) == f]
            results = await run_all(catalog, models[f], mine)
            out["folds"][f] = (sum(r.ok for r in results), len(results))
            if show and f in LOOK:
                for r in results:
                    if not r.ok:
                        print(f"[fold {f}] {r.describe()}\n")
            if told_again:
                theirs = [d for d in told_again if fold_of_paraphrase(d, k) == f]
                said = await run_all(catalog, models[f], theirs)
                for batch in BATCHES:
                    mine_said = [r for r in said if batch_of(r.dialogue["id"]) == batch]
                    if mine_said:
                        out["paraphrases"].setdefault(batch, {})[f] = (
                            sum(r.ok for r in mine_said),
                            len(mine_said),
                        )
                if show and f in LOOK:
                    for r in said:
                        if not r.ok and batch_of(r.dialogue["id"]) in BATCHES:
                            print(f"[fold {f}, {batch_of(r.dialogue['id'])}] {r.describe()}\n")
            for name in variants:
                changed = await run_all(catalog, models[f], [variant(d, name) for d in mine])
                out["variants"].setdefault(name, {})[f] = (
                    sum(r.ok for r in changed),
                    len(changed),
                )
                if show and f in LOOK:
                    for r in changed:
                        if not r.ok:
                            print(f"[fold {f}, {name}] {r.describe()}\n")
        if train_only is not None:
            by_family: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            failed = []
            for r in await run_all(catalog, train_only, corpus.dialogues("dev")):
                tally = by_family[family(r.dialogue["id"])]
                tally[0] += r.ok
                tally[1] += 1
                if not r.ok:
                    failed.append(r.dialogue["id"])
                    if show_dev is not None and r.dialogue["id"].startswith(show_dev):
                        print(f"[dev] {r.describe()}\n")
            out["dev"] = dict(by_family)
            out["dev_failed"] = failed
    finally:
        await catalog.close()
    return out


def _half(folds: dict[int, tuple[int, int]], which: tuple[int, ...]) -> tuple[int, int]:
    return (
        sum(folds[f][0] for f in which if f in folds),
        sum(folds[f][1] for f in which if f in folds),
    )


def report(out: dict[str, Any]) -> str:
    folds = out["folds"]
    lines = [
        "original train dialogues, each fold scored with a model that did not learn its turns:",
        *[f"  fold {f}: {ok}/{n}" for f, (ok, n) in folds.items()],
    ]
    for name, which in (("LOOK", LOOK), ("CHECK", CHECK)):
        ok, n = _half(folds, which)
        lines.append(f"  {name} (folds {'-'.join(map(str, (which[0], which[-1])))}): {ok}/{n}")
    ok, n = _half(folds, tuple(folds))
    lines.append(f"  all: {ok}/{n} ({ok / n:.1%})")
    for batch, by_fold in out["paraphrases"].items():
        look, check = _half(by_fold, LOOK), _half(by_fold, CHECK)
        name = f"paraphrased ({batch})"
        lines.append(f"  {name}: LOOK {look[0]}/{look[1]}, CHECK {check[0]}/{check[1]}")
    for name, by_fold in out["variants"].items():
        look, check = _half(by_fold, LOOK), _half(by_fold, CHECK)
        lines.append(f"  variant {name!r}: LOOK {look[0]}/{look[1]}, CHECK {check[0]}/{check[1]}")
    if "dev" in out:
        dev = out["dev"]
        ok, n = sum(v[0] for v in dev.values()), sum(v[1] for v in dev.values())
        lines.append(f"dev dialogues, model of train alone: {ok}/{n} ({ok / n:.1%})")
        lines += [f"  {name}: {v[0]}/{v[1]}" for name, v in sorted(dev.items())]
        lines.append(f"  failed: {' '.join(out['dev_failed'])}")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--catalog", type=Path, required=True, help="a built catalog.db")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--show", action="store_true", help="print the LOOK half's failures")
    p.add_argument("--no-dev", action="store_true", help="skip dev's dialogues")
    p.add_argument("--show-dev", metavar="PREFIX", help="print the failed dev dialogues so named")
    p.add_argument(
        "--variants",
        action="store_true",
        help="also score the folds' dialogues varied as shoppers vary a turn (VARIANTS)",
    )
    add_proxy_options(p, "dialogues", "dev and tr- texts close to a held turn")
    p.add_argument("--json", action="store_true")
    ns = p.parse_args()
    dialogues = original_train()
    told_again = as_dialogues(proxy_paraphrases("dialogues", ns))
    models, train_only = fit_models(
        ns.catalog, dialogues, ns.folds, not ns.no_dev, not ns.unscreened, told_again
    )
    variants = tuple(VARIANTS) if ns.variants else ()
    out = asyncio.run(
        run(
            ns.catalog,
            dialogues,
            models,
            train_only,
            ns.show,
            ns.show_dev,
            variants,
            told_again,
        )
    )
    print(json.dumps(out) if ns.json else report(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
