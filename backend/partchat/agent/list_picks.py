"""Which part of the previous answer's list the newest message points at (price, place, name)."""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Iterable, Sequence
from functools import cache

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from partchat.catalog.stem import stem
from partchat.catalog.vocab import (
    APPLIANCE_NAMES,
    appliance_words,
    brand_names,
    brand_words,
    part_type_keywords,
)
from partchat.nlu.dialogue import DAMAGE_WORDS, PRICE_SLANG
from partchat.nlu.features import FITTED_IN, part_type_named, part_types_said

_PS_IN_TEXT = re.compile(r"\bPS\d{3,12}\b")
_ORDINALS = {
    "first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2,
    "fourth": 3, "4th": 3, "fifth": 4, "5th": 4, "sixth": 5, "6th": 5, "seventh": 6,
    "7th": 6, "eighth": 7, "8th": 7, "ninth": 8, "9th": 8, "tenth": 9, "10th": 9,
    "last": -1, "top": 0, "bottom": -1,
}  # fmt: skip
_ORD = "(" + "|".join(w for w in _ORDINALS if w not in ("top", "bottom")) + ")"
_FILLER = r"(ok(ay)?|so|um+|uh+|h+m+|well|and|then|yes|yeah|yep|lets? (go with|do|try)|go with|i'?ll take|take)"
_COURTESY = r"pls|plz|please|thanks?|thx|ty|then"
_ORDINAL = re.compile(
    rf"\bthe\s+(?P<a>{_ORD[1:-1]})\b(?!\s+(\d|digits?|numbers?|letters?|characters?|bit)\b)|(?<!\ba )(?<!\ban )\b(?P<b>{_ORD[1:-1]})\s+(?:one|part|option|item|choice|result|hit|match|entry|listing|pick|suggestion)\b|"
    r"\b(?P<c>top|bottom)\s+(one|result|hit|match|pick)\b|\bone (?:at|on) the\s+(?P<d>top|bottom)\b|"
    r"(?:\bnumber|\bno\.?|#|\boption|\bitem)\s*(?P<n>[1-9]|one|two|three|four|five|six|seven)\b|"
    # a digit alone, after filler and before courtesy ("2", "ok so 1", "3 pls", "the 2")
    rf"^\W*({_FILLER}\W+)*(the\s+)?(?P<m>[1-9])\s*(\W+({_COURTESY}))*[.!?]*\s*$|"
    # "2nd looks right", "1st pls, price and stock?": an ordinal that opens the message
    rf"^\W*(?P<e>{_ORD[1:-1]})\b(?!\s+(time|of all|thing|off|i\b|we\b|you\b))",
    re.IGNORECASE,
)


def points_at_a_place(text: str) -> bool:
    """The message points at a place in a list ("the second thing on your list")."""
    return _ORDINAL.search(text) is not None


def _place(said: re.Match[str]) -> int:
    """The list index an ``_ORDINAL`` match points at (-1: the last)."""
    word = said["a"] or said["b"] or said["c"] or said["d"] or said["e"]
    number = said["n"] or said["m"] or ""
    return _ORDINALS[word.lower()] if word else _NUMBERS[number.lower()] - 1


