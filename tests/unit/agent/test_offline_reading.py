"""The offline model's search words: what a shopper's message asks for, without the rest."""

from __future__ import annotations

import pytest

from partchat.agent.offline_reading import _search_query


@pytest.mark.parametrize(
    ("text", "query"),
    [
        # conversational filler and a dash between words are no part's words
        ("anyways, thermostat - which one", "thermostat"),
        ("ok so the drain pump - got it?", "drain pump"),
        ("btw, door gasket for it?", "door gasket"),
        ("hmm well the water inlet valve", "water inlet valve"),
        # a hyphen inside a word is kept
        ("anyway the ice-maker assembly", "ice-maker assembly"),
        ("need a door gasket for my kenmore fridge 10639420990", "door gasket kenmore"),
        ("oh. which one is then", ""),
        (
            "need the middle spray arm for 2213222N414, also how long does shipping take",
            "middle spray arm",
        ),
    ],
)
def test_search_words_leave_out_filler_and_dashes(text: str, query: str) -> None:
    assert _search_query(text) == query
