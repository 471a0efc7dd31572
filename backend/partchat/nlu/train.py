"""Fit the intent and symptom classifiers from the corpus (build time only).

scikit-learn's ``TfidfVectorizer`` and ``LogisticRegression`` (lbfgs: deterministic for
the same data) fit the weights; the result is plain data (vocabulary, idf, weight
matrices) that ``model.Understanding`` scores with numpy, so serving never imports
scikit-learn and never trains.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .features import FEATURES_VERSION, features

MODEL_VERSION = 5
INTENT_C = 30.0
SYMPTOM_C = 30.0
SYMPTOM_THRESHOLD = 0.2
MIN_DF = 1
INTENT_MIN_DF = 2
"""The vocabulary keeps every feature (a word or n-gram of one example still tells a
symptom), the intent classifier only those of at least two examples."""
INTENT_WEIGHT: str | None = None
NO_SYMPTOM = "-"
SECOND_THRESHOLD = 0.3
ORIGINAL = ("so-", "df-", "dlg-")
"""The corpus the splits were made from: the test split is a random quarter of it; the
``tr-``/``dv-`` items were written later, in other styles, and outnumber it."""
WEIGHTS: Mapping[str, float] = {"original": 1.0, "later": 1.0, "catalog": 1.0}
"""Each example's weight in the fit, by where it comes from (``origin``)."""


@dataclass(frozen=True)
class Example:
    text: str
    intent: str | None
    """None: the text teaches symptoms only (a catalog phrasing is not a message)."""
    slugs: tuple[str, ...]
    weight: float = 1.0


def origin(item_id: str | None) -> str:
    """``original`` (a message or dialogue turn of the corpus the splits were made from),
    ``later`` (written after the split) or ``catalog`` (a symptom's phrasing: no id)."""
    if item_id is None:
        return "catalog"
    return "original" if item_id.startswith(ORIGINAL) else "later"


def _analyzer(text: str) -> list[str]:
    return list(features(text).elements())


def train(
    examples: Sequence[Example],
    *,
    intent_c: float = INTENT_C,
    symptom_c: float = SYMPTOM_C,
    threshold: float = SYMPTOM_THRESHOLD,
    second: float = SECOND_THRESHOLD,
    min_df: int = MIN_DF,
    intent_weight: str | None = INTENT_WEIGHT,
    intent_min_df: int = INTENT_MIN_DF,
) -> dict[str, Any]:
    """The model as JSON-able data. Same examples in the same order → the same model."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    texts = [e.text for e in examples]
    vectorizer = TfidfVectorizer(analyzer=_analyzer, sublinear_tf=True, min_df=min_df)
    x = vectorizer.fit_transform(texts)
    labelled = [i for i, e in enumerate(examples) if e.intent is not None]
    intents = sorted({e.intent for e in examples if e.intent is not None})
    y = np.array([intents.index(examples[i].intent) for i in labelled])  # type: ignore[arg-type]
    intent_model = LogisticRegression(C=intent_c, max_iter=5000, class_weight=intent_weight)
    weights = np.array([e.weight for e in examples], dtype=np.float64)
    # The intent model may read only the features of at least ``intent_min_df`` texts
    # (the others weigh 0 for it; the vector, and so its norm, stays the shared one).
    seen = np.asarray((x > 0).sum(axis=0)).ravel() >= intent_min_df
    intent_model.fit(x[labelled][:, seen], y, sample_weight=weights[labelled])
    intent_coef = np.zeros((intent_model.coef_.shape[0], x.shape[1]))
    intent_coef[:, seen] = intent_model.coef_

    # Symptoms: one softmax over the slugs and "none", so phrasings compete (a message
    # that says "too cold" is *fridge* or *freezer* too cold, rarely both). A message with
    # two symptoms is one example per symptom.
    rows: list[int] = []
    targets: list[str] = []
    for i, e in enumerate(examples):
        for slug in e.slugs or (NO_SYMPTOM,):
            rows.append(i)
            targets.append(slug)
    slugs = sorted(set(targets))
    symptom_model = LogisticRegression(C=symptom_c, max_iter=5000)
    symptom_model.fit(
        x[rows], np.array([slugs.index(t) for t in targets]), sample_weight=weights[rows]
    )
    slug_coef = symptom_model.coef_.tolist()
    slug_bias = symptom_model.intercept_.tolist()

    vocab = {f: int(i) for f, i in sorted(vectorizer.vocabulary_.items(), key=lambda kv: kv[1])}
    return {
        "version": MODEL_VERSION,
        "features_version": FEATURES_VERSION,
        "vocab": list(vocab),
        "idf": _round(vectorizer.idf_.tolist()),
        "intents": intents,
        "intent_weights": [_round(row) for row in intent_coef.tolist()],
        "intent_bias": _round(intent_model.intercept_.tolist()),
        "slugs": slugs,
        "slug_weights": [_round(row) for row in slug_coef],
        "slug_bias": _round(slug_bias),
        "slug_threshold": threshold,
        "second_threshold": second,
    }


def _round(values: list[float]) -> list[float]:
    return [round(v, 5) for v in values]