# "ok that one", "yes this one please": a pick with nothing but the pointing word
_POINTING = r"^\W*((ok(ay)?|k|yes|yeah|yea|ya|yep|yup|sure|cool|great|perfect|nice)\W+)*(that|this)"
THAT_ONE = re.compile(
    rf"{_POINTING}( one)?(\W+(please|pls|then|thanks|thx))*\W*$",
    re.IGNORECASE,
)
# "that one. in stock?": the pointing words first, then maybe a question ("that one is
# broken" says something of its own)
_THAT_ONE_FIRST = re.compile(rf"{_POINTING} one\b(?!\s+\w+\s+(is|was)\b)", re.IGNORECASE)
# "thats the one", "that one, $?": pointing at a part without naming it
_POINTS = re.compile(
    rf"{_POINTING}( one)?\b|^\W*(\w+\W+){{0,2}}?(that'?s|this is) (the|my) one\b", re.I
)
_IT = re.compile(r"\b(it|that|this)\b", re.IGNORECASE)
# A choice that ends a message, after its reasons ("…, so lets go with the hinge kit",
# "bulb is brand new already so the socket kit i guess")
_CHOICE_LAST = re.compile(
    r"(?:[,.;!?]|\bso\b|\bthen\b)\s*((?:let'?s|i'?ll|ill|we'?ll|i'?m gonna|im gonna|gonna|"
    r"give me|gimme|go with|going with|i'?ll take|ill take)\b[^,.;!?]*|"
    r"(?:prob(?:ably)? |maybe )?the\b[^,.;!?]*\b(?:i guess|i think|i suppose|i reckon|then))\W*$",
    re.IGNORECASE,
)
_YES_ALONE = re.compile(r"^\W*(yes|yeah|yea|yep|yup|ya|sure)(\W+(please|pls|plz))?\W*$", re.I)
# "fits 71053 too?", "and fit my WDT780SAEM1?": a fit asked with its subject left out
_FIT_FIRST = re.compile(r"^\W*((and|also|so|ok)\W+)*(fits?|will fit|would fit)\b", re.I)
_THE_WORD_ALONE = re.compile(r"^\W*(?:the|that|this) ([a-z]{3,})\W*$", re.IGNORECASE)
_THE_WORD_ONE = re.compile(r"\bthe ([a-z]{3,}) one\b", re.IGNORECASE)
_WITH_DIGITS = re.compile(r"\b\w*\d\w*\b")  # a model or part number: no name's words
_SEARCH_LIST = re.compile(r"\bHere's what I found\b")
# "tell me more about that one", "price on this one"
_ABOUT_THAT_ONE = re.compile(r"\b(about|of) (that|this) one\b(?!\s+\w+\s+(is|was)\b)", re.I)
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7} | {
    str(i): i for i in range(1, 10)
}
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_PRICE = re.compile(r"\$(\d[\d,]*(?:\.\d+)?)")
# "the cheaper of the two", "the most expensive one"
# A price read off the list ("the 41.95 one", "the $13.75 gasket"): dollars and cents.
_PRICE_SAID = re.compile(r"(?<![\w.])\$?(\d{1,4}\.\d\d)(?![\w.])")
_DOLLARS_SAID = re.compile(
    r"(?<![\w.])\$(\d{1,4})(?![\d.,])|(?<![\w.$])(\d{1,4}) ?(?:bucks?|dollars?|usd|quid)\b", re.I
)
_WATTS = re.compile(r"\b(\d{1,4}) ?-?(?:watts?|wat)\b", re.IGNORECASE)
_BY_PRICE = re.compile(
    r"\b(?P<low>cheap(?:er|est)|less expensive|least expensive|lowest price)\b|"
    r"\b(?:more|most) expensive\b|\bpric(?:ier|iest)\b",
    re.IGNORECASE,
)
# "the one in stock", "whichever is available", "the in-stock one", "whichever of those
# drawers ships today" (not "is it in stock?")
_STOCKED = r"in stock|available|ships? (today|now|right away|straight away|fastest|soonest)"
_BY_STOCK = re.compile(
    r"\b(the|whichever|which ever)\s+((ones?|part)\s+|of (those|these|them|the)\s+(\w+\s+)?)?"
    rf"((that'?s|thats|that is|which is|is|you ((actually|really|currently) )?(have|got)|that|which|"
    r"you can)\s+)?"
    rf"((actually|really|currently|still)\s+)?({_STOCKED})\b|"
    r"\bthe (in[- ]stock|available) (one|part)\b|"
    # "which one's actually in stock", "which of those is available"
    rf"\bwhich (ones?|of (those|these|them))\W*(s|is|are)?( \w+)? ({_STOCKED})\b|"
    # "whichever one u actually have in stock", "the one you guys have in stock"
    rf"\b(whichever|which ever|the one|which ones?|which of (those|these|them))\b[^.?!]{{0,30}}?"
    rf"\b(you|u|ya|y'?all)\b[^.?!]{{0,20}}?({_STOCKED})\b",
    re.IGNORECASE,
)
# The part a diagnosis thinks likeliest ("whats the most likely culprit", "which is the
# usual suspect"): it lists that one first.
_BY_LIKELIHOOD = re.compile(
    r"\b(likeliest|most (likely|probable|common)|(likely|usual|main|prime|biggest|top) "
    r"(culprit|suspect|cause)s?|number one (culprit|suspect|cause))\b",
    re.IGNORECASE,
)
_ANOTHER_CASE = re.compile(r"\b(for|when|if|with)\b(?!\s+(this|that|it|these|those|them)\b)", re.I)
_IN_STOCK = re.compile(r"·\s*in stock\b", re.IGNORECASE)
_NAME_WORD = re.compile(r"[a-z]{3,}|\b\d{1,4}w\b")  # ("40w": a bulb's wattage)
_GENERIC_WORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "this",
        "that",
        "one",
        "part",
        "parts",
        "thing",
        "things",
        "thingy",
        "piece",
        "assembly",
        "kit",
        "how",
        "install",
        "installing",
        "replace",
        "what",
        "does",
        "fit",
        "fits",
        "will",
        "work",
        "can",
        "you",
        "about",
        "tell",
        "show",
        "need",
        "want",
        "price",
        "cost",
        "costs",
        "expensive",
        "cheap",
        "pricey",
        "teh",
        "hm",
        "hmm",
        "hmmm",
        "umm",
        "ugh",
        "meh",
        "oops",
        "much",
        "details",
        # words around a name that do not name anything ("prob the door switch", "ok
        # lets get that one")
        "its",
        "thats",
        "prob",
        "probably",
        "make",
        "maybe",
        "likely",
        "possibly",
        "perhaps",
        "could",
        "might",
        "suspect",
        "culprit",
        "guess",
        "think",
        "looks",
        "sounds",
        "like",
        "yeah",
        "yes",
        "okay",
        "lets",
        "try",
        "then",
        "same",
        "sure",
        "just",
        "from",
        "list",
        "please",
        "pls",
        "get",
        "take",
        "buy",
        "order",
        "choose",
        "pick",
        "more",
        "info",
        "stock",
        "thing",
        "piece",
        "bit",
        "has",
        "have",
        "comes",
        "whichever",
        "two",
        "three",
        "those",
        "these",
        "fine",
        "right",
        "alright",
        "cool",
        "great",
        "good",
        "perfect",
        "well",
        # the whole of a part rather than a piece of it ("the whole assembly not just the nut")
        "whole",
        "entire",
        # a choice said as a decision ("gonna go w/ the defrost heater", "i'll go
        # with the pump instead", "decided on the hinge")
        "ill",
        "gonna",
        "going",
        "wanna",
        "gotta",
        "decided",
        "decide",
        "instead",
        "settle",
        "reckon",
        "rather",
        "prefer",
        "option",
        # chatter around a pick ("yep thats it, do you have it in stock", "gimme the black
        # one", "wait actually let me see the pump")
        "yep",
        "yup",
        "yea",
        "actually",
        "gimme",
        "give",
        "wait",
        "let",
        "itself",
        # a time, not a place ("id rather try the drain tube kit first"; "the first one"
        # is read as a place before names are)
        "first",
        "also",
        "guys",
        "anyway",
        "kinda",
        "nvm",
        "mine",
        "mines",
        "ours",
        "would",
        "match",
        "matches",
        "better",
        "sorry",
        "hold",
        # the fitting's verbs ("how do i change that out"): no part's name has them
        "change",
        "swap",
        "remove",
        "out",
        "yikes",
        "ugh",
        "dang",
        "darn",
        "oof",
        "whoa",
        "wow",
        "geez",
        # a closing thanks ("the defrost heater thanks")
        "thanks",
        "thank",
        "thx",
        "cheers",
        "plz",
        "lol",
    ]
)


