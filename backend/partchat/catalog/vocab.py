"""Curated vocabularies, read from the catalog's data files (cached, on first use).

The words are the project's own, in ``data/catalog/`` (shipped as ``partchat.catalog_data``):
``part_types.json`` (part type → keywords), ``guide_type_overrides.json`` (repair-guide
part-type phrases → part types), ``symptom_vocabulary.json`` (per appliance: canonical
label, raw source variants, shopper phrasings; list order is significant). The developer
importer (``scripts/import_sources.py``) normalises the raw sources with them; the symptom
vocabulary it writes to ``symptoms.json`` is read back from the database at run time.
``appliance_words.json`` is the one table of the spellings of the two appliances (per
appliance and kind); the importer, the symptom index, the search, extraction, the intent
rules and the offline agent each derive their word set or regex from it; the brands are
``brand_words.json``.
"""

from __future__ import annotations

import json
import re
from functools import cache, cached_property
from importlib import resources
from typing import Any, cast

from .stem import stem_phrase
from .types import Appliance

PACKAGE_DATA = "partchat.catalog_data"

# label, raw source variants, shopper phrasings
SymptomSpec = tuple[str, tuple[str, ...], tuple[str, ...]]


def _read(name: str) -> Any:
    return json.loads(resources.files(PACKAGE_DATA).joinpath(name).read_text("utf-8"))


@cache
def _part_types() -> dict[str, tuple[str, ...]]:
    data: dict[str, list[str]] = _read("part_types.json")
    return {t: tuple(keys) for t, keys in data.items()}


@cache
def part_type_keywords() -> tuple[tuple[str, str], ...]:
    """(keyword, part type), longest keyword first, then alphabetical (deterministic): a
    name gets the type of the longest keyword it contains."""
    return tuple(
        sorted(
            {(stem_phrase(k), t) for t, keys in _part_types().items() for k in keys},
            key=lambda kt: (-len(kt[0]), kt[0], kt[1]),
        )
    )


@cache
def part_types() -> tuple[str, ...]:
    return tuple(sorted(_part_types()))


@cache
def guide_type_overrides() -> dict[str, tuple[str, ...]]:
    """Repair-guide part-type phrases that the keyword rule would not map on its own."""
    data: dict[str, list[str]] = _read("guide_type_overrides.json")
    return {k: tuple(v) for k, v in data.items()}


@cache
def symptom_specs() -> dict[str, tuple[SymptomSpec, ...]]:
    """appliance → its symptom vocabulary, in the file's order."""
    data: dict[str, list[dict[str, Any]]] = _read("symptom_vocabulary.json")
    return {
        app: tuple((s["label"], tuple(s["variants"]), tuple(s["synonyms"])) for s in specs)
        for app, specs in data.items()
    }


# How an appliance spelling is used: "name" and "plural" ("fridge", "dishwashers"),
# "abbrev" ("dw", "frig"), "typo" ("dishwaser"), "stem" (a word start: "refrig" takes any
# ending), "compartment" (a part shoppers also use as the appliance's name: "freezer"),
# "part" (a part that only one appliance has: "ice maker"), "hint" (a word that points to
# one appliance without naming it: "dishes").
APPLIANCE_KINDS = ("name", "plural", "abbrev", "typo", "stem", "compartment", "part", "hint")
# the kinds that name the appliance itself, in any spelling
APPLIANCE_NAMES = ("name", "plural", "abbrev", "typo", "stem")


@cache
def appliance_spellings() -> tuple[tuple[str, Appliance, str], ...]:
    """(spelling, appliance, kind) from ``appliance_words.json``, the one table of the words
    shoppers and sources use for the two appliances; longest spelling first, then
    alphabetical (deterministic). Each reader keeps its own use by choosing kinds."""
    data: dict[str, dict[str, list[str]]] = _read("appliance_words.json")
    rows = {
        (w.lower(), cast(Appliance, app), kind)
        for app, kinds in data.items()
        for kind, words in kinds.items()
        for w in words
    }
    unknown = {kind for _, _, kind in rows} - set(APPLIANCE_KINDS)
    if unknown:
        raise ValueError(f"appliance_words.json: unknown kinds {sorted(unknown)}")
    return tuple(sorted(rows, key=lambda r: (-len(r[0]), r)))


