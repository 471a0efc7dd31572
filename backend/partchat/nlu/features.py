"""One message → its n-gram features. Training and scoring share this function.

Numbers are replaced by placeholders before the n-grams are taken: "PS11752778" and
"WDT780SAEM1" carry no meaning for intent beyond *a part number* / *a model number*,
and the classifier must not learn particular numbers from the corpus.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from functools import cache, lru_cache

from partchat.catalog.vocab import part_type_keywords

from .temperatures import spelled_numbers, states
from .trie import alternation

FEATURES_VERSION = 13

_PS = re.compile(r"\bps\d{3,12}\b")
_NUMBER = re.compile(r"\b(?=[a-z0-9./-]*\d)[a-z0-9][a-z0-9./-]{3,}\b")
# A count or a temperature ("50 degrees", "48f", "-20"): its size says nothing the words
# around it do not, and each value seen once would be a feature of its own.
_SMALL_NUMBER = re.compile(r"\b\d{1,3}(?:f|c)?\b")
_APOSTROPHE = re.compile(r"['’`´]")
_NON_WORD = re.compile(r"[^a-z0-9?]+")
_QUESTION = re.compile(r"\?")
# Idioms of a thing failing, said as the word the corpus uses for them ("the ice maker gave
# up on me" is "quit"): each is too rare in the corpus for the classifier to learn.
_GAVE_UP = re.compile(
    r"\b(gave (up|out)|conked out|packed (up|in)|crapped out|pooped out|bit the dust|"
    r"kicked the bucket|(went|is|gone) kaput|croaked)\b"
)

# Price and fit said in rarer words, as the words the corpus uses ("what does that one go
# for", "will it suit my …"); not "ill go for the second one".
_GOES_FOR = re.compile(
    r"\b(it|that|this|they|one|ones|those|these|each|part|ps\d+)\s+(usually\s+)?"
    r"(go|goes|going|sell|sells|selling|retail|retails|run|runs|running)\s+for\b"
)
_SET_BACK = re.compile(r"\bset (me|you|us) back\b")
_HOW_BOUT = re.compile(r"\b(how|what) (bout|abt)\b")
_SUIT = re.compile(r"\b(suit|suits|suited (to|for)|suitable for)\b")
# "fit" as the verb of fitting, after the effort it takes ("easy to fit?", "how hard is it
# to fit"): as the corpus says it ("put in"; no train or dev text says "to fit" so), not a
# fit check
_EFFORT_TO_FIT = re.compile(
    r"\b((hard|harder|easy|easier|difficult|tricky|tough|simple|complicated|a pain)"
    r"( \w+){0,3}? to) fit\b",
    re.IGNORECASE,
)


def fitting_said_plainly(text: str) -> str:
    """``text`` with "fit" after the effort it takes said as "put in" ("easy to fit?")."""
    return _EFFORT_TO_FIT.sub(r"\1 put in", text)


@lru_cache(maxsize=8192)
def normalize(text: str) -> str:
    """Lower case, apostrophes dropped ("won't" → "wont"), numbers (in digits or in
    words: "forty five") as placeholders."""
    text = _GAVE_UP.sub("quit", spelled_numbers(_APOSTROPHE.sub("", text.lower())))
    text = _SUIT.sub("fit", _SET_BACK.sub("cost", _GOES_FOR.sub(r"\1 cost", text)))
    text = fitting_said_plainly(text)
    text = _HOW_BOUT.sub(r"\1 about", text)
    text = _PS.sub(" psnum ", text)
    text = _NUMBER.sub(" modelnum ", text)
    text = _SMALL_NUMBER.sub(" smallnum ", text)
    text = _QUESTION.sub(" qmark ", text)
    return " ".join(_NON_WORD.sub(" ", text).split())


@cache
def part_type_pattern() -> re.Pattern[str]:
    """Any part type's name in the catalog's vocabulary, longest first, plural or not."""
    return re.compile(r"\b(" + alternation(k for k, _ in part_type_keywords()) + r")s?\b")


# A part type's word said as the verb of fitting it ("how do i mount it", "screw them
# in", "howd i bolt that on", "hows it clip on"): no part named; not after an article
# ("the seal it came with"), nor before "that" unless a particle follows ("the switch
# that broke"). (The classifier's ``k:part`` feature keeps the plain pattern: it learns
# the verb use from the words around it.)
_FITTING_VERBS = (
    r"(mount|seal|cover|clip|plug|screw|latch|lock|cap|switch|light|support|bolt|clamp|pin|wire)"
)
_PARTICLE = r"(on|in|up|down|back|off|out|into|onto|together)"
_VERB_USE = re.compile(
    r"(?<!the )(?<!a )(?<!an )(?<!my )(?<!your )"
    rf"\b{_FITTING_VERBS}(s|ed|ing)?\s+"
    # "bolt that on", "wire this up": "that" and "this" as the object before a particle
    rf"(it|them|(that|this)(?=\s+{_PARTICLE}\b))\b|"
    # "hows it clip on", "does it screw in", "they plug in"
    rf"\b(it|they)\s+{_FITTING_VERBS}(s|ed|ing)?\s+{_PARTICLE}\b"
)


# A part put in place with any verb, the clause ending there: "pop it in", "how do i
# stick this on?", "slot them back in myself", "does it snap on"; not power or post ("turn
# it on", "plug it in", "send it back in") nor a choice ("have it in white", "get it in
# stock")
_NOT_FITTING_WORDS = (
    "turn", "turns", "turned", "switch", "plug", "send", "sent", "mail", "ship", "log", "sign",
    "leave", "keep", "have", "has", "had", "got", "hand", "drop", "check", "come", "comes",
    "came", "bring", "take", "back",
)  # fmt: skip
# (the pronoun first, the verb before it looked behind at: a third cheaper than trying a
# verb at every word)
FITTED_IN = re.compile(
    r"((?<=[a-z] )"
    + "".join(rf"(?<!\b{w} )" for w in _NOT_FITTING_WORDS)
    + r"(it|them|that|this)( back)?|"
    + rf"\b(it|they) (?!({'|'.join(_NOT_FITTING_WORDS)})\b)[a-z]+) (in|on)\b"
    r"(?=\s*([?.!,;]|$|\b(myself|and|or|without|properly|correctly|right|then|now|pls|please|"
    r"ok|okay)\b))",
    re.IGNORECASE,
)


def part_types_said(norm: str) -> str:
    """A normalised text without the part type words used as verbs."""
    return _VERB_USE.sub(" ", norm)


def part_type_named(text: str) -> bool:
    """The text names a part type of the catalog's vocabulary ("drain hose")."""
    return part_type_pattern().search(part_types_said(normalize(text))) is not None