@cache
def _generic_stems() -> frozenset[str]:
    """The generic words, the appliance's one-word names in any spelling ("the fridge
    one"; "freezer" and "ice maker" tell listed parts apart, so they are not generic) and
    the brands' words: "it's a whirlpool 10672003010" after a list gives the appliance's
    make, not the *Whirlpool EveryDrop Filter* listed (a brand is in 148 part names)."""
    names = (w for w, _ in appliance_words(APPLIANCE_NAMES) if " " not in w)
    # a brand's later word is an ordinary one ("jenn air": "the air one" is the air filter)
    later = {w for b in brand_names() for w in b.split()[1:]}
    brands = (w for w in brand_words() if w not in later)
    return frozenset(stem(w) for w in (*_GENERIC_WORDS, *names, *brands))


# A message that asks how to put one part in ("what door parts fit" asks for parts).
_ASKS_INSTALL = re.compile(
    r"\b(install\w*|replac\w*|swap\w*|put (it |that |this |(the|that|this) \w+ |the \w+ one )?(in|on)|"
    r"(change|mount|attach) (it|that|this)|myself|on my own|diy|(get|take|yank|pop) (it|that|this|them) out|"
    r"(new|fresh) one (in|on))\b|" + FITTED_IN.pattern,
    re.IGNORECASE,
)
# "the difference between the mid spray arm and the lower one", "heater vs thermostat":
# two listed parts compared; the first one named is the one to show first.
_COMPARES = re.compile(
    r"\b(difference between|differences? of|compare\w*|vs\.?|versus)\b|"
    r"\b(what'?s|whats|what is|how'?s|hows|how are they|how do they) (different|differ)\b",
    re.I,
)
# "the 1 and the 3, whats different between them": the parts compared said before
_THEM = re.compile(r"^\W*(between\s+)?(them|those|these|the two|both|each other)?\W*$", re.I)
_PLACES_FIRST = re.compile(r"^\W*(?:the |number |no\.? |#)?([1-5])(?:st|nd|rd|th)?\b", re.I)
_PLACE_ALONE = re.compile(r"^\W*(?:the |number |no\.? |#)?([1-5])\W*$", re.IGNORECASE)
_SECOND_OF_TWO = re.compile(r"\b(?:and|or|vs\.?|versus)\b|,", re.IGNORECASE)


@cache
def _part_type_stems() -> frozenset[str]:
    """Every word of the catalog's part-type keywords, stemmed (they are stemmed phrases)."""
    return frozenset(w for k, _ in part_type_keywords() for w in k.split())


# Shoppers' short forms of the words in part names ("the evap fan", "temp control").
_SHORT_FORMS = {"evap": "evaporator", "temp": "temperature", "thermo": "thermostat"}


def _stems(text: str) -> set[str]:
    return {stem(w) for w in _NAME_WORD.findall(text.lower())}


def referenced_part(
    messages: Sequence[BaseMessage], numbers: re.Pattern[str] = _PS_IN_TEXT
) -> str | None:
    """The part the newest user message points at in a list the assistant gave: by
    position ("the first one", "number 2"), as the other of two ("the other one"), or by
    name ("the drain pump", "tell me about the damper control"). A name is every word of
    the message but the generic ones, all of them in a listed part's name ("what about
    the drain hose" does not pick the drain pump); of several such parts, the first listed
    (lists are ordered most likely first).

    A place in a list and "the other one" point into the newest answer that is a list
    (numbered parts), up to three answers back ("the first part you showed me" after one
    part's details), a place that list lacks into the newest one that has it; a name, into
    the newest answer that has it. Words that send the shopper back ("from the first
    list", "back to", "instead") look for a name six answers back."""
    if len(messages) < 2 or not isinstance(messages[-1], HumanMessage):
        return None
    text = str(messages[-1].text)
    chosen = _CHOICE_LAST.search(text)
    if chosen is not None and chosen.start() > 0:
        # "my buddy said to check the fan in the back so lets go with the condenser fan
        # motor kit", "the filter looks fine, ill take the door seal": the choice that
        # ends the message, its reasons before it aside
        # (a choice of a part not listed, "so lets go with the spray arm", picks none)
        picked = referenced_part([*messages[:-1], HumanMessage(chosen[1])], numbers)
        if picked is not None or _named_words(chosen[1]) & _part_type_stems():
            return picked
    back = _BACK_TO.search(text)
    said = _EARLIER.sub(" ", text[back.start() :] if back else text)
    if said != text and not _WHICH_OR_ANY.search(said) and not _WANTS_OPTIONS.search(said):
        # "the latch spring from the first list", "back to the gray one": a part named
        # in any of the last six answers, by its name ("back to", "instead": not the
        # newest answer's part)
        answers = [m for m in messages[-13:-1] if isinstance(m, AIMessage)][-6:]
        if _AWAY.search(text) and answers and not _is_list(answers[-1].text, numbers):
            answers = answers[:-1]
        listings = [m.text for m in answers if numbers.search(m.text)]
        # the last sentence that names one ("nah i dont think a bracket is it. the actual
        # ice maker assembly instead"), else the whole message
        for part in [*reversed(_SENTENCES.split(said.strip())[1:]), said]:
            named = [p for t in reversed(listings) if (p := _named_in(t, part, numbers))]
            if named:
                return named[0]
        text = said
    if _ASKED_FIRST.search(text):
        # "ok the first one i asked about, does it fit a A4425GDTABB" after two parts'
        # details: the first of the parts shown one at a time
        shown: list[str] = [
            found[0]
            for m in messages[-13:-1]
            if isinstance(m, AIMessage) and len(set(found := numbers.findall(m.text))) == 1
        ]
        if len(distinct := list(dict.fromkeys(shown))) > 1:
            return distinct[0]
    answers = [m for m in messages[-7:-1] if isinstance(m, AIMessage)][-3:]
    listings = [m.text for m in answers if numbers.search(m.text)]
    if not listings:
        return None
    asked = _requests(messages[-8:])
    lists = [t for t in listings if _is_list(t, numbers)]
    ordinal, other = _ORDINAL.search(text), _OTHER.search(text)
    by_price = _BY_PRICE.search(text)
    if (
        lists
        and (ordinal or other)
        and not (by_price and (not ordinal or by_price.start() < ordinal.start()))
    ):
        listing = lists[-1]
        if other and not ordinal:
            return _other(listing, listings[-1] if listings[-1] is not listing else "", numbers)
        if ordinal and (kinds := _named_words(_ORDINAL.sub(" ", text)) & _part_type_stems()):
            # "what about the first spray arm" after a search that found no spray arm: the
            # newest list with a part of that type
            typed = [t for t in lists if kinds <= _name_stems(t.splitlines())]
            lists = typed[-1:] or lists
        for listing in reversed(lists):
            # "the 3rd one" after a list of one (the model's) below a longer one (the
            # appliance's): the newest list that has that place
            if pointed := _pointed(listing, text, numbers, asked=asked.get(listing, "")):
                return pointed
        return None
    newest = isinstance(messages[-2], AIMessage) and messages[-2].text == listings[-1]
    pointed = _pointed(
        listings[-1], text, numbers, asked=asked.get(listings[-1], ""), newest=newest
    )
    if pointed is None and len(listings) > 1:
        # "the thermostat one from that list", "what about the upper rack assembly" after
        # one part's details: the list before
        for listing in reversed(listings[:-1]):
            about = asked.get(listing, "")
            if pointed := _pointed(listing, text, numbers, focus=listings[-1], asked=about):
                break
    return pointed


