"""Case-insensitive patterns that are cheap to search: the literals lowercased, the text
lowercased, no ``re.IGNORECASE``, no capturing groups.

CPython's engine skips an alternative whose first letter is not the text's without
entering it, but only when it matches case: under ``IGNORECASE`` each of a long
alternation's words is tried in full at every word start. The long rule patterns (a
hundred alternatives for a rule-changing attempt) cost 2-3x as much so, and groups that
capture cost more again: ``INJECTION`` 55 → 16 µs a search on dev messages.
"""

from __future__ import annotations

import re


def for_lowercase(pattern: str) -> str:
    """``pattern`` to search lowercased text with: its letters lowercased (escapes such as
    ``\\W``, ``\\S``, ``\\B`` and group names as they are) and its groups not capturing
    (a search that reports only whether and where skips an alternative by its first
    letter only when no group opens it: ``INJECTION`` 34 → 16 µs)."""
    if re.search(r"\\[1-9]", pattern):
        raise ValueError("a numbered backreference needs its group to capture")
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            # "]" first in a class (after a "^") is one of its characters
            lead = 2 if pattern.startswith("[^]", i) else 1 if pattern.startswith("[]", i) else 0
            out.append(pattern[i : i + 1 + lead])
            i += 1 + lead
            continue
        elif pattern.startswith("(?P", i):
            end = pattern.index(">" if pattern[i + 3 : i + 4] == "<" else ")", i)
            out.append(pattern[i : end + 1])
            i = end + 1
            continue
        elif ch == "(" and not pattern.startswith("(?", i):
            out.append("(?:")
            i += 1
            continue
        out.append(ch.lower())
        i += 1
    return "".join(out)


class Caseless:
    """A pattern matched whatever the text's case; it says whether and where it is found,
    no more (a match of the lowercased text would hand back lowercased groups)."""

    __slots__ = ("_re", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        """As written: what another pattern embeds, and what the tests compare with."""
        self.flags = flags & ~re.IGNORECASE
        self._re = re.compile(for_lowercase(pattern), self.flags)

    def found(self, text: str) -> bool:
        return self._search(text) is not None

    def start(self, text: str) -> int | None:
        """Where the first match begins in ``text``, else None."""
        m = self._search(text)
        return None if m is None else m.start()

    def _search(self, text: str) -> re.Match[str] | None:
        """The first match, at the text's own offsets (its groups are not the text's)."""
        lowered = text.lower()
        if len(lowered) == len(text):
            return self._re.search(lowered)
        # "İ" lowers to "i" and a combining dot, which IGNORECASE reads as "i": rare enough
        # to search the way the pattern was written
        return re.search(self.pattern, text, self.flags | re.IGNORECASE)
