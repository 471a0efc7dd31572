"""In-memory symptom vocabulary: canonical labels, shopper phrasings, free-text matching."""

from __future__ import annotations

from .normalize import phrase_key
from .types import Appliance, Symptom
from .vocab import appliance_stems, appliance_words

_FAILURE_SUFFIXES = ("not working", "stopped working", "doesnt work", "wont work", "broken")
_FAILURE_PHRASES = (
    *_FAILURE_SUFFIXES,
    "isnt working",
    "is not working",
    "not work",
    "quit working",
    "stopped",
    "quit",
    "died",
    "dead",
    "failed",
    "broke",
    "gave up",
    "gave out",
    "conked out",
    "packed up",
    "crapped out",
    "does not work",
    "will not work",
)


class SymptomIndex:
    def __init__(self, symptoms: list[Symptom]) -> None:
        self._all = symptoms
        self._by_id = {s["id"]: s for s in symptoms}
        self._exact: dict[str, list[Symptom]] = {}
        phrases: list[tuple[str, Symptom]] = []
        for s in symptoms:
            for p in (s["label"], *s["synonyms"]):
                key = phrase_key(p)
                if not key:
                    continue
                bucket = self._exact.setdefault(key, [])
                if s not in bucket:
                    bucket.append(s)
                phrases.append((key, s))
        # "ice maker not working" also matches "the ice maker on my fridge is not working":
        # a subject (ice maker) and a generic failure phrase anywhere in the same text.
        self._subjects: list[tuple[str, str]] = []
        for s in symptoms:
            for p in s["synonyms"]:
                key = phrase_key(p)
                for suffix in _FAILURE_SUFFIXES:
                    if key.endswith(" " + suffix) and len(key) > len(suffix) + 3:
                        self._subjects.append((key[: -len(suffix) - 1], s["id"]))
        self._subjects.sort(key=lambda ks: (-len(ks[0]), ks[0], ks[1]))
        # longest phrases first, so "freezer not cold" beats "not cold"; each as the
        # " key " the text is searched for, with its length and symptom
        self._phrases = [
            (f" {k} ", len(k), self._by_id[sid])
            for k, sid in sorted(
                set((k, s["id"]) for k, s in phrases), key=lambda ks: (-len(ks[0]), ks[0], ks[1])
            )
        ]
        # each phrase's position in that order, by its first word: a text is searched only
        # for the phrases whose first word it has (about 10 of 215 finds a message)
        self._by_first_word: dict[str, list[int]] = {}
        for i, (key, _, _) in enumerate(self._phrases):
            self._by_first_word.setdefault(key.split(None, 1)[0], []).append(i)

    def all(self, appliance: Appliance | None = None) -> list[Symptom]:
        return [s for s in self._all if appliance is None or s["appliance"] == appliance]

    @staticmethod
    def detect_appliance(text: str) -> Appliance | None:
        padded = f" {phrase_key(text)} "
        found = {app for hint, app in appliance_words() if f" {hint} " in padded}
        found.update(app for stem, app in appliance_stems() if f" {stem}" in padded)
        return next(iter(found)) if len(found) == 1 else None

    def match(self, text: str, appliance: Appliance | None = None) -> list[Symptom]:
        """Symptoms mentioned in free text, in the order they appear."""
        padded = f" {phrase_key(text)} "
        if len(padded) <= 2:
            return []
        if appliance is None:
            appliance = self.detect_appliance(text)
        taken: list[tuple[int, int]] = []
        hits: list[tuple[int, Symptom]] = []
        by_first = self._by_first_word
        found = sorted(i for w in set(padded.split()) for i in by_first.get(w, ()))
        phrases = self._phrases
        for key, size, sym in (phrases[i] for i in found):
            if appliance is not None and sym["appliance"] != appliance:
                continue
            start = padded.find(key)
            if start < 0:
                continue
            span = (start + 1, start + 1 + size)
            overlaps = any(a < span[1] and span[0] < b and (a, b) != span for a, b in taken)
            if overlaps:
                continue
            taken.append(span)
            hits.append((span[0], sym))
        if not hits:
            hits = self._subject_hits(padded, appliance)
        out: list[Symptom] = []
        for _, sym in sorted(hits, key=lambda h: (h[0], h[1]["id"])):
            if sym not in out:
                out.append(sym)
        return out

    def _subject_hits(self, padded: str, appliance: Appliance | None) -> list[tuple[int, Symptom]]:
        if not any(f" {f} " in padded for f in _FAILURE_PHRASES):
            return []
        for subject, sid in self._subjects:
            sym = self._by_id[sid]
            if appliance is not None and sym["appliance"] != appliance:
                continue
            start = padded.find(f" {subject} ")
            if start >= 0:
                return [(start, sym)]
        return []

    def resolve(self, text: str, appliance: Appliance | None) -> list[Symptom]:
        """A canonical label, id or phrasing → its symptom(s); else free-text matching."""
        if text in self._by_id:
            return [self._by_id[text]]
        exact = [
            s
            for s in self._exact.get(phrase_key(text), [])
            if appliance is None or s["appliance"] == appliance
        ]
        return exact or self.match(text, appliance)