def place_past_the_end(
    messages: Sequence[BaseMessage], numbers: re.Pattern[str] = _PS_IN_TEXT
) -> int | None:
    """How many parts the newest list has, when the newest user message points at a place
    that none of the lists of the last three answers has ("the 7th one", "lets go with
    the 9" after five parts): the shopper is told how many there are, not shown the list
    again. None when the place is listed, or the message names a part type or a price."""
    if len(messages) < 2 or not isinstance(messages[-1], HumanMessage):
        return None
    text = str(messages[-1].text)
    said = _ORDINAL.search(text)
    if (
        said is None
        or _A_DATE.search(text)
        or _OTHER.search(text)
        or _BY_PRICE.search(text)
        or _named_words(_ORDINAL.sub(" ", text)) & _part_type_stems()
    ):
        return None
    index = _place(said)
    answers = [m for m in messages[-7:-1] if isinstance(m, AIMessage)][-3:]
    sizes = [len(_listed(m.text, numbers)[0]) for m in answers if _is_list(m.text, numbers)]
    if not sizes or index < 0 or any(index < size for size in sizes):
        return None
    return sizes[-1]


def newest_list_size(messages: Sequence[BaseMessage]) -> int:
    """How many numbered items the newest of the last three answers that lists any has
    (whatever shape the catalog's part numbers take)."""
    answers = [m for m in messages[-7:] if isinstance(m, AIMessage)][-3:]
    for m in reversed(answers):
        if count := sum(1 for line in str(m.text).splitlines() if _ITEM.match(line)):
            return count
    return 0


# "can it be here by the 9th", "the 7th of december": a day, not a place in a list
_A_DATE = re.compile(
    r"\b(by|on|before|until|till|after|from|for) the \d{1,2}(st|nd|rd|th)\b|"
    r"\b\d{1,2}(st|nd|rd|th) of\b|\bof the month\b",
    re.IGNORECASE,
)


# "is that one any cheaper": no word of a name (elsewhere "any of those …" asks for a type)
_ANY = re.compile(r"\bany\b", re.IGNORECASE)
# The part asked about first, of several shown one at a time
_ASKED_FIRST = re.compile(
    r"\b(first|1st|earlier|original) (one|part) (i|we) (asked|was asking|looked|checked) about\b|"
    r"\bthe (one|part) (i|we) (asked|looked) about first\b",
    re.IGNORECASE,
)
# Words that skip the answer in focus: "instead", "after all", and a pick put right ("sorry
# no i meant the auger, not the funnel", "actually the black one would match better")
_AWAY_WORDS = (
    r"\binstead\b|\bafter all\b|"
    r"^\W*((hmm+|oh|ok|wait|no|sorry|oops)\W+)*(sorry|actually|i meant|meant|no wait|wait no)\b|"
    r"\bnever ?mind\b"
)
# Words that send the shopper back to an earlier answer ("the hinge from the list", "the
# drip pan from before", "back to the gray one", "the chute door one instead").
_EARLIER = re.compile(
    r"\b(from|off|on|in) (the|that|your|ur|ya) ((first|1st|other|earlier|previous|last|"
    r"original|old|top) )?(list|search|results?|answer)\b|"
    r"\b(from|like) (before|earlier)\b|\b(you|u) (showed|listed|gave|mentioned|said)( me)?"
    r"( (before|earlier|first|at first))?\b|\b(go|going|come|coming) back( to)?\b|\bback to\b|"
    + _AWAY_WORDS,
    re.IGNORECASE,
)
_AWAY = re.compile(r"\bback to\b|\bgo back\b|" + _AWAY_WORDS, re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?;])\s+")
# What one goes back to follows the words: "nah a grommet isnt gonna fix it. back to the
# list, the condenser fan motor one"
_BACK_TO = re.compile(r"\bback to\b", re.IGNORECASE)


def _listed(
    answer: str, pattern: re.Pattern[str]
) -> tuple[dict[str, str], dict[str, str], dict[str, float]]:
    """The parts ``answer`` names, in order: part number → its name (the line's bold
    text, lower case, else the line), → its whole line, → its price where the line has
    one."""
    names: dict[str, str] = {}
    lines: dict[str, str] = {}
    prices: dict[str, float] = {}
    for line in answer.splitlines():
        bold = _BOLD.findall(line)
        price = _PRICE.search(line)
        for ps in pattern.findall(line):
            names.setdefault(ps, " ".join(bold).lower() if bold else line.lower())
            lines.setdefault(ps, line)
            if price and ps not in prices:
                prices[ps] = float(price[1].replace(",", ""))
    return names, lines, prices


def _named_in(answer: str, text: str, numbers: re.Pattern[str]) -> str | None:
    """The one part of ``answer`` (a list or one part's answer) that ``text`` names, by the
    words of its name that name a part type or tell listed parts apart."""
    items = _listed(answer, numbers)[0]
    named = _named(items, text) or _named(items, text, relaxed=True, typed=True)
    return named[0] if named else None


