"""The intent classifier's settings by grouped k-fold cross-validation on the TRAIN split.

    .venv/bin/python bench/nlu_intent_cv.py --catalog var/catalog.db               # C 10 30 100
    .venv/bin/python bench/nlu_intent_cv.py --catalog var/catalog.db --c 30 --balanced
    .venv/bin/python bench/nlu_intent_cv.py --catalog var/catalog.db --c 30 --with-dev

Each fold fits the intent model alone on the other folds (plus the dialogues' turns, never
held out) and reads its own messages as the reading does first: the rules, else the
classifier. Prints the accuracy over all held-out messages and per intent, so a change to
the rules or the training data shows whether it holds on phrasings not learnt from. The
folds are ``nlu_cv.fold_of``'s (runs of ten ids); dev and test are not read (``--with-dev``:
the folds are of train and the dev items the shipped model learns from; a train message
falls in the same fold either way, so the train messages' figure compares like with like).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.nlu_cv import learnt_splits, splits  # noqa: E402

from partchat.nlu import corpus  # noqa: E402
from partchat.nlu.rules import rule_intent  # noqa: E402
from partchat.nlu.train import MIN_DF, _analyzer  # noqa: E402

SPLIT = "split:"  # the counts of a split's held-out messages, beside each intent's


def cross_validate(
    db: Path, c: float, k: int, balanced: bool, with_dev: bool = False
) -> tuple[Counter[str], Counter[str]]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for examples, held in splits(db, k, learnt_splits(with_dev)):
        kept = [e for e in examples if e.intent is not None]
        vectorizer = TfidfVectorizer(analyzer=_analyzer, sublinear_tf=True, min_df=MIN_DF)
        x = vectorizer.fit_transform([e.text for e in kept])
        model = LogisticRegression(
            C=c, max_iter=5000, class_weight="balanced" if balanced else None
        ).fit(x, [e.intent for e in kept])
        predicted = model.predict(vectorizer.transform([m["text"] for m in held]))
        for m, p in zip(held, predicted, strict=True):
            ok = (rule_intent(m["text"]) or p) == m["intent"]
            total[m["intent"]] += 1
            right[m["intent"]] += ok
            total[SPLIT + corpus.split_of(m["id"])] += 1
            right[SPLIT + corpus.split_of(m["id"])] += ok
    return right, total


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--catalog", type=Path, required=True, help="a built catalog.db")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--c", type=float, nargs="+", default=[10.0, 30.0, 100.0])
    p.add_argument("--balanced", action="store_true", help="class_weight='balanced'")
    p.add_argument("--with-dev", action="store_true", help="fold train + dev (as shipped)")
    ns = p.parse_args()
    for c in ns.c:
        right, total = cross_validate(ns.catalog, c, ns.folds, ns.balanced, ns.with_dev)
        intents = sorted(i for i in total if not i.startswith(SPLIT))
        splits_ = sorted(i for i in total if i.startswith(SPLIT))
        per = " ".join(f"{i} {right[i] / total[i]:.3f}" for i in intents)
        held = " ".join(
            f"{s.removeprefix(SPLIT)} {right[s]} of {total[s]} ({right[s] / total[s]:.2%})"
            for s in splits_
        )
        overall = sum(right[i] for i in intents) / sum(total[i] for i in intents)
        print(f"C {c}: CV intent {overall:.4f} (held out: {held})  {per}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