def appliance_forms(spelling: str) -> tuple[str, ...]:
    """The spelling as words ("ice maker") and run together ("icemaker")."""
    joined = spelling.replace(" ", "")
    return (spelling, joined) if joined != spelling else (spelling,)


@cache
def appliance_words(kinds: tuple[str, ...] = APPLIANCE_KINDS) -> tuple[tuple[str, Appliance], ...]:
    """(word or phrase, appliance) for whole-word matching: each spelling of those kinds but
    stems, as words and run together; longest first."""
    pairs = {
        (form, app)
        for w, app, kind in appliance_spellings()
        if kind in kinds and kind != "stem"
        for form in appliance_forms(w)
    }
    return tuple(sorted(pairs, key=lambda p: (-len(p[0]), p)))


@cache
def appliance_stems(kinds: tuple[str, ...] = APPLIANCE_KINDS) -> tuple[tuple[str, Appliance], ...]:
    """(word start, appliance): "refrig" names the refrigerator whatever follows."""
    if "stem" not in kinds:
        return ()
    return tuple((w, app) for w, app, kind in appliance_spellings() if kind == "stem")


@cache
def appliance_regex(kinds: tuple[str, ...], appliance: Appliance | None = None) -> str:
    """A regex alternation (no group, no anchors) of the spellings of those kinds: a space
    inside a phrase also matches a dash or nothing ("ice-maker", "icemaker"), a stem any
    ending. Longest first, so the alternation takes the longest spelling."""
    alts = [
        r"[\s-]?".join(re.escape(part) for part in w.split()) + (r"\w*" if kind == "stem" else "")
        for w, app, kind in appliance_spellings()
        if kind in kinds and (appliance is None or app == appliance)
    ]
    return "|".join(dict.fromkeys(alts))


@cache
def brand_names() -> tuple[str, ...]:
    """The appliance brands shoppers name (``brand_words.json``), longest first."""
    data: list[str] = _read("brand_words.json")
    return tuple(sorted({b.lower() for b in data}, key=lambda b: (-len(b), b)))


@cache
def brand_regex() -> str:
    """A regex alternation of the brands; a space inside one also matches a dash or nothing
    ("jenn-air", "jennair")."""
    return "|".join(r"[\s-]?".join(re.escape(p) for p in b.split()) for b in brand_names())


@cache
def brand_words() -> frozenset[str]:
    """Single words of the brands, run together too ("jenn", "air", "jennair")."""
    return frozenset(w for b in brand_names() for w in (*appliance_forms(b), *b.split()))


class AppliancePattern:
    """A regex around the appliance spellings, compiled on first use so a module can keep it
    as a constant without reading the tables at import: ``template`` has ``{appliance}`` for
    the alternation of ``kinds`` and ``{brand}`` for the brands'."""

    def __init__(
        self, template: str, kinds: tuple[str, ...] = (), flags: int = re.IGNORECASE
    ) -> None:
        self._template, self._kinds, self._flags = template, kinds, flags

    @cached_property
    def compiled(self) -> re.Pattern[str]:
        text = self._template.format(appliance=appliance_regex(self._kinds), brand=brand_regex())
        return re.compile(text, self._flags)

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled.search(text)

    def match(self, text: str) -> re.Match[str] | None:
        return self.compiled.match(text)

    def sub(self, repl: str, text: str) -> str:
        return self.compiled.sub(repl, text)


@cache
def appliance_reply_words() -> frozenset[str]:
    """Single words a bare reply naming the appliance is made of ("dish", "washer", "dw",
    "fridges", "refridgerator"): the names in any spelling, not stems, parts or hints."""
    words: set[str] = set()
    for w, _, kind in appliance_spellings():
        if kind in (*APPLIANCE_NAMES, "compartment") and kind != "stem":
            words.update(appliance_forms(w))
            words.update(w.split())
    return frozenset(words)