def _of_kind(items: dict[str, str], asked: str) -> list[str]:
    """The listed parts whose names have every part-type word of ``asked`` that some
    listed name has ("door shelf bin" → the *Door Shelf Bin*, not the *Door Cam*; "the
    door handle came off" → both *Handle*s)."""
    in_names = _name_stems(items.values())
    kind = _stems(asked) & _part_type_stems() & in_names
    if not kind:
        return []
    return [ps for ps, line in items.items() if kind <= _stems(line)]


def _headed(items: dict[str, str], text: str) -> list[str]:
    """The listed parts whose name ends in a part-type word of ``text`` ("whichever of
    those drawers ships today" → the *Crisper Drawer*, not the *Crisper Drawer Roller*)."""
    said = _stems(_NOT_A_NAME.sub(" ", text)) & _part_type_stems()
    heads = {ps: _NAME_WORD.findall(line)[-1:] for ps, line in items.items()}
    return [ps for ps, head in heads.items() if head and stem(head[0]) in said]


def _requests(messages: Sequence[BaseMessage]) -> dict[str, str]:
    """Each search's answer text → the shopper's message it answered (a diagnosis lists
    the parts of a problem, whatever part the shopper wondered about: "is it normally the
    pump that goes on these?")."""
    out: dict[str, str] = {}
    for before, answer in itertools.pairwise(messages):
        if (
            isinstance(before, HumanMessage)
            and isinstance(answer, AIMessage)
            and not _DIAGNOSIS.search(answer.text)
        ):
            out[answer.text] = before.text
    return out


_DIAGNOSIS = re.compile(r"\bthese parts are the usual fix\b")


# "the other one", "no, the other part": the one of two that is not in focus
_OTHER = re.compile(r"\bthe other\b(?!\s+(model|fridge|dishwasher|appliance|brand)\b)", re.I)


_ITEM = re.compile(r"^\s*\d+[.)]\s")


def _is_list(answer: str, numbers: re.Pattern[str]) -> bool:
    """The answer lists parts as numbered items (one part's details is not a list)."""
    return any(_ITEM.match(line) and numbers.search(line) for line in answer.splitlines())


def _other(listing: str, focus: str, numbers: re.Pattern[str]) -> str | None:
    """Of a list of two, the part the answer in focus (the one just shown) is not."""
    listed = list(dict.fromkeys(numbers.findall(listing)))
    shown = set(numbers.findall(focus))
    rest = [ps for ps in listed if ps not in shown]
    return rest[0] if len(listed) == 2 and len(rest) == 1 else None


