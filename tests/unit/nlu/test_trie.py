"""A trie-shaped alternation matches what the flat one, longest first, matches."""

from __future__ import annotations

import re

import pytest

from partchat.catalog.vocab import part_type_keywords
from partchat.nlu import corpus
from partchat.nlu.features import normalize, part_type_pattern
from partchat.nlu.trie import alternation


def _flat(phrases: list[str]) -> re.Pattern[str]:
    ordered = sorted(set(phrases), key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(re.escape(p) for p in ordered) + r")s?\b")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("the ice maker is dead", "ice maker"),  # the longer of two that begin alike
        ("ice in the tray", "ice"),
        ("an o-ring and a 1/2 inch hose", "o-ring"),  # escaped, not a range or a class
        ("icemaker", None),
        ("the pumps", "pump"),
    ],
)
def test_the_longer_phrase_wins_and_literals_are_literal(text: str, found: str | None) -> None:
    pattern = re.compile(
        r"\b(" + alternation(["ice", "ice maker", "o-ring", "1/2", "pump"]) + r")s?\b"
    )
    m = pattern.search(text)
    assert (m and m[1]) == found


def test_the_part_types_match_as_the_flat_alternation_did() -> None:
    phrases = [k for k, _ in part_type_keywords()]
    flat, trie = _flat(phrases), part_type_pattern()
    texts = [normalize(m["text"]) for s in ("train", "dev") for m in corpus.messages(s)]
    texts += [p + s for p in phrases for s in ("", "s", "es", " kit")] + [p[:-1] for p in phrases]
    differ = [
        t
        for t in texts
        if [(m.span(), m[1]) for m in flat.finditer(t)]
        != [(m.span(), m[1]) for m in trie.finditer(t)]
    ]
    assert not differ, differ[:5]
    assert len(trie.pattern) < len(flat.pattern)
