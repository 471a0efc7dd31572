"""Score a message with the trained weights: intent probabilities and symptom slugs."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .features import FEATURES_VERSION, char_grams, word_features
from .train import NO_SYMPTOM

Intent = str
_WORD_CACHE = 50_000  # words kept with their n-gram indices (a few MiB at most)


class ModelMismatch(Exception):
    """The stored model was trained for another feature or model version."""


@dataclass(frozen=True)
class Scores:
    intent: Intent
    confidence: float
    """The winning intent's probability (softmax over the intents)."""
    slugs: tuple[str, ...]
    """Symptom slugs ("not-draining"), appliance-free, most probable first."""
    no_symptom: float
    """The probability that the message describes no symptom at all."""
    symptom_odds: Mapping[str, float]
    """Each slug's probability given that there is a symptom (sums to 1)."""
    runner_up: Intent = ""
    """The second most probable intent: what the message reads as when its first intent
    cannot be (an *answer* with nothing asked)."""


class Understanding:
    """The intent and symptom classifiers: a vocabulary, idf weights and two linear models."""

    def __init__(self, data: dict[str, Any]) -> None:
        if data.get("features_version") != FEATURES_VERSION:
            raise ModelMismatch(
                f"model features v{data.get('features_version')}, code v{FEATURES_VERSION}"
            )
        self._index = {f: i for i, f in enumerate(data["vocab"])}
        self._idf = np.asarray(data["idf"], dtype=np.float64)
        self.intents: list[str] = list(data["intents"])
        self.slugs: list[str] = list(data["slugs"])
        # One (features × (intents + slugs)) matrix: one gather and one product a message.
        weights = np.vstack(
            [np.asarray(data["intent_weights"]), np.asarray(data["slug_weights"])]
        ).T
        self._w = np.ascontiguousarray(weights, dtype=np.float64)
        self._b = np.concatenate([data["intent_bias"], data["slug_bias"]]).astype(np.float64)
        self._threshold = float(data["slug_threshold"])
        self._second = float(data["second_threshold"])
        self._none = self.slugs.index(NO_SYMPTOM) if NO_SYMPTOM in self.slugs else -1
        self._word_cache: dict[str, tuple[int, ...]] = {}

    def _word_indices(self, word: str) -> tuple[int, ...]:
        """The vocabulary indices of a word's character n-grams (words recur, so kept)."""
        found = self._word_cache.get(word)
        if found is None:
            get = self._index.get
            found = tuple(i for g in char_grams(word) if (i := get(g)) is not None)
            if len(self._word_cache) < _WORD_CACHE:
                self._word_cache[word] = found
        return found

    def _vector(self, text: str) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
        grams, words = word_features(text)
        get = self._index.get
        idx = [i for g in grams if (i := get(g)) is not None]
        for w in words:
            idx += self._word_indices(w)
        counted = Counter(idx)
        where = np.fromiter(counted.keys(), dtype=np.intp, count=len(counted))
        counts = np.fromiter(counted.values(), dtype=np.float64, count=len(counted))
        values = (1.0 + np.log(counts)) * self._idf[where]
        norm = float(np.sqrt(values @ values))
        return where, (values / norm if norm else values)

    def score(self, text: str) -> Scores:
        where, values = self._vector(text)
        # (the softmaxes in plain Python: on 43 numbers numpy's per-call overhead is most
        # of the cost)
        # (``take`` gathers the rows a third faster than indexing with the array)
        logits = (values @ self._w.take(where, axis=0) + self._b).tolist()
        k = len(self.intents)
        probs = _softmax(logits[:k])
        best, second = _top_two(probs)
        slug_probs = _softmax(logits[k:])
        none = self._none
        p_none = slug_probs[none] if none >= 0 else 0.0
        if none >= 0:
            slug_probs[none] = 0.0
        # Probabilities among the symptoms (given there is one): the classifier's "none"
        # weighs against a symptom separately, by the intent.
        given = max(1e-9, 1.0 - p_none)
        slug_probs = [p / given for p in slug_probs]
        slugs: list[str] = []
        for rank, i in enumerate(_top_two(slug_probs)):
            if slug_probs[i] < (self._threshold if rank == 0 else self._second):
                break
            slugs.append(self.slugs[i])
        odds = dict(zip(self.slugs, slug_probs, strict=True))
        odds.pop(NO_SYMPTOM, None)
        return Scores(
            self.intents[best],
            probs[best],
            tuple(slugs),
            p_none,
            odds,
            self.intents[second],
        )


def _softmax(logits: list[float]) -> list[float]:
    top = max(logits)
    exps = [math.exp(x - top) for x in logits]
    total = sum(exps)
    return [e / total for e in exps]


def _top_two(values: list[float]) -> tuple[int, int]:
    """The indices of the two largest values, the first index first among equals."""
    order = sorted(range(len(values)), key=values.__getitem__, reverse=True)
    return order[0], order[1]