def _pointed(
    listing: str,
    text: str,
    pattern: re.Pattern[str],
    *,
    focus: str | None = None,
    asked: str = "",
    newest: bool = False,
) -> str | None:
    """The part of ``listing`` that ``text`` points at, by price, position or name
    (``focus``: the newest answer, when ``listing`` is an earlier one; a name among other
    words must then name a part type, and not only words of the newest answer: "shut the
    water off first? how do i install it" after the *Inlet Valve*'s details, a *Water
    Inlet Valve*, is not the *Water Inlet Valve* listed two answers back; ``asked``: the
    message the list answered)."""
    items, items_lines, prices = _listed(listing, pattern)
    if not items:
        return None
    numbers = list(items)
    text = _WATTS.sub(r"\1w", text)  # "the 40 watt one": the *Light Bulb - 40W*

    def wanted() -> list[str]:
        """The listed parts of the kind the shopper asked for ("need a door shelf bin …"
        lists cams too): "the one in stock", "the cheaper one", "that one" choose among
        them."""
        kind = _headed(items, text) or (_of_kind(items, asked) if asked else [])
        return kind if 0 < len(kind) < len(numbers) else numbers

    if _BY_STOCK.search(text):
        # "the one in stock pls": the only listed part in stock
        stocked = [ps for ps in wanted() if _IN_STOCK.search(items_lines[ps])]
        if not stocked:
            # none of the kind asked for is: the one listed that is
            stocked = [ps for ps in numbers if _IN_STOCK.search(items_lines[ps])]
        # (several in stock: the first, as lists go most likely or best match first)
        return stocked[0] if stocked else None
    said = {float(v) for v in _PRICE_SAID.findall(text)}
    if said and prices and _is_list(listing, pattern):
        # "the 41.95 one": the listed part at the price the shopper read off the list
        at = [ps for ps, price in prices.items() if price in said]
        if len(at) == 1 and at[0] not in (focus or ""):
            return at[0]
    dollars = {int(a or b) for a, b in _DOLLARS_SAID.findall(text)}
    if dollars and prices and _is_list(listing, pattern):
        # "ill take the $12 one": the listed part whose price is that many dollars
        at = [ps for ps, price in prices.items() if int(price) in dollars]
        if len(at) == 1 and at[0] not in (focus or ""):
            # ("117 bucks hmm. what about the button one" after the $117 board's
            # details: a remark on the part in focus)
            return at[0]
    by_price = _BY_PRICE.search(text)
    place_said = _ORDINAL.search(text)
    if by_price and len(prices) > 1 and not (place_said and place_said.start() < by_price.start()):
        # ("the first one, its cheaper": the place said first, the price its reason)
        # "whichever of the two gaskets is cheaper": among the parts the message names
        # ("and the door light switch, is that one any cheaper?": the part named, not the
        # cheaper of the two switches; "the cheaper drawer": of the names ending in it)
        named = _named(items, _ANY.sub(" ", _BY_PRICE.sub(" ", text)))
        headed = _headed(items, text)
        named_too = [ps for ps in named if ps in headed] or named or headed or wanted()
        among = {ps: prices[ps] for ps in named_too if ps in prices} or prices
        pick = min if by_price["low"] else max
        return pick(among, key=among.__getitem__)
    if (_THAT_ONE_FIRST.match(text) or _ABOUT_THAT_ONE.search(text)) and len(kind := wanted()) == 1:
        return kind[0]  # "that one. in stock?" after a list with one part of that kind
    if newest and _YES_ALONE.match(text) and _SEARCH_LIST.search(listing):
        # "yes pls" to "Would you like details … for one of these?" after a search: the
        # part found, or the one whose name has every word the shopper searched for
        # ("the door bottom seal" → the *Dishwasher Door Bottom Seal*, not the hinge kit)
        named = numbers if len(numbers) == 1 else _named(items, asked) if asked else []
        return named[0] if len(named) == 1 else None
    if len(numbers) == 1 and (
        THAT_ONE.match(text)
        or (_ASKS_ABOUT.search(text) and not _named_words(text) and _is_list(listing, pattern))
    ):
        return numbers[0]  # "ok that one", "how much?" after a list of one
    if (
        _SEARCH_LIST.search(listing)
        and not place_said
        # (after one part's details, a question that names nothing is about that part,
        # not the search's best match two answers back: "the second one" then "whats the
        # price", "and for my 10632949101?")
        and focus is None
        and (
            (
                (_POINTS.match(text) or _ABOUT_THAT_ONE.search(text) or _ASKS_ABOUT.search(text))
                and not _named_words(text)
                and not _named_by_kind(items, _stems(text))  # ("how much is the assembly")
            )
            or (_THAT_ONE_FIRST.match(text) and not _named(items, text))
            or (
                # (words of courtesy or effort are no names: "can i replace it myself", "is
                # it easy to put on"; only a word of a listed name or a part type is)
                newest
                and _IT.search(text)
                and (_ASKS_ABOUT.search(text) or _ASKS_INSTALL.search(text))
                and not _WHICH_OR_ANY.search(text)  # "which of those …": the options
                and not _named_words(text) & (_name_stems(items.values()) | _part_type_stems())
            )
            or (
                # "does it fit 36411XBRERWW too?", "would that also fit my sister's
                # CDW9380N20SS": whether the best match fits; the other words name none
                # of the parts listed nor a part type
                newest
                and (_IT.search(text) or _FIT_FIRST.match(text))
                and _ASKS_FIT.search(text)
                and not _WHICH_OR_ANY.search(text)  # "which of those fits it?": the options
                and not _named_words(_WITH_DIGITS.sub(" ", text))
                & (_name_stems(items.values()) | _part_type_stems())
            )
        )
    ):
        # "yep thats the one, how much", "how much is it" after a search: its best match,
        # listed first among the kind asked for (a diagnosis's list is several suspects)
        return wanted()[0]
    m = place_said
    if m:
        index = _place(m)
        placed = numbers[index] if -len(numbers) <= index < len(numbers) else None
        # "the second one, the drain hose" where the hose is third: the name the shopper
        # read off the list is surer than their count
        named = _named(items, text[: m.start()] + " " + text[m.end() :])
        return named[0] if named and placed not in named else placed
    compares = _COMPARES.search(text)
    if compares:
        # "what's the difference between the mid spray arm and the lower one", "door seal
        # vs filter": the part the comparison names first, when it is listed (else the
        # options, a search)
        word = (compares[1] or "").lower()
        rest = text if word in ("vs", "vs.", "versus") else text[compares.end() :]
        if _THEM.match(rest):
            rest = text[: compares.start()]  # "the 1 and the 3, whats different between them"
        first = _SECOND_OF_TWO.split(rest, maxsplit=1)[0]
        place = _PLACE_ALONE.match(first) or _PLACES_FIRST.match(first)
        if place is not None:
            # "whats the difference between 1 and 2": the first place compared
            index = int(place[1]) - 1
            return numbers[index] if index < len(numbers) else None
        named = _named(items, first, relaxed=True, typed=True)
        if not named:
            # "between the black one and the white one": a word only one listed name has
            only = _named(items, first, relaxed=True)
            named = only if len(only) == 1 else []
        return named[0] if named else None
    if _WANTS_OPTIONS.search(text):
        return None  # "what drain pump do i need for it then": the options, a search
    named = _named(items, _SHOW_ME.sub(" ", _NOT_THAT_ONE.sub(" ", text)))
    if not named and _ASKS_INSTALL.search(text):
        # "ok ill do the fan first, how do i install that": a part named among other
        # words; the words no listed name has are dropped, unless one names a part
        # type (then it is another part: "how do i install the drain hose")
        named = _named(items, text, relaxed=True, typed=focus is not None, unless_in=focus)
        if not named and focus is not None and (one := _THE_WORD_ONE.search(text)):
            # "how do i put the middle one in" after the lower arm's details: a word of a
            # listed name that the part in focus lacks, said as "the … one"
            named = _named(items, one[1]) if _named_words(one[1]) - _stems(focus) else []
    if (
        not named
        and (_ASKS_PRICE.search(text) or _ASKS_FIT.search(text))
        and not _WHICH_OR_ANY.search(text)
    ):
        # "merci! the drain pump, how much?", "kindly tell me the price of defrost timer":
        # a question about a listed part named among words of courtesy; the words that
        # are kept must name a part type (not "is my freezer ok?")
        named = _named(items, text, relaxed=True, typed=True)
        if not named and (one := _THE_WORD_ONE.search(text)):
            # "the bearing one whats that run": a word of a listed name, as "the … one"
            named = _named(items, one[1])
    if (
        not named
        and _BY_LIKELIHOOD.search(text)
        and _DIAGNOSIS.search(listing)
        and not _ANOTHER_CASE.search(text)
    ):
        # "what would you say is the likeliest culprit": a diagnosis lists the likeliest
        # part first ("the usual suspect for a noisy one" is another diagnosis)
        return wanted()[0]
    if not named and not _WHICH_OR_ANY.search(text):
        # "special order tho, nah. the dishwasher filter then": a remark, then a listed
        # name in a sentence of its own. After one part's details, a part type the last
        # sentence names that the part lacks ("$48 for a wheel?? whats the roller one
        # cost") is a listed one's, not the part the remark is about.
        *before, last = _SENTENCES.split(text.strip())
        named = _named(items, last) if before else []
        in_names = _name_stems(items.values())
        elsewhere = (
            before
            and not _is_list(listing, pattern)
            and part_type_named(last)
            and not _named_words(last) & in_names
        )
        if not (named or elsewhere) and (head := _HEAD.match(text)):
            # "the drum. is that a hard fix?", "the door closing mechanism. on order??": a
            # listed name, then a question of its own after a stop or a dash ("the tub
            # gasket says on order, any idea when it comes back?": most of a list's name;
            # not a part said broken, "also the upper rack is cracked, got that too?")
            named = _named(items, head[1]) or (
                _most_named(items, head[1])
                if _is_list(listing, pattern) and not _DAMAGED.search(head[1])
                else []
            )
    if not named and (alone := _THE_WORD_ALONE.match(_NOT_THAT_ONE.sub(" ", text))):
        # "the assembly, not the nut": a word of one listed name alone, generic or not
        having = [ps for ps, line in items.items() if stem(alone[1].lower()) in _stems(line)]
        named = having if len(having) == 1 else []
    if not named and _is_list(listing, pattern) and not _WHICH_OR_ANY.search(text):
        named = _most_named(items, _NOT_THAT_ONE.sub(" ", text))  # ("not the nut")
    return named[0] if named else None


