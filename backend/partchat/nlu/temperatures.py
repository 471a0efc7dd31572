"""Temperatures a shopper reports, by compartment: "fridge 50 degrees, freezer 35".

The classifier sees a reading as a placeholder (``smallnum``): "fridge 50, freezer 35"
and "fridge 37, freezer 35" read alike, although the first has both compartments warm and
the second only the freezer. This reader finds each reading's compartment and unit and
says whether it is warm, cold or normal for that compartment (a fridge keeps 33-40 °F, a
freezer about 0 °F): states the classifier gets as features (``features.py``) and the
reading uses to settle the temperature symptoms (``reading.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

Compartment = Literal["fridge", "freezer"]
State = Literal["warm", "cold", "ok"]

FRIDGE_WARM_F = 41.0
"""A fridge at this or above is too warm (food safety keeps it at 40 °F, 4 °C, or under)."""
FRIDGE_COLD_F = 32.5
"""A fridge under this freezes food."""
FREEZER_WARM_F = 10.0
"""A freezer at this or above (-12 °C) is too warm: it should keep about 0 °F (-18 °C)."""
FREEZER_COLD_F = -10.0
"""A freezer at this or below (-23 °C) is colder than any setting asks for."""

_FREEZER = re.compile(
    r"\b(?:fr?e{1,2}z{1,2}e?r[sz]?|deep ?freeze|frozen (?:section|compartment|side|part|food side))\b"
)
_FRIDGE = re.compile(
    r"\b(?:fri?d?ge?s?|frig|fridg|frige|refr?i?d?ge?rat[oe]rs?|refrigerator|fresh ?food"
    r"|main (?:compartment|section)|cooler section"
    # The fridge's own places: a reading "on the bottom shelf" or "in the crisper" is the
    # fridge's (a freezer shelf names the freezer too, and the freezer wins).
    r"|shel(?:f|ves)|crispers?|(?:veggie|vegetable|produce|deli|meat) (?:drawers?|bins?)"
    r"|door bins?)\b"
)
_READING = re.compile(
    r"(?<![\w./])(?P<sign>(?:minus|negative)\s*|-\s?|−)?(?P<n>\d{1,3}(?:\.\d)?)(?:s\b)?\s*"
    r"(?P<unit>°\s*[fc]?|º\s*[fc]?|deg(?:ree|res|rees)?s?\b\s*[fc]?\b|"
    r"fahrenheit|farenheit|celsius|celcius|centigrade|[fc]\b)?(?![a-z0-9/])"
)
_CELSIUS = re.compile(r"\b(?:celsius|celcius|centigrade)\b|\d\s*°?\s*c\b")
_FAHRENHEIT = re.compile(r"\b(?:fahrenheit|farenheit)\b|\d\s*°?\s*f\b")
# A number that is not a reading: a setting ("set to 0", "setting 1"), what it should be
# or was ("should be -18", "used to be 0"), a count or a duration ("2 days", "4 of 5").
_NOT_READING_BEFORE = re.compile(
    r"\b(?:set|sets|setting|settings|dial|knob|level|should|supposed|used|before|manual|"
    r"recommended|normally|usually|of|every|instead|/)"
    r"(?:\s+(?:to|at|on|is|it|its|be|was|of|says|around|about|like))*\s*$"
)
_NOT_READING_AFTER = re.compile(
    r"^\s*(?:\)\s*)?(?:/|(?:°|deg\w*)?\s*(?:colder|warmer|higher|lower|more|less|above|below|over|under|too)\b|off\b|days?|hours?|hrs?|h\b|mins?|minutes?|seconds?|secs?|weeks?|wks?|months?|"
    r"years?|yrs?|yr|times?|x\b|%|of\b|to\s+\d|am\b|pm\b|people|kids|cubes?|trays?|bags?|"
    r"cans?|eggs?|shelf|shelves|doors?|stars?|setting|on the dial|out of|ish\b\s*days)"
)
# A bound far past the number ("way below zero", "well over 40"): the temperature is far
# from the number said, by a margin that puts "way below zero" past ``FREEZER_COLD_F``.
_FAR_PAST = re.compile(
    r"\b(?:way|well|far|much|wa+y+)\s+(?P<side>below|under|lower than|above|over|higher than)\s*$"
)
_FAR_MARGIN_F = 15.0
_BELOW = ("below", "under", "lower than")
_SENTENCE = re.compile(r"[.!?\n]+\s")
_SEGMENT = re.compile(r"[,;.!?()\n]+|\b(?:and|but|while|though|tho|although|plus|also)\b")


_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = [
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_VALUE = {
    **{w: i for i, w in enumerate(_UNITS)},
    **{w: 10 + i for i, w in enumerate(_TEENS)},
    **{w: 20 + 10 * i for i, w in enumerate(_TENS)},
    "fourty": 40,
}
_DIGIT_WORDS = "|".join(_UNITS[1:])
# "forty five", "thirty-two", "fifteen", "zero"; a bare one to nine only before a degree
# word ("five degrees"): "the right one" or "two days" are not readings.
_SPELLED = re.compile(
    rf"\b(?:(?P<tens>{'|'.join([*_TENS, 'fourty'])})(?:[\s-]+(?P<unit>{_DIGIT_WORDS}))?"
    rf"|(?P<teen>{'|'.join([*_TEENS, 'zero'])})|(?P<small>{_DIGIT_WORDS})(?=\s*(?:deg|°)))\b"
)


def spelled_numbers(text: str) -> str:
    """The text with numbers written in words as digits ("fridge at forty five" → "fridge
    at 45"): a shopper who spells a temperature reports it all the same."""

    def digits(m: re.Match[str]) -> str:
        if m.group("tens"):
            return str(_VALUE[m.group("tens")] + _VALUE.get(m.group("unit") or "zero", 0))
        return str(_VALUE[m.group("teen") or m.group("small")])

    return _SPELLED.sub(digits, text)


@dataclass(frozen=True)
class Reading:
    compartment: Compartment
    fahrenheit: float
    state: State


def _state(compartment: Compartment, f: float) -> State:
    if compartment == "fridge":
        return "warm" if f >= FRIDGE_WARM_F else "cold" if f < FRIDGE_COLD_F else "ok"
    return "warm" if f >= FREEZER_WARM_F else "cold" if f <= FREEZER_COLD_F else "ok"


def _mentions(text: str) -> list[tuple[int, int, Compartment]]:
    found: list[tuple[int, int, Compartment]] = [
        (m.start(), m.end(), "freezer") for m in _FREEZER.finditer(text)
    ]
    found += [(m.start(), m.end(), "fridge") for m in _FRIDGE.finditer(text)]
    return sorted(found)


def _segment_bounds(text: str, at: int) -> tuple[int, int]:
    start, end = 0, len(text)
    for m in _SEGMENT.finditer(text):
        if m.end() <= at:
            start = m.end()
        elif m.start() >= at:
            end = m.start()
            break
    return start, end


def readings(text: str) -> list[Reading]:
    """Each temperature the text reports, with its compartment, in °F, and its state."""
    low = spelled_numbers(text.lower())
    mentions = _mentions(low)
    if not mentions:
        return []
    numbers = []
    for m in _READING.finditer(low):
        before, after = low[max(0, m.start() - 30) : m.start()], low[m.end() :]
        if _NOT_READING_BEFORE.search(before) or _NOT_READING_AFTER.match(after):
            continue
        value = float(m.group("n")) * (-1 if m.group("sign") else 1)
        unit = (m.group("unit") or "").strip()
        far = _FAR_PAST.search(before)
        margin = 0.0 if far is None else _FAR_MARGIN_F * (-1 if far["side"] in _BELOW else 1)
        numbers.append((m.start(), value, unit[-1] if unit[-1:] in ("f", "c") else "", margin))
    numbers = [n for n in numbers if not _inside_mention(n[0], mentions)]
    if not numbers:
        return []
    places = _places(low, mentions, [n[0] for n in numbers])
    celsius = _text_unit(low, numbers, places)
    out: list[Reading] = []
    for (_, value, unit, margin), place in zip(numbers, places, strict=True):
        if place is None:
            continue
        c = unit == "c" or (unit == "" and celsius)
        f = (value * 9 / 5 + 32 if c else value) + margin
        if not -60.0 <= f <= 110.0:
            continue
        out.append(Reading(place, f, _state(place, f)))
    return out


def _inside_mention(at: int, mentions: list[tuple[int, int, Compartment]]) -> bool:
    return any(s <= at < e for s, e, _ in mentions)


def _places(
    text: str, mentions: list[tuple[int, int, Compartment]], at: list[int]
) -> list[Compartment | None]:
    """Each number's compartment: "fridge and freezer 15c and 0c" pairs in order;
    otherwise the mention before it in its clause, else after it in its clause, else the
    last one before it."""
    # A run of mentions then as many numbers, nothing said between: pair them in order.
    if len(mentions) >= 2 and len(at) == len(mentions) and mentions[-1][1] <= at[0]:
        kinds = [k for _, _, k in mentions]
        if len(set(kinds)) == len(kinds):
            return list(kinds)
    out: list[Compartment | None] = []
    for i, a in enumerate(at):
        lo, hi = _segment_bounds(text, a)
        since = at[i - 1] if i else -1
        before = [k for s, _, k in mentions if max(lo, since) <= s < a]
        after = [k for s, _, k in mentions if a < s < hi]
        sentence = _nearest_run(
            text, [(s, k) for s, _, k in mentions if max(_sentence_start(text, a), since) <= s < a]
        )
        earlier = [k for s, _, k in mentions if s < a]
        out.append(
            _subject(before)
            or (after[0] if after else None)
            or _subject(sentence)
            or (earlier[-1] if earlier else None)
        )
    return out


def _nearest_run(text: str, mentions: list[tuple[int, Compartment]]) -> list[Compartment]:
    """Of mentions before a number, those of the nearest clause that has any: "freezer
    side's great but the meat in the fridge goes slimy and it reads 50" is the fridge."""
    if not mentions:
        return []
    lo, _ = _segment_bounds(text, mentions[-1][0])
    return [k for s, k in mentions if s >= lo]


def _subject(kinds: list[Compartment]) -> Compartment | None:
    """The compartment a run of mentions speaks of: the freezer of "my GE refrigerator,
    the freezer" or "freezer box over the fridge"."""
    return "freezer" if "freezer" in kinds else kinds[0] if kinds else None


def _sentence_start(text: str, at: int) -> int:
    starts = [m.end() for m in _SENTENCE.finditer(text, 0, at)]
    return starts[-1] if starts else 0


def _text_unit(
    text: str, numbers: list[tuple[int, float, str, float]], places: list[Compartment | None]
) -> bool:
    """Whether unmarked readings are °C: a unit the text names elsewhere, else a fridge
    reading only °C makes sense of (a fridge at 4 °F would be frozen solid)."""
    if _CELSIUS.search(text):
        return not _FAHRENHEIT.search(text)
    if _FAHRENHEIT.search(text):
        return False
    return any(
        p == "fridge" and u == "" and -5.0 <= v <= 15.0
        for (_, v, u, _), p in zip(numbers, places, strict=True)
    )


def states(text: str) -> dict[Compartment, State]:
    """Each compartment's state by its readings (the warmest reading of the compartment
    when several: the shopper reports the problem)."""
    return dict(_states(text))


@lru_cache(maxsize=4096)
def _states(text: str) -> tuple[tuple[Compartment, State], ...]:
    """``states``, kept: the features and the reading both ask for it (a few µs each)."""
    out: dict[Compartment, State] = {}
    for r in readings(text):
        have = out.get(r.compartment)
        if have is None or have == "ok" or (have == "cold" and r.state == "warm"):
            out[r.compartment] = r.state
    return tuple(out.items())


FRIDGE_WARM = "fridge-too-warm"
FREEZER_WARM = "freezer-section-too-warm"
BOTH_WARM = "fridge-and-freezer-are-too-warm"
FRIDGE_COLD = "fridge-too-cold"
FREEZER_COLD = "freezer-too-cold"
TEMPERATURE_SLUGS = frozenset({FRIDGE_WARM, FREEZER_WARM, BOTH_WARM, FRIDGE_COLD, FREEZER_COLD})
# What each slug says of each compartment: "fridge too warm" is the fridge alone (a warm
# freezer too would be "fridge and freezer are too warm").
_SAYS: dict[str, dict[Compartment, State]] = {
    FRIDGE_WARM: {"fridge": "warm"},
    FREEZER_WARM: {"freezer": "warm"},
    BOTH_WARM: {"fridge": "warm", "freezer": "warm"},
    FRIDGE_COLD: {"fridge": "cold"},
    FREEZER_COLD: {"freezer": "cold"},
}
_ALONE: dict[str, Compartment] = {FRIDGE_WARM: "freezer", FREEZER_WARM: "fridge"}


def settle(slugs: list[str], measured: dict[Compartment, State]) -> list[str]:
    """The symptom slugs with the temperature ones settled by the readings: a measured
    compartment's state is the reading's; an unmeasured one's is the classifier's, unless
    the classifier's slug is one compartment's alone and the readings put the other one
    warm too (a reading the classifier took for the wrong compartment)."""
    if not measured:
        return slugs
    said: dict[Compartment, State] = {}
    for slug in slugs:
        other = _ALONE.get(slug)
        if other is not None and measured.get(other) == "warm":
            continue
        for c, s in _SAYS.get(slug, {}).items():
            said.setdefault(c, s)
    said.update(measured)
    fridge, freezer = said.get("fridge"), said.get("freezer")
    settled: list[str] = []
    if fridge == freezer == "warm":
        settled.append(BOTH_WARM)
    else:
        settled += [FRIDGE_WARM] if fridge == "warm" else [FRIDGE_COLD] if fridge == "cold" else []
        settled += (
            [FREEZER_WARM] if freezer == "warm" else [FREEZER_COLD] if freezer == "cold" else []
        )
    others = [g for g in slugs if g not in TEMPERATURE_SLUGS]
    at = next((i for i, g in enumerate(slugs) if g in TEMPERATURE_SLUGS), len(slugs))
    first = [g for g in slugs[:at] if g not in TEMPERATURE_SLUGS]
    return [*first, *settled, *[g for g in others if g not in first]]


def one_state_each(slugs: list[str], odds: Mapping[str, float]) -> list[str]:
    """The slugs with their temperature ones made to agree. "Fridge and freezer are too
    warm" says each compartment's "too warm" already (the corpus never labels both); of
    two that put one compartment in two states ("fridge too cold" and "both too warm"),
    the classifier's likelier one stays."""
    if BOTH_WARM in slugs:
        slugs = [g for g in slugs if g not in (FRIDGE_WARM, FREEZER_WARM)]
    kept: list[str] = []
    for g in sorted((g for g in slugs if g in TEMPERATURE_SLUGS), key=lambda g: -odds.get(g, 0.0)):
        if all(not _SAYS[g].keys() & _SAYS[k].keys() for k in kept):
            kept.append(g)
    return [g for g in slugs if g not in TEMPERATURE_SLUGS or g in kept]


# A compartment said warm in words ("the freezer section is warm"), and a compartment's
# complaint of any warmth ("not cooling", "isn't cold", "thawing", "melting").
_WARM_WORD = re.compile(r"\bwarm(?:er|ing|s)?\b")
_WARMTH = re.compile(
    r"\b(?:warm\w*|thaw\w*|melt\w*|spoil\w*|soft|(?:not|isnt|arent|hardly|barely|no longer|"
    r"never|doesnt|wont|stopped)(?:\W+\w+)?\W+(?:cold|cool\w*|freez\w*|chill\w*))\b"
)
# Clauses that can set one compartment against the other; "and" joins subjects ("fridge and
# freezer warm") as often as clauses.
_CONTRAST = re.compile(r"[,;.!?()\n]+|\b(?:but|while|though|tho|although|whereas)\b")
_OWN: dict[Compartment, str] = {"fridge": FRIDGE_WARM, "freezer": FREEZER_WARM}


def _named(segment: str) -> set[Compartment]:
    found: set[Compartment] = set()
    if _FREEZER.search(segment):
        found.add("freezer")
    if _FRIDGE.search(segment):
        found.add("fridge")
    return found


def warmth_of_its_own(slug: str, clause: str) -> bool:
    """The clause names the compartment ``slug`` is *too warm* for and complains of its
    warmth ("and the freezer side feels kinda warm", "the fridge side gets warm by the
    afternoon"): it states that symptom in its own words, whatever else the message says."""
    own = next((c for c, g in _OWN.items() if g == slug), None)
    low = clause.lower().replace("'", "").replace("\u2019", "")
    return (
        own is not None
        and _named(low) == {own}
        and _WARMTH.search(low) is not None
        and _NOT_WARM.search(low) is None
    )


# "the freezer isnt warm", "not warm at all": warmth denied
_NOT_WARM = re.compile(
    r"\b(?:not|isnt|arent|wasnt|werent|never|no longer|doesnt|dont|without)\W+(?:\w+\W+)?warm"
)


def warm_said_instead(slugs: list[str], text: str) -> tuple[str, str] | None:
    """The single compartment's *too warm* the words say instead of the one read, as (read,
    said): where "warm" stands only with one compartment named ("the freezer section is
    warm but the top part is cold") and no clause naming the other complains of warmth,
    the other's *too warm* is the classifier's confusion; None when nothing is to change."""
    if FRIDGE_WARM not in slugs and FREEZER_WARM not in slugs:
        return None
    low = text.lower().replace("'", "").replace("\u2019", "")
    warm_in: set[Compartment] = set()
    complains: set[Compartment] = set()
    for segment in _CONTRAST.split(low):
        named = _named(segment)
        if _WARM_WORD.search(segment):
            warm_in |= named or {"fridge", "freezer"}
        if _WARMTH.search(segment):
            complains |= named
    if len(warm_in) != 1:
        return None
    said = next(iter(warm_in))
    other: Compartment = "freezer" if said == "fridge" else "fridge"
    if _OWN[other] not in slugs or other in complains:
        return None
    return _OWN[other], _OWN[said]
