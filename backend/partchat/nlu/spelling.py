"""Question words typed a letter off ("stok", "instal", "availble"), put right for the
dialogue's word patterns (a price or stock question about a listed part, an install).

Only a missing, doubled or swapped letter counts: a letter replaced often makes another
real word ("stuck", "stick" are not "stock"). The classifier needs none of this (its
character n-grams see "stok" near "stock"); the rules that pick a listed part or say
what job a follow-up continues match whole words.
"""

from __future__ import annotations

import re
from functools import lru_cache

_QUESTION_WORDS = (
    "price",
    "cost",
    "stock",
    "available",
    "install",
    "compatible",
    "cheaper",
    "cheapest",
    "expensive",
    "difference",
)
# Real words a letter off one of them.
_REAL_WORDS = frozenset(["sock", "coast", "prince", "pricy"])
_WORD = re.compile(r"[A-Za-z]{4,}")


def _one_letter_off(word: str, target: str) -> bool:
    """``word`` is ``target`` with one letter missing or extra, or two next ones swapped."""
    if abs(len(word) - len(target)) == 1:
        short, long = sorted((word, target), key=len)
        return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))
    if len(word) == len(target) and word != target:
        diff = [i for i, (a, b) in enumerate(zip(word, target, strict=True)) if a != b]
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and word[diff[0]] == target[diff[1]]
            and word[diff[1]] == target[diff[0]]
        )
    return False


@lru_cache(maxsize=4096)
def _respelled_word(word: str) -> str:
    lower = word.lower()
    if lower in _QUESTION_WORDS or lower in _REAL_WORDS:
        return word
    for target in _QUESTION_WORDS:
        # an inflection ("costs", "prices", "priced") is the word itself, not a typo
        if not lower.startswith(target) and _one_letter_off(lower, target):
            return target
    return word


@lru_cache(maxsize=256)
def respell(text: str) -> str:
    """``text`` with each question word typed a letter off put right."""
    return _WORD.sub(lambda m: _respelled_word(m[0]), text)
