"""Curated vocabularies, read from the catalog's data files (cached, on first use).

The words are the project's own, in ``data/catalog/`` (shipped as ``partchat.catalog_data``):
``part_types.json`` (part type → keywords), ``guide_type_overrides.json`` (repair-guide
part-type phrases → part types), ``symptom_vocabulary.json`` (per appliance: canonical
label, raw source variants, shopper phrasings; list order is significant). The developer
importer (``scripts/import_sources.py``) normalises the raw sources with them; the symptom
vocabulary it writes to ``symptoms.json`` is read back from the database at run time.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from .stem import stem_phrase

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


@cache
def appliance_words() -> tuple[tuple[str, str], ...]:
    """(word, appliance): words in "appliance types" fields and names that map onto the
    catalog's two appliances."""
    data: dict[str, str] = _read("appliance_words.json")
    return tuple(sorted(data.items()))
