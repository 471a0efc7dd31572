"""The one stemmer: a plural's trailing "s" off, as the catalog's FTS index (porter) does.

Used for part-type keywords, catalog search words and the words of part names shoppers
point at. "pumps" → "pump", "arms" → "arm"; "glass", "gas" kept.
"""

from __future__ import annotations


def stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def stem_phrase(phrase: str) -> str:
    return " ".join(stem(w) for w in phrase.split())
