"""Question words typed a letter off ("stok", "instal", "availble"), put right for the
dialogue's word patterns (a price or stock question about a listed part, an install).

Only a missing, doubled or swapped letter counts: a letter replaced often makes another
real word ("stuck", "stick" are not "stock"). The classifier needs none of this (its
character n-grams see "stok" near "stock"); the rules that pick a listed part or say
what job a follow-up continues match whole words. Every such typo of every question word
is spelt out once, on first use (a few thousand strings), so a message costs one dictionary
look-up a word.
"""

from __future__ import annotations

import re
import string
from functools import cache, lru_cache

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


def _one_letter_off(word: str) -> set[str]:
    """``word`` with one letter missing or extra, or two next ones swapped."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    missing = {a + b[1:] for a, b in splits if b}
    swapped = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    extra = {a + c + b for a, b in splits for c in string.ascii_lowercase}
    return missing | swapped | extra


@cache
def _typos() -> dict[str, str]:
    out: dict[str, str] = {}
    for target in _QUESTION_WORDS:
        for typo in _one_letter_off(target):
            # an inflection ("costs", "prices", "priced") is the word itself, not a typo
            if len(typo) >= 4 and not typo.startswith(target) and typo not in _REAL_WORDS:
                out.setdefault(typo, target)
    for word in _QUESTION_WORDS:
        out.pop(word, None)
    return out


@lru_cache(maxsize=256)
def respell(text: str) -> str:
    """``text`` with each question word typed a letter off put right."""
    typos = _typos()
    return _WORD.sub(lambda m: typos.get(m[0].lower(), m[0]), text)
