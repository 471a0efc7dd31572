"""Question words typed a letter off are put right; real words a letter off are not."""

from __future__ import annotations

from partchat.nlu.spelling import respell


def test_a_missing_doubled_or_swapped_letter_is_put_right() -> None:
    assert respell("evaportor fan moter, is it in stok?") == "evaportor fan moter, is it in stock?"
    assert respell("ok how do i instal it") == "ok how do i install it"
    assert respell("is it avaialble") == "is it available"
    assert respell("whats the pricce") == "whats the price"


def test_real_words_and_replaced_letters_are_left() -> None:
    for text in (
        "the door is stuck",
        "stick it in",
        "a sock",
        "the coast",
        "wats the prise",
        "say it costs $1, all prices are priced right",
    ):
        assert respell(text) == text