# Words that tell parts of a kind apart: one a name lacks is another part ("the lower
# spray arm" is not the *Middle Spray Arm Kit*)
_WHICH_OF_A_KIND = frozenset(
    stem(w)
    for w in [
        "upper",
        "lower",
        "middle",
        "mid",
        "top",
        "bottom",
        "left",
        "right",
        "front",
        "rear",
        "back",
        "inner",
        "outer",
    ]
)
# The same place in other words ("the bottom seal" is the *Door Seal Lower*)
_PLACE_PAIRS = (("bottom", "lower"), ("top", "upper"), ("middle", "mid"), ("rear", "back"))
_SAME_PLACE = {stem(a): stem(b) for x, y in _PLACE_PAIRS for a, b in ((x, y), (y, x))}
# Whether a part is there or comes with one ("is the defrost heater on there?", "do u have
# the lower spray arm", "does it come with the spring"): a search, or the part in focus
_ASKS_WHETHER = re.compile(
    r"^\W*(\w+\W+){0,2}?(is|are|do|does|did|can|could|have|has|got)\b|\bcome with\b|"
    r"\b(on|in) (there|that list|the list)\b",
    re.IGNORECASE,
)


def _most_named(items: dict[str, str], text: str) -> list[str]:
    """The one listed part whose name has most of the message's name words, when the
    words no listed name has name no part type ("the one called HOSE-DRAIN", "the upper
    spray arm, crack right down the middle"): a name told among other words, where every
    word being in the name is too strict; another part type named ("what about the drain
    hose" after a drain pump) or a tie picks none."""
    wanted = _named_words(text)
    in_names = _name_stems(items.values())
    if (
        not wanted
        or (wanted - in_names) & (_part_type_stems() | _WHICH_OF_A_KIND)
        or _ASKS_WHETHER.search(text)
    ):
        return []
    shared = {ps: len(wanted & _stems(line)) for ps, line in items.items()}
    best = max(shared.values())
    top = [ps for ps, n in shared.items() if n == best]
    return top if best and len(top) == 1 and best * 2 >= len(wanted) else []


# A part said to be damaged, or in trouble: a new problem, not a pick
_DAMAGED = re.compile(rf"\b({DAMAGE_WORDS}|busted|stuck|melted|leak\w*|worn)\b", re.IGNORECASE)
# A few words before a stop, a comma or a dash, and more after them.
_HEAD = re.compile(r"^\W*((?:\w+\W{0,2}){1,6}?\w+)\s*(?:[.;:!?]+|,|\s[-–—]+)\s*\S")

# "the drain pump one not the circulation one lol", "the whole assembly not just the nut":
# the part denied names nothing picked
_NOT_JUST = r"\bnot (just |only )?"
_NOT_THAT_ONE = re.compile(
    r"\b(not|n'?t) (just |only )?(the|that) (\w+ ){0,3}?(one|part)\b|"
    rf"{_NOT_JUST}(the|that) (\w+\s*){{1,3}}$|"
    rf"{_NOT_JUST}(the|that|a) \w+( \w+){{0,2}}(?= *[,.;!?]| but\b)",
    re.IGNORECASE,
)
# "lets see the condenser fan motor", "can i see the pump": asking to be shown a part
_SHOW_ME = re.compile(
    r"\b(let'?s|let me|lemme|can i|could i|may i) (see|look at|have a look at|check out)\b",
    re.IGNORECASE,
)

# A question for the parts of a type that would do, not about one listed part.
# "what drain pump do i need", and whether the model has one at all ("does it have a mid
# spray arm?", "is there a filter for it"): the options, a search
_WANTS_OPTIONS = re.compile(
    r"\b(what|which)\b[^?]*\b(need|fits?|have|sell|carry|go(es)?(?! for\b)|work|options?)\b|"
    r"^\W*(\w+\W+)?(does|do|will) (it|mine|this (one|model)|that (one|model)|my \w+) "
    r"(even )?(have|has|take|use) (a|an|any)\b|^\W*(\w+\W+)?is there (a|an|any)\b|"
    # "do u have the inlet hose for it": a part type asked for by name, a search (as "which
    # one is the drain pump"), not the top one's stock ("do u have the top one in stock")
    r"^\W*(\w+\W+){0,2}?(do|does) (you|u|ya|yall|you guys) (have|sell|carry|stock|got) "
    r"(the|a|an|any|some) (?!(one|ones|first|second|third|top|last|other|cheaper|middle)\b)"
    r"(?![^?]*\bin stock\b)",
    re.I,
)
# A question about a part that does not name it ("how much", "in stock?").
_ABOUT_WORDS = rf"how much|price|cost|in stock|stock|details?|info|more about|{PRICE_SLANG}"
_ASKS_ABOUT = re.compile(rf"\?|\b({_ABOUT_WORDS})\b", re.IGNORECASE)


# A question about a named part's price or stock ("merci! the drain pump, how much?"); one
# that asks which of the parts is of a type ("which one is the spray arm?", "any of those
# the circulation pump?") is a search for that type, whose results say what fits.
_ASKS_PRICE = re.compile(rf"\b({_ABOUT_WORDS}|available|availability)\b", re.IGNORECASE)
_ASKS_FIT = re.compile(r"\b(fits?|compatible|work (with|for|in|on))\b", re.IGNORECASE)
# ("any idea when it comes back", "any chance it ships today": an idiom, no "any of them")
_WHICH_OR_ANY = re.compile(
    r"\b(which|any(?!\s+(idea|clue|chance|word|news|eta|update)s?\b)|among|of (those|these|them))\b",
    re.IGNORECASE,
)