_PLACEHOLDERS = frozenset({"psnum", "modelnum", "smallnum", "qmark"})


# A clause that says a part of the appliance is fine ("but the freezer is fine", "fridge
# side seems normal") names that part without a problem: its words are features of their
# own (``o:``), not the words of a complaint.
_CLAUSE = re.compile(r"([,.;!()\n]+|\b(?:but|while|though|tho|although|and)\b)")
_FINE = re.compile(
    r"\b(fine|ok|okay|normal|good|great|perfect|perfectly (cold|fine)|cold enough|works|working|"
    r"no problems?|nothing wrong)\b"
)
# For the reading only (the features keep the words): the other compartment "still cold"
# ("fridge part is still cold tho", "right side is cold as ever"); the water still cold is
# the dishwasher's heating.
_STILL_COLD = re.compile(
    r"(?<!water )(?<!water is )\bstill (cold|cool|chilly|icy|frosty)\b|"
    r"\b(cold|cool|chilly|icy|frosty|frozen) as (it )?ever\b|"
    # a light or display that still comes on ("light inside still comes on tho")
    r"\b(light|lights|bulb|display|screen|leds?)\b[\w ]{0,20}\bstill (comes? on|lights? up|turns? on|"
    r"glows?)\b"
)


# A fine word under a negation or a stop says the opposite ("not working", "stopped
# working", "isn't cold enough", "no close good"), as do "for good" and "than normal";
# "no problem" and "nothing wrong" are themselves fine.
_UNFINE_BEFORE = re.compile(
    r"(?:\b(?:no|not|never|nor|isnt|arent|wasnt|werent|aint|dont|doesnt|didnt|wont|cant|"
    r"hasnt|havent|stopped|stops|quit|quits|barely|hardly)(?:\W+\w+)?|\b(?:for|than))\W+$"
)


def _clauses(text: str) -> list[str]:
    """The text's clauses (and the marks between them), lower case, apostrophes dropped."""
    return _CLAUSE.split(_APOSTROPHE.sub("", text.lower()))


def says_fine(clause: str, *, still_cold: bool = False) -> bool:
    """The clause (lower case, apostrophes dropped) says a part works or is fine
    (``still_cold``: or is still cold)."""
    if (
        still_cold
        and (cold := _STILL_COLD.search(clause))
        and not _UNFINE_BEFORE.search(clause, 0, cold.start())
    ):
        return True
    for m in _FINE.finditer(clause):
        if m.group(1).startswith("no ") or not _UNFINE_BEFORE.search(clause, 0, m.start()):
            return True
    return False


def without_fine_clauses(text: str) -> str | None:
    """The text without its clauses that say all is fine, or None when it has none."""
    fine = [(c, says_fine(c, still_cold=True)) for c in _clauses(text)]
    if not any(f for _, f in fine):
        return None
    return " ".join(c for c, f in fine if not f)


def fine_clauses(text: str) -> list[str]:
    """The clauses of the text that say all is fine."""
    return [c for c in _clauses(text) if says_fine(c, still_cold=True)]


# A stop under a negation is the opposite of a stop ("hasn't stopped running", "never
# shuts off", "won't quit leaking"): one word, "nonstop", as shoppers also write it, so
# "stopped running" is not read as the thing stopping.
_STOPPED = frozenset(["stop", "stops", "stopped", "stopping", "quit", "quits", "quitting"])
_OFF_VERBS = frozenset(["shut", "shuts", "turn", "turns", "cycle", "cycles", "kick", "kicks"])
# between a negation and its stop ("never seems to shut off", "doesnt ever really stop")
_FILLER = frozenset(["ever", "even", "really", "actually", "seems", "seem", "to", "want", "wants"])


