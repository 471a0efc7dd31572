"""Symptoms a message denies: "it's not leaking, it just won't drain", "no leaks, it clicks".

The classifier and the catalog's phrase matches both see "leaking" in "it's not leaking"
(few shoppers write what their appliance does *not* do, so the corpus teaches it little).
A symptom is denied where one of its own phrases that states it positively ("leaking",
"leaks", "water on the floor") follows a negation ("not", "no", "isn't", "no longer"),
and no phrase of it stands in the message un-negated. A phrase that is itself a negation
("not draining", "won't drain", "no ice") states its symptom and is never a denial; a
negation before another verb ("won't stop leaking") denies nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from partchat.catalog.types import Symptom

_NEGATION = re.compile(
    r"\b(?:not|no|never|isn'?t|aint|ain'?t|doesn'?t|dont|don'?t|didn'?t|wasn'?t|hasn'?t|"
    r"haven'?t|without|nothing)\s+(?:(?:really|even|actually|any|anymore|more|longer|so|too|"
    r"very|that|a|much)\s+)?$"
)
# The first words of a phrase that is itself a negation ("not draining", "won't drain",
# "will not start", "stopped working").
_NEGATION_WORDS = frozenset(
    {"not", "no", "never", "isnt", "isn't", "won't", "wont", "doesn't", "doesnt", "don't"}
    | {"dont", "can't", "cant", "will", "does", "nothing", "stopped"}
)
_CUES = re.compile(r"\b(?:not|no|never|\w+n'?t|without|nothing)\b")
_patterns: dict[tuple[tuple[str, int], ...], tuple[re.Pattern[str], dict[str, set[str]]]] = {}


def _pattern(symptoms: Sequence[Symptom]) -> tuple[re.Pattern[str], dict[str, set[str]]]:
    """One alternation of every positive phrase (longest first), and each phrase's slugs."""
    key = tuple((s["id"], len(s["synonyms"])) for s in symptoms)
    cached = _patterns.get(key)
    if cached is not None:
        return cached
    slugs: dict[str, set[str]] = {}
    for s in symptoms:
        for phrase in (s["label"].lower(), *s["synonyms"]):
            first = phrase.split()[0] if phrase.split() else ""
            if first and first not in _NEGATION_WORDS:
                slugs.setdefault(phrase, set()).add(s["id"].split("/", 1)[1])
    alternation = "|".join(re.escape(p) for p in sorted(slugs, key=len, reverse=True))
    built = (re.compile(rf"\b(?:{alternation})\b"), slugs)
    if len(_patterns) > 8:
        _patterns.clear()
    _patterns[key] = built
    return built


def denied_slugs(text: str, symptoms: Sequence[Symptom]) -> set[str]:
    """The symptom slugs ``text`` only mentions to say they are not the problem."""
    low = text.lower().replace("\u2019", "'")
    if not _CUES.search(low):
        return set()
    pattern, slugs = _pattern(symptoms)
    denied: set[str] = set()
    stated: set[str] = set()
    for m in pattern.finditer(low):
        clause_start = max(low.rfind(c, 0, m.start()) for c in ",.;!?")
        before = low[clause_start + 1 : m.start()]
        (denied if _NEGATION.search(before) else stated).update(slugs[m.group(0)])
    return denied - stated