# A word before "it" or "them" is a verb ("how do i clip it on"), no part's name; nor is
# "for now" ("just the lower ones for now"), "never mind", "what even is"
_NOT_A_NAME = re.compile(
    # "does it come w/ screws": what is in the box, no pick (before the verb of "it")
    r"\b(does|do|will|would) (it|they|that|this) (come|comes) (w/|w|with)( (the|a|any|its|new))?"
    r" [a-z]+( or (just )?(the |a )?[a-z]+)?|"
    r"\b[a-z]+(?= (it|them)\b)|\bfor now\b|\bnever ?mind\b|\bwhat even\b|\b(start|begin) (w|with)\b"
    # "is it a long job to put in?": how hard the fitting is
    r"|\b(long|big|quick|hard|easy|tough|simple) (job|fix|swap|task)\b|\bhow long\b"
    r"|\bput (it |that |this |them )?(in|on|back)\b"
    # "whats the best way to get that out and a fresh one in": the fitting, no name
    r"|\bbest way\b|\b(get|take|yank|pop) (it|that|this|them) out\b|\b(a|the) (new|fresh) one\b"
    # "do i need to pull the unit out": moving the appliance to reach the part
    r"|\b(pull|slide|move|roll|drag|tip|tilt)\w* (out )?(the |my |this |our )?(whole )?"
    r"(unit|fridge|refrigerator|dishwasher|appliance|machine)\b( out\b| away\b| forward\b)?",
    re.IGNORECASE,
)


def _name_stems(lines: Iterable[str]) -> set[str]:
    """Every stemmed word of the listed lines."""
    return set().union(*map(_stems, lines))


def _named_words(text: str) -> set[str]:
    """The words of ``text`` that could name a part: all but the generic ones, stemmed."""
    # ("hows it clip on": a part type's word said as the verb of fitting names none)
    text = part_types_said(_NOT_A_NAME.sub(" ", text).lower())
    return {stem(_SHORT_FORMS.get(w, w)) for w in _NAME_WORD.findall(text)} - (_generic_stems())


def _named(
    items: dict[str, str],
    text: str,
    *,
    relaxed: bool = False,
    typed: bool = False,
    unless_in: str | None = None,
) -> list[str]:
    """The listed parts whose name has every non-generic word of ``text``, in order
    (``relaxed``: every such word that some listed name has, when the others name no
    part type; ``typed``: and the words kept name a part type). A word a letter or two
    off a listed name's word ("elemnt") is that word."""
    in_names = _name_stems(items.values())
    generic = _generic_stems()
    words = _NAME_WORD.findall(_NOT_A_NAME.sub(" ", text).lower())
    stems = [stem(_SHORT_FORMS.get(w, w)) for w in words]
    # a generic word is no misspelt name ("thing" is not "hinge")
    spelled = [w if w in generic else _spelled(w, in_names) for w in stems]
    wanted = set(spelled) - generic
    if relaxed:
        dropped = wanted - in_names
        placed = {w for w in dropped & _WHICH_OF_A_KIND if _SAME_PLACE.get(w) not in in_names}
        if dropped & _part_type_stems() or placed:
            # another part type, or another of the kind ("does the middle spray arm fit"
            # after the *Upper Spray Arm Bearing*'s details; "the bottom seal" may be the
            # *Door Seal Lower*): none of these
            return []
        wanted -= dropped
        if typed and not wanted & _part_type_stems():
            return []
        if unless_in is not None and wanted <= _stems(unless_in):
            return []
    if not wanted:
        return [] if relaxed else _named_by_kind(items, set(spelled))
    named = [ps for ps, line in items.items() if wanted <= _stems(line)]
    if len(named) > 1:
        # "the door switch" is the *Door Switch*, not the *Door Light Switch* listed first;
        # "the thermostat assembly one" the *Thermostat Assembly*, not the *Defrost
        # Thermostat*: of the names with the words side by side, the one with the most of
        # the message's words, generic ones too (not its small words: "ill go with the
        # strike" is the *Strike*, not the *Door Gasket with Strike*)
        order = [w for w in spelled if w in wanted]
        said = set(spelled) - _SMALL_WORDS
        named.sort(
            key=lambda ps: (not _contiguous(order, items[ps]), -len(said & _stems(items[ps])))
        )
    return named


_SMALL_WORDS = frozenset({"the", "a", "an", "and", "or", "with", "for", "of", "to", "in", "on"})
# Generic words that still name what a part is ("the assembly", "the install kit")
_KIND_WORDS = frozenset({stem("assembly"), stem("kit")})


def _named_by_kind(items: dict[str, str], said: set[str]) -> list[str]:
    """The one listed part whose name has the kind the message names and nothing else
    does: "the install kit" is the *Ice Maker Field Install Kit*, "the assembly" the
    *Rack Assembly Upper Grey*, when no other listed name has those words."""
    kind = said & _KIND_WORDS
    if not kind:
        return []
    named = [ps for ps, line in items.items() if kind <= _stems(line)]
    if len(named) > 1:
        words = said - _SMALL_WORDS
        most = max(len(words & _stems(items[ps])) for ps in named)
        named = [ps for ps in named if len(words & _stems(items[ps])) == most]
    return named if len(named) == 1 else []


def _spelled(word: str, names: set[str]) -> str:
    """``word``, or the listed name's word it misspells (one of 5+ letters, at 0.8)."""
    if word in names or len(word) < 5:
        return word
    close = difflib.get_close_matches(word, [n for n in names if len(n) >= 5], n=1, cutoff=0.8)
    return close[0] if close else word


def _contiguous(words: list[str], line: str) -> bool:
    """The stemmed ``words`` appear side by side, in order, in ``line``."""
    have = [stem(w) for w in _NAME_WORD.findall(line.lower())]
    n = len(words)
    return any(have[i : i + n] == words for i in range(len(have) - n + 1))