def nonstop(words: list[str]) -> list[str]:
    """The words with each negated stop as ``nonstop``."""
    if not NEGATOR.intersection(words):
        return words
    out: list[str] = []
    i = 0
    while i < len(words):
        j = i + 1
        if words[i] in NEGATOR and j < len(words):
            while j < len(words) and j < i + 3 and words[j] in _FILLER:
                j += 1
            if j < len(words) and words[j] in _STOPPED:
                out.append("nonstop")
                i = j + 1
                continue
            if j + 1 < len(words) and words[j] in _OFF_VERBS and words[j + 1] == "off":
                out.append("nonstop")
                i = j + 2
                continue
        out.append(words[i])
        i += 1
    return out


def _clause_words(text: str) -> list[tuple[str, list[str]]]:
    """Each clause with its normalised words, a negated stop as ``nonstop``."""
    return [(c, nonstop(normalize(c).split())) for c in _clauses(text)]


def _tagged_words(clauses: list[tuple[str, list[str]]]) -> list[str]:
    """The normalised words, each ``w:`` or ``o:`` (in a clause that says all is fine)."""
    out: list[str] = []
    for clause, words in clauses:
        tag = "o:" if says_fine(clause) else "w:"
        out += [tag + w for w in words]
    return out


def word_features(text: str) -> tuple[list[str], list[str]]:
    """The features that are not character n-grams, and the words whose character
    n-grams (``char_grams``) complete them: ``features`` is both counted together."""
    clauses = _clause_words(text)
    grams = _tagged_words(clauses)
    words = [g[2:] for g in grams]
    grams += [f"b:{a} {b}" for a, b in itertools.pairwise(["<s>", *words, "</s>"])]
    if part_type_pattern().search(" ".join(words)):
        grams.append("k:part")
    grams += temperature_features(text)
    grams += _negated(clauses)
    return grams, [w for w in words if w not in _PLACEHOLDERS]


NEGATOR = frozenset(
    [
        "no",
        "not",
        "never",
        "without",
        "nothing",
        "dont",
        "doesnt",
        "didnt",
        "isnt",
        "wont",
        "cant",
        "arent",
        "hasnt",
        "havent",
        "nor",
    ]
)
_NEGATED_SPAN = 3


def negated_words(text: str) -> list[str]:
    """``n:click`` for the words a negation governs ("no click when I shut it", "the
    little door never pops open"): the absence of a sound or an event is not the symptom
    that names it, and the classifier can learn so."""
    return _negated(_clause_words(text))


def _negated(clauses: list[tuple[str, list[str]]]) -> list[str]:
    out: list[str] = []
    for _clause, words in clauses:
        for i, w in enumerate(words):
            if w in NEGATOR:
                out += [f"n:{x}" for x in words[i + 1 : i + 1 + _NEGATED_SPAN]]
    return out


# "never stops clicking", "won't quit leaking": a negated stop is the problem going on.
_STOP = frozenset(["stop", "stops", "quit", "quits", "end", "ends", "shut", "shuts"])


def without_negations(text: str) -> str | None:
    """The normalised text without each negation and the words it governs (as in
    ``negated_words``), or None when it has none: what the message says is there."""
    kept: list[str] = []
    found = False
    for clause in _clauses(text):
        words = normalize(clause).split()
        skip = 0
        for i, w in enumerate(words):
            if w in NEGATOR and not (i + 1 < len(words) and words[i + 1] in _STOP):
                found, skip = True, _NEGATED_SPAN + 1
            if skip:
                skip -= 1
                continue
            kept.append(w)
        kept.append(",")
    return " ".join(kept) if found else None


@lru_cache(maxsize=4096)
def temperature_features(text: str) -> tuple[str, ...]:
    """``t:fridge-warm``, ``t:freezer-ok``, …: what the readings say of each compartment
    (``temperatures.states``), and ``t:both-warm`` when both are warm: the placeholder
    ``smallnum`` alone cannot tell "fridge 50, freezer 35" from "fridge 37, freezer 35"."""
    found = states(text)
    out = [f"t:{c}-{s}" for c, s in sorted(found.items())]
    if found.get("fridge") == found.get("freezer") == "warm":
        out.append("t:both-warm")
    return tuple(out)


@lru_cache(maxsize=65536)
def char_grams(word: str) -> tuple[str, ...]:
    """Character 3- to 5-grams of a word, with its boundaries."""
    token = f" {word} "
    size = len(token)
    return tuple("c:" + token[i : i + n] for n in (3, 4, 5) for i in range(size - n + 1))


def features(text: str) -> Counter[str]:
    """Word unigrams (``o:`` in a clause that says all is fine) and bigrams, character 3-
    to 5-grams inside word boundaries, and ``k:part`` when the text names a part type of
    the catalog's vocabulary ("drain pump"): naming a part is what separates "I need a new
    drain pump" from a symptom."""
    grams, words = word_features(text)
    counts = Counter(grams)
    for w in words:
        counts.update(char_grams(w))
    return counts
