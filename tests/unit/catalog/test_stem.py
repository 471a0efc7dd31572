from __future__ import annotations

from partchat.catalog.stem import stem, stem_phrase


def test_a_plural_loses_its_s() -> None:
    assert [stem(w) for w in ("pumps", "arms", "bins", "hoses")] == ["pump", "arm", "bin", "hose"]


def test_short_words_and_double_s_are_kept() -> None:
    assert [stem(w) for w in ("gas", "bus", "glass", "press", "is")] == [
        "gas",
        "bus",
        "glass",
        "press",
        "is",
    ]


def test_a_phrase_word_by_word() -> None:
    assert stem_phrase("spray arms  rack wheels") == "spray arm rack wheel"
