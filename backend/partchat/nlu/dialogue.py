"""Dialogue state: what a bare answer ("it's a 10640262010", "yes") continues.

The session keeps facts (model, part, symptoms); what it does not keep is the question
the assistant just asked. That is read back from the conversation: when the newest
message is an *answer* and the previous assistant message asked something, the job is
the one the shopper started before (the intent of their earlier message).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from partchat.catalog.vocab import appliance_reply_words, brand_words

from .caseless import Caseless
from .features import (
    FITTED_IN,
    fitting_said_plainly,
    normalize,
    part_type_named,
    part_type_pattern,
    part_types_said,
)
from .model import Scores, Understanding
from .rules import (
    AVAILABILITY,
    asks_for_the_options,
    asks_whether_it_fits,
    fitting_asked,
    request_head,
    rule_intent,
)

# Intents that are not a job of their own: they continue or close one.
ANSWER = "answer"
DECLINE = "decline"
# The jobs a message can ask for (a tool each)
JOBS = frozenset({"search", "details", "compat", "diagnose", "install"})
# Intents a message that picks a listed part may be read as: naming a part reads like
# a search ("damper control"), a symptom ("start relay") or a question about it.
_PICKING = frozenset({ANSWER, "search", "details", "diagnose"})
# "Want the installation steps?" offers them; "details, a fit check or installation steps
# for one of these?" offers a choice, which a "yes" does not make.
_OFFERED_INSTALL = re.compile(
    r"^(?![^\n]*\bor\b)[^\n]*(installation steps|how to install)\b[^\n]*\?\s*$|"
    # "Want me to check whether it fits your model, or explain how to install it?": a bare
    # yes takes the last thing offered
    r"\bor explain how to install it\?\s*$",
    re.IGNORECASE | re.MULTILINE,
)
# ("a replacement ice maker" names a part: 36 of the 40 learnt messages with
# "replacement" search for one.)
_FITTING_NAMED = re.compile(
    r"\b(install\w*|replac(e|es|ing)\b|swap\w*|fit it|"
    # "put it in", "put the first one in", "put that new gasket in" (not "put my order in")
    r"put (it |this |that |(?!(my|an?|the|that) orders?\b)(the|that|this|my|a) (\w+ ){1,2})?in|"
    # (not a mount that is a part: "the mount", "the mounting plate")
    r"(?<!the )(?<!arm )(?<!wheel )(?<!filter )(?<!handle )mount\w*(?! (plate|bracket|screw|kit|block|set|hardware)s?\b)|hook\w* up|"
    r"change (it|that|this))\b",
    re.IGNORECASE,
)
# ... and a part put in place with any verb ("pop it in", "does it snap on")
_INSTALL_WORDS = Caseless(f"{_FITTING_NAMED.pattern}|{FITTED_IN.pattern}")
# "the installation screw", "the cabinet mount pls": a part named and nothing asked, what
# ever its name sounds like
_ONLY_A_NAME = re.compile(r"^\W*(the|that) [a-z -]{3,40}?( one)?( pls| please)?\W*$", re.IGNORECASE)


# A verb or state beside a part's name: "the door is stuck", "the pump wont stop"
_STATES = re.compile(
    r"\b(is|are|was|were|has|have|had|wont|won'?t|doesnt|doesn'?t|isnt|isn'?t|dont|don'?t|cant|"
    r"can'?t|keeps?|stuck|broke|broken|cracked|leak\w*|not|no|never)\b",
    re.IGNORECASE,
)


def only_a_name(text: str) -> bool:
    return len(text.split()) <= 5 and _ONLY_A_NAME.match(text) is not None


# "and PS3406971?", "what about the drain hose W10195416": the same question, another part.
_ELLIPSIS = re.compile(
    r"^\W*((ok(ay)?|k|cool|great|nice|sweet|perfect|awesome|good|alright|thanks|and|also|so)\W+)*"
    r"(and|(what|how) (about|bout|abt)|also)\b",
    re.IGNORECASE,
)
_FIT_WORDS = Caseless(
    r"\b(fits?|compatible|work(s)? (with|in|on)|(right|correct) (one|part|size)|same (one|part) for|"
    # "is it right for my kenmore 2214545N711"
    r"(right|correct|good|ok|okay) for (my|a|an|the|our|his|her|their|this|that))\b"
)


# "is the drain hose on that list", "is the fill cup one of them": whether a part type is
# among the parts, asked by its name: a search for it answers with its fit.
_AMONG = re.compile(
    r"^\W*(is|are|was|were)\b.*\b(on (that|the|this|your) list|one of (them|those|these)|"
    r"among (them|those|these)|in (that|the|this) list)\b",
    re.IGNORECASE,
)
# "and would that same filter go in a 2213092N413": whether the part goes with a model
_GOES_IN = re.compile(r"\bgo(es)? (in|on|into|with)\b", re.IGNORECASE)
_WHICH_ONE = re.compile(r"\bwhich (one|part) is\b|\bwhich of (them|those|these) is\b", re.I)
_ASKED_FOR_PART = re.compile(r"\bpart number\b|\bwhich part\b", re.IGNORECASE)
# "yes", "yeah show me how", "yes pls, walk me through it": a yes and at most a few
# words that do not take it back.
_YES_WORDS = r"yes|yeah|yep|yup|ya|yea|yeh|yass+|aye|mhm+|uh[- ]?huh|sure|ok(ay)?"
_YES = re.compile(
    rf"^\s*({_YES_WORDS}|please|go ahead|do it|show me)\b"
    r"(?![^?]*\b(no|not|but|instead|other)\b)[^?]{0,40}$",
    re.IGNORECASE,
)

# "yes thanks", "ya please thanks", "go ahead thx": a yes and courtesy, nothing else ("ok
# ty, ill think about it" closes the matter).
_THANKS_WORDS = r"thanks?|thank (you|u)|thx|ty|cheers"
_YES_THANKS = re.compile(
    r"^\W*(yes|yeah|yep|yup|ya|yea|sure|go ahead|please|pls)"
    rf"(\W+(yes|please|pls|plz|go ahead|do it|{_THANKS_WORDS}))*\W*$",
    re.IGNORECASE,
)

# "ya please?", "ok go ahead?", "yes please do?", "yes show me", "alright do that", "cool,
# sounds good go for it": words that take up an offer and nothing else, whatever the end
# mark (a question mark after them asks nothing) and whatever the classifier makes of
# them; an acknowledgement alone ("cool", "alright") takes up nothing.
_TAKE_WORDS = (
    rf"{_YES_WORDS}|k|go ahead|go for it|go on|please( do)?|pls|plz|do (it|that|so)|"
    r"let'?s (do it|do that|go)|show me( how)?|show how|sounds good|why not|"
    r"(the )?(install |installation )?steps( please| pls| plz)?"
)
_TAKES_OFFER = re.compile(
    r"^\W*((cool|alright|great|perfect|nice|oh|ah|sweet|awesome|brilliant|lovely|excellent|"
    rf"{_THANKS_WORDS})\W+)*"
    rf"({_TAKE_WORDS})\b(\W+(yes|yeah|ya|sure|ok|then|{_TAKE_WORDS}|{_THANKS_WORDS})\b)*"
    # "ok yep show me for hers", "ya, for that model pls": for whose machine
    r"(\W+(for|on) (hers|his|theirs|mine|hers too|his too|that one|it|both|"
    r"(that|this|my|her|his|their|the same|the other) (model|one|machine|unit)( too)?))?"
    r"(\W+(with )?(the )?(steps|instructions))?(\W+(pls|plz|please|thx|thanks|ty))?\W*$",
    re.IGNORECASE,
)

# "great, ok", "ok awesome", "alright cool": words that acknowledge and nothing else. To
# "Want the installation steps?" they take up nothing: every such reply the corpus and
# both paraphrase batches label after an offer ("ok great", "great, ok", "ok awesome",
# "perfect, cheers") asks for no tool, each one taken up says yes, please or show me. A
# bare "ok" ("ok", "okay!") stays a yes to a yes-or-no question.
_ACK_WORDS_TEXT = (
    "ok okay k kk great cool alright perfect nice awesome good fine sweet lovely gotcha oh ah right"
)
_ACK_WORDS = frozenset(_ACK_WORDS_TEXT.split())
_OK_WORDS = frozenset({"ok", "okay", "k", "kk"})


def acknowledges(text: str) -> bool:
    """The message only acknowledges ("great, ok", "ok cool"), more than a bare "ok"."""
    words = re.findall(r"[a-z]+", text.lower())
    return bool(words) and set(words) <= _ACK_WORDS and not set(words) <= _OK_WORDS


# "no", "nah i'm good", "no, just wanted the price": a no and words that only close the
# matter; any other word (a part, a model, "the other one", "it's also leaking") says
# what the shopper wants instead.
_NO = re.compile(r"^\W*(no+|nope|nah|not now|not really|no need)\b(?P<rest>.*)$", re.I | re.S)
_CLOSING_WORDS = (
    "thanks thank thx ty you u im i am m good fine ok okay all that thats s it is for now "
    "just wanted want needed was only the price cost info really right alright cheers "
    "worries sorry later maybe bye need not what looking dont yet now ta leave"
    # the shopper's own plan instead ("nah ill wait then", "no thanks, ill get someone to
    # put it in", "nah thats ok, gonna think about it")
    " gonna going think about ill will wait then get someone somebody a pro to put in do "
    "myself hold off on let know pass instead"
)
_CLOSING = frozenset(_CLOSING_WORDS.split())


def _names_a_number(text: str) -> bool:
    """The text gives a part or model number."""
    return not {"psnum", "modelnum"}.isdisjoint(normalize(text).split())


def declines(text: str) -> bool:
    """The message only says no (to an offer, or to more help), maybe after a remark
    ("special order hmm. nah ill wait then"), or with one after a closing phrase ("nah im
    good, hubby does that stuff lol")."""
    if (
        (closed := _NO_THEN_CLOSED.match(text)) is not None
        and "?" not in text
        and not _names_a_number(text)
        and _TROUBLE.search(text[closed.end() :]) is None
    ):
        return True
    if (
        (no := _NO.match(text)) is not None
        and _OWN_PLAN.found(no["rest"])
        and "?" not in text
        and not _names_a_number(text)
        and not part_type_named(text)
        and not _THE_PLACE.search(text)
    ):
        return True  # "nah im gonna try cleaning my old one first" ("no ill try the 2nd" picks)
    *before, last = _SENTENCE_END.split(text.strip())
    if before and "?" not in text and (m := _NO.match(last)) is not None:
        return set(re.findall(r"[a-z]+", m["rest"].lower())) <= _CLOSING
    m = _NO.match(text)
    return m is not None and set(re.findall(r"[a-z]+", m["rest"].lower())) <= _CLOSING


_SENTENCE_END = re.compile(r"(?<=[.!])\s+")
_THE_PLACE = re.compile(
    r"\b(the|that) (first|second|third|fourth|fifth|last|other|1st|2nd|3rd|4th|5th)\b", re.I
)
# "nah im good, …", "no thats fine, …": a no that closes the matter, whatever follows
_NO_THEN_CLOSED = re.compile(
    r"^\W*(no+|nope|nah)\W+((i'?m|im|i am|thats|that'?s|all|we'?re|were) (good|fine|ok|okay|set|"
    r"sorted)|(i )?(don'?t|do not) need)\b",
    re.IGNORECASE,
)


# A reply that says yes or no first ("yes but not for this one, the filter") answers the
# question; a bare part name does not.
_YES_OR_NO = re.compile(rf"^\W*({_YES_WORDS}|no|nope|nah|not)\b", re.I)


_FILLER = frozenset(
    [
        "psnum",
        "modelnum",
        "qmark",
        "its",
        "it",
        "is",
        "a",
        "an",
        "the",
        "my",
        "part",
        "number",
        "model",
        "ok",
        "okay",
        "here",
        "this",
        "that",
        "one",
        "i",
        "think",
        "sure",
        "its",
        "yes",
        "so",
        "um",
        "uh",
        "oh",
        "and",
        "no",
        "it",
        "s",
    ]
)


@lru_cache(maxsize=256)
def bare(text: str) -> bool:
    """Only numbers and filler: "PS11753379", "it's WDT780SAEM1 i think". (Such a message
    is short: a long one is not normalised to find out.)"""
    if len(text.split()) > 12:
        return False
    return all(w in _FILLER for w in normalize(text).split())


# Words that ask for parts of their own ("what parts do you have for 10639422990").
_ASKS_PARTS = re.compile(r"\b(parts?|have|sell|carry|need|looking|find|show)\b", re.IGNORECASE)
# What the shopper owns ("i also have a KDTE334GPS0, that one?", "we've got a …"): a model
# of theirs, not a question for parts.
# Read on the normalised text (lower case, apostrophes dropped: "we've" is "weve").
_OWNS = re.compile(r"\b(?:i|we|ive|weve) (?:also |too |still )?(?:have|got|own)\b")


@lru_cache(maxsize=256)
def only_gives_a_model(text: str) -> bool:
    """The message gives a model and asks nothing of its own: "its for an LDF7551WW",
    "wait, that's my neighbours. mine is 10639422990" (no part, part type, problem or
    question for parts; short)."""
    norm = normalize(text)
    words = norm.split()
    return (
        "modelnum" in words
        and "psnum" not in words
        and len(words) <= 14
        and not part_type_named(text)
        and not _ASKS_PARTS.search(_OWNS.sub(" ", norm))
        and not _INSTALL_WORDS.found(text)
        and not _FIT_WORDS.found(text)
    )


# "WDT780SAEM1. is it normally the pump that goes on these?", "its a frigidaire
# 2533111330C. is that usually a thermostat thing?": the model asked for, given first, then
# a question on the side
_MODEL_FIRST = re.compile(
    r"^\W*((?:[a-z'#]+[\s,:]+){0,5}?)(?=[a-z0-9./-]*\d)([a-z0-9][a-z0-9./-]{4,})"
    r"(?:\s+if (?:that|it|this) helps|\s+i (?:think|believe|guess))?"
    r"\s*(?:[.;:!?]+|,|\s[-–—]+|\s+(?:also|and|btw|but|oh)\b)\s*\S",
    re.IGNORECASE,
)
_BEFORE_MODEL_WORDS = (
    "its it s a an is mine mines my model number no the ok okay so oh sorry yes yeah ya "
    "yep sure here this thats that found got"
)
_BEFORE_MODEL = frozenset(_BEFORE_MODEL_WORDS.split())


@lru_cache(maxsize=1)
def _model_fillers() -> frozenset[str]:
    return _BEFORE_MODEL | appliance_reply_words() | brand_words()


def _model_first(text: str) -> re.Match[str] | None:
    """The message opens with a model (after filler, a brand or the appliance's name) and
    goes on with more."""
    m = _MODEL_FIRST.match(text)
    return m if m is not None and set(normalize(m[1]).split()) <= _model_fillers() else None


def model_for_a_wide_list(text: str, messages: Sequence[BaseMessage]) -> bool:
    """The message opens with a model after an answer made for any appliance of its kind
    (the usual fixes, or a search, with no model): that model's own list is the job,
    whatever the message asks on the side."""
    return _model_first(text) is not None and bool(
        _APPLIANCE_WIDE.search(_previous_answer(messages))
    )


def model_then_aside(text: str) -> bool:
    """The message opens with a model (after filler, a brand or the appliance's name)
    and goes on with a question on the side that asks no other job of its own (no part
    number, fitting or fit): the job the model was asked for goes on."""
    m = _model_first(text)
    if m is None:
        return False
    rest = text[m.end(2) :]
    # ("CDB3100AWX, also do i need any special tools to put it on?" answers the fit
    # check that asked for the model: 3 of 3 such train and dev turns)
    fitting = _FITTING_NAMED.search(rest) and not _LIFESPAN.search(rest)
    return "psnum" not in normalize(rest) and not (fitting or _FIT_WORDS.found(rest))


# How long a part lasts or how often it is changed: its details, not its fitting
_LIFESPAN = re.compile(r"\bhow (often|frequently)\b|\bhow long\b[^?]{0,30}\blasts?\b", re.I)


def _price_first(text: str) -> bool:
    """A price asked before the fitting ("how much is the tube and how do i put it in"):
    the details come first, and they offer the steps."""
    price, fitting = _PRICE_QUESTION.search(text), _INSTALL_WORDS.start(text)
    return price is not None and fitting is not None and price.start() < fitting


def _lifespan_first(text: str) -> bool:
    """How often a part is changed or how long it lasts is asked, before any fitting."""
    often = _LIFESPAN.search(text)
    fitting = _INSTALL_WORDS.start(text)
    return often is not None and (fitting is None or often.start() < fitting)


_ONLY_NAME_FILLER_WORDS = "the a an one that this my new its it s ok okay and just please pls qmark"
_ONLY_NAME_FILLER = frozenset(_ONLY_NAME_FILLER_WORDS.split())


def names_only_a_part_type(text: str) -> bool:
    """The text is a part type's name and filler ("the spring", "drain hose?")."""
    norm = normalize(text)
    if len(norm.split()) > 6 or not part_type_pattern().search(norm):
        return False
    return set(part_type_pattern().sub(" ", norm).split()) <= _ONLY_NAME_FILLER


# "i don't know the model", "cant find the model number anywhere", "no sticker on it",
# "where would the model number be?"
_LACKS_MODEL = re.compile(
    r"\b(don'?t|dont|do not|can'?t|cant|cannot|couldn'?t|no idea|not sure|where)\b[^.?!]{0,30}"
    r"\b(model|sticker|tag)\b|\bno (model|sticker|tag)\b",
    re.IGNORECASE,
)
# The same said of "it" right after the assistant asked for the model number: "not sure
# where to find that", "no idea where that is", "where do i look?"
_LACKS_IT = re.compile(
    r"\b(don'?t|dont|do not|can'?t|cant|cannot|couldn'?t|no idea|not sure)\b[^.?!]{0,20}"
    r"\b(find|see|know|where)\b|^\W*where\b[^.?!]{0,25}\b(find|look|is it|would it be)\b",
    re.IGNORECASE,
)
_ASKED_MODEL = re.compile(r"\*\*model number\*\*[^\n]*\?", re.IGNORECASE)
NO_MODEL = "no_model"
# A place in a list the lists lack ("the 7th one" after five parts): how many there are
PAST_THE_END = "past_the_end"


def lacks_model(text: str, messages: Sequence[BaseMessage] = ()) -> bool:
    """The shopper says they do not have the model number (and gives none); with the
    conversation, also of "it" when the answer before asked for the model number."""
    says = _LACKS_MODEL.search(text) is not None or (
        _LACKS_IT.search(text) is not None and bool(_ASKED_MODEL.search(_previous_answer(messages)))
    )
    return says and "modelnum" not in normalize(text).split()


# Thanks or praise that opens a message ("ok great,", "thanks so much!") and a question
# after it ("how much", "is it in stock?").
_COURTESY = re.compile(
    r"^\W*((ok(ay)?|great|cool|awesome|perfect|nice|thanks?|thank you|thx|ty|tysm|tyvm|cheers|ta|"
    r"sweet|brilliant|lovely|gotcha|alright|appreciate it|so much|a lot|a bunch|a ton|"
    # thanks in the shopper's own language ("gracias, how much is the first one")
    r"(muchas )?gracias|merci( beaucoup)?|danke( sch(o|oe|ö)n)?|grazie|obrigad[oa])\W+)+",
    re.IGNORECASE,
)
_QUESTION = re.compile(
    r"\?\s*$|^(how|what|where|which|is|are|does|do|can|what'?s|how'?s|where'?s)\b", re.IGNORECASE
)
# Words that lead on to one more question after a thanks ("thanks!! oh and is the ice
# funnel in stock too", "thx, also one more thing - …")
_ONE_MORE = re.compile(
    r"^\W*((oh|and|n|also|so|anyway|anyways|btw|plus|quick (q|question)|one more( thing| q| question)?)\b\W*)+",
    re.IGNORECASE,
)


# "for checking", "for the help!": what a thanks is for, to the end of its clause.
_THANKED_FOR = re.compile(r"^for\b[^.,;:!?]*[.,;:!?]*", re.IGNORECASE)


def _after_courtesy(text: str) -> str | None:
    """The question after an opening thanks, if the message goes on to ask one."""
    m = _COURTESY.match(text)
    rest = text[m.end() :].strip() if m else ""
    if (said := _THANKED_FOR.match(rest)) is not None:
        # "ok thx for checking?": what the thanks is for asks nothing; a question may follow
        # it ("thanks for that, how do i install it")
        rest = rest[said.end() :].strip()
    rest = _ONE_MORE.sub("", rest, count=1)
    return rest if len(rest.split()) >= 2 and _QUESTION.search(rest) else None


def thanks_for_something(text: str) -> bool:
    """Thanks and what it is for, nothing else ("ok thx for checking?", "thanks for the
    help!"): no question after it, whatever the end mark, and no part or model number."""
    m = _COURTESY.match(text)
    rest = text[m.end() :].strip() if m else ""
    said = _THANKED_FOR.match(rest)
    return said is not None and not rest[said.end() :].strip() and not _names_a_number(text)


# What a part is, asked first ("whats the 4th one and …")
_WHAT_IS_FIRST = re.compile(
    r"^\W*((ok|so|and|hmm)\W+)*(what'?s|what is|whats) (the|that|this|it)\b"
    # ("whats the best way to get that out", "whats the fix, how do i swap the cable": how)
    r"(?! ((best|easiest|quickest|safest|right|proper) (way|method)|fix|process|procedure|"
    r"deal|job|swap|install|installation|trick)\b)",
    re.I,
)
# A first question, and more after it
_FIRST_QUESTION = re.compile(r"^[^?]+\?(?=\s*\S)")
# The fitting asked of the part in focus ("how do they snap on", "how do i put it in")
_HOW_THEY_GO = re.compile(
    r"\bhow (do|does|would|should|can|to) (i |we |you |u )?(\w+ )?(it|they|them|this|that|these|those)?"
    r"\W*(install|put|fit|swap|replace|change|mount|snap|clip|attach|go|goes|slide|hook)"
    r"( \w+)?( (it|them|this|that))?( (on|in|into|back|up))?\b",
    re.IGNORECASE,
)
# Whether it goes on by itself, asked yes or no ("do they just snap on or what", "does it
# clip in"): how it is fitted
_SNAPS_ON = re.compile(
    r"^\W*((so|and|ok|okay)\W+)*(do|does|will|would|can) (it|they|these|those|this|that)"
    r"( (just|simply|only))? (snap|clip|slide|screw|bolt|click|pop|push|twist|hook|latch)s?"
    r" (on|in|into|onto|off|out)\b",
    re.IGNORECASE,
)
# One part's details card: its bold name first
_DETAILS_SHOWN = re.compile(r"^\*\*[^*]+\*\* \(PS\d+\)")
# A first sentence, and more after it
_FIRST_SENTENCE = re.compile(r"^([^.?!]+)[.!]+\s+\S")
# A part's details offer the fit check
_OFFERS_FIT = re.compile(r"\bcheck whether it fits\b", re.IGNORECASE)
_PS_NUMBER = re.compile(r"\bPS\d+\b")
# "ya check it", "sure, check that pls": the fit check offered, taken
_CHECK_IT = re.compile(
    rf"^\W*(({_YES_WORDS}|pls|please|go ahead and)\W+)*(pls |please )?check (it|that|that one|the fit)"
    r"(\W+(pls|please|thanks|thx|ty))*\W*$",
    re.IGNORECASE,
)


# "perfect thats the one", "yep that's it": the part shown is the one wanted
_CONFIRMS = re.compile(
    rf"^\W*(({_YES_WORDS}|great|perfect|cool|awesome|nice|sweet)\W+)*"
    r"(that'?s|this is|it'?s|yep that'?s) (the one|it|the right one|what i (need|needed|wanted))\W*$",
    re.IGNORECASE,
)


def _one_part_shown(answer: str) -> bool:
    """The answer is about one part (its details, its fit): the part in focus."""
    return len(set(_PS_NUMBER.findall(answer))) == 1


_IT = re.compile(r"\b(it|that|this|that one|this one)\b", re.IGNORECASE)
# How to fit the part in focus, asked in so many words
_HOW_TO_FIT_IT = re.compile(
    r"\bhow (do|would|should|can|to) (i |we |you |u )?(install|put|fit|swap|replace|change|mount)"
    r"( \w+)? (it|this|that|them|one)\b",
    re.IGNORECASE,
)


# The shopper's own next step, said with thanks and nothing asked ("ok ill just wait for
# that one then, thx", "gonna measure it tonight, cheers")
_OWN_PLAN = Caseless(
    r"\b(i'?ll|ill|i will|im gonna|i'?m gonna|gonna|going to|we'?ll) (just |probably |prob )?"
    r"(wait|hold off|think|sleep on|measure|check|look|try|get back|order|grab|pick)\b|"
    r"\b(buying|ordering|getting|grabbing) (two|both|it|one|them|that|those)\b|"
    # "lol no its a light bulb, i think i can manage. thanks"
    r"\b(i can|i'?ll|ill|i will|i could) (probably |prob |just )?(manage|handle (it|that)|"
    r"figure (it|that) out|do it myself|sort it)\b"
)
_THANKED = re.compile(rf"\b({_THANKS_WORDS}|appreciate it)\b", re.IGNORECASE)


def thanks_with_a_plan(text: str) -> bool:
    """Thanks beside the shopper's own plan, no question and no number."""
    return (
        "?" not in text
        and _OWN_PLAN.found(text)
        and _THANKED.search(text) is not None
        and not _names_a_number(text)
    )


# Thanks or please that closes a message ("DWHD440MFP thanks", "option 1 thx", "the
# hinge please"): the words before it are what the message says.
_CLOSING_COURTESY = re.compile(
    r"(\W+(thanks?|thank (you|u)|thx|ty|tysm|cheers|pl(ea)?se?|plz|pls|so much|a lot|a ton|"
    r"very much|in advance|again|gracias|merci|danke|grazie|por favor|s'?il (vous|te) pla[iî]t))+\W*$",
    re.IGNORECASE,
)


# What a reply or a request before a closing thanks says: a number, a place in a list, an
# appliance, a part type, a question ("legend, thanks" and "got it thanks" say none).
_PLACE = re.compile(
    # ("nice one thanks" is praise)
    r"\b(first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th|(?<!nice )(?<!good )one|two|"
    r"three|other)\b",
    re.I,
)


def before_courtesy(text: str) -> str | None:
    """The words before a closing thanks or please, when they say something of their own
    ("its WDT780SAEM1 thanks", "option 1 thx", "the dishwasher thanks")."""
    m = _CLOSING_COURTESY.search(text)
    rest = text[: m.start()].strip() if m else ""
    words = normalize(rest).split()
    says = (
        bool({"modelnum", "psnum", "smallnum"}.intersection(words))
        or bool(appliance_reply_words().intersection(words))
        or part_type_named(rest)
        or _PLACE.search(rest) is not None
        or _QUESTION.search(rest) is not None
        or _INSTALL_WORDS.found(rest)
        or _FIT_WORDS.found(rest)
    )
    return rest if says else None


# Words that open a turn and say nothing ("ok so is the drain hose on that list", "hmm,
# 2nd looks right", "well what about the fill hose").
_OPENING_FILLER = re.compile(
    r"^\W*((ok(ay)?|k|so|hm+|um+|uh+|er+m*|well|alright|oh|ah|anyway)\b\W*)+(?=\w)",
    re.IGNORECASE,
)


def without_opening_filler(text: str) -> str:
    """The message without the filler that opens it, for the dialogue's word patterns,
    which look for a question's first words ("ok so is the drain hose on that list" is
    "is the drain hose on that list"); a message of filler alone stays ("ok")."""
    return _OPENING_FILLER.sub("", text, count=1)


def asked_reply(text: str) -> bool:
    """A reply the rules know, said with a question mark ("a GE dishwasher?", "model #
    DDT575SGF0BB?"): where a reply is awaited the mark asks nothing."""
    stripped = text.rstrip()
    return stripped.endswith("?") and rule_intent(stripped.rstrip(" ?")) == ANSWER


# A greeting that opens a request ("hey, evaporator fan motor 10632249101?", "hi - drain
# pump for WDT780SAEM1"): the words after it are the message.
_OPENING_GREETING = re.compile(
    r"^\W*(hi|hello|hey|hiya|heya|howdy|yo|good (morning|afternoon|evening))\b"
    r"(\W+(there|sir|madam|ma'?am|folks|guys|all|team))?"
    # a plea for help after it ("Hello sir, please kindly help, my refrigerator …")
    r"(\W+((please|pls|plz|kindly) )*(help( me)?|(can|could) (you|u) (please )?help( me)?)\b)?"
    r"\W+(?=\w)",
    re.IGNORECASE,
)


def without_opening_greeting(text: str) -> str:
    """The message without a greeting that opens it, when what follows names a part type
    or gives a part or model number (the classifier reads a greeting's words as the whole
    message's intent); a greeting alone, or before small talk, stays."""
    m = _OPENING_GREETING.match(text)
    if m is None:
        return text
    rest = text[m.end() :]
    words = normalize(rest).split()
    names = "modelnum" in words or "psnum" in words or part_type_named(rest)
    return rest if names else text


def what_is_said(text: str) -> str:
    """The message without what opens it and says nothing: a greeting before a request,
    then filler ("hey, ok so evaporator fan motor 10632249101?"); "fit" after the effort it
    takes is the fitting's verb ("first one - how hard to fit?" is no fit check)."""
    return fitting_said_plainly(without_opening_filler(without_opening_greeting(text)))


def intent_of(text: str, understanding: Understanding, *, awaited: bool = True) -> str:
    """An earlier message's intent, read as the reading reads it (the rules, else the
    classifier): "a bosch dishwasher" is an answer whatever the classifier guesses; the
    classifier's *answer* to nothing asked is its next intent. The text is read without its
    opening filler, as the extract node read it ("ok so a GE dishwasher")."""
    text = what_is_said(text)
    ruled = rule_intent(text)
    if ruled is not None:
        return ruled
    if awaited and asked_reply(text):
        return ANSWER
    scores = understanding.score(text)
    intent = scores.intent if awaited else unawaited(scores)
    if asks_for_the_options(text, intent):
        return "search"  # as the reading reads it
    if intent == "injection" and asks_whether_it_fits(normalize(text)):
        return "compat"
    return intent


def unawaited(scores: Scores) -> str:
    """The classifier's intent for a message nothing awaited: an *answer* is its next
    intent when that is a job ("black gunk around the ice chute" to start with); a next
    guess of a fixed answer (injection, out of scope) is no better read than the reply,
    which goes on to the part or model it names."""
    if scores.intent == ANSWER and scores.runner_up in JOBS:
        return scores.runner_up
    return scores.intent


# A numbered line of a list the shopper can pick from ("1. **Drain Pump** (PS…)").
_LIST_ITEM = re.compile(r"^\s*\d+[.)]\s", re.MULTILINE)
# A sentence ending in "?". Anchored at a sentence start: unanchored, each failed start
# re-scanned the rest of its sentence (1.5 ms against 0.04 ms for a 2.5 KB answer).
_QUESTIONS = re.compile(r"(?:^|(?<=[.?!\n]))[^.?!\n]*\?")
# "What can I help you with today?", "Anything else I can help with?": an open offer of
# help, which a new request answers, not a bare reply.
_INVITATION = re.compile(
    r"\b(can|may|could) i (help|assist|do)\b|\bhow can i\b|\bwhat can i do\b", re.I
)


def awaits_reply(messages: Sequence[BaseMessage]) -> bool:
    """The assistant's answer before the newest message asked something (more than an
    open offer of help) or listed things to pick from: only then can a message be a bare
    *answer* (a first message, or one after an answer that asked nothing, starts a job)."""
    previous = _previous_answer(messages)
    if "?" in previous and any(not _INVITATION.search(q) for q in _QUESTIONS.findall(previous)):
        return True
    return _LIST_ITEM.search(previous) is not None


def _previous_answer(messages: Sequence[BaseMessage]) -> str:
    """The assistant's text just before the newest user message."""
    for m in reversed(messages[:-1]):
        if isinstance(m, AIMessage):
            return m.text
        if isinstance(m, HumanMessage):
            return ""
    return ""


def pending_job(
    messages: Sequence[BaseMessage], understanding: Understanding, *, depth: int = 3
) -> str | None:
    """The job an answer continues: the intent of the latest earlier user message that
    had one, provided the assistant's reply since asked something (has a question mark:
    the question is not always its last sentence)."""
    if "?" not in _previous_answer(messages):
        return None
    users = [i for i, m in enumerate(messages[:-1]) if isinstance(m, HumanMessage)]
    for i in reversed(users[-depth:]):
        text = messages[i].text
        intent = intent_of(text, understanding, awaited=awaits_reply(messages[: i + 1]))
        if (
            is_answer(intent, text)
            or _gave_asked_part(messages[: i + 1])
            or (model_then_aside(text) and awaits_reply(messages[: i + 1]))
            or _gave_asked_model(messages[: i + 1])
            or _gave_asked_appliance(messages[: i + 1])
        ):
            continue  # an earlier answer to an earlier question: look further back
        if _fit_was_the_job(text, intent):
            return "compat"  # "does PS… fit my dishwasher and whats the price": the fit
        return intent if intent in JOBS else None
    return None


def _gave_asked_model(messages: Sequence[BaseMessage]) -> bool:
    """The newest message only gives the model the answer before asked for ("hang on...
    CFE28TP4MBW2"): it continues the job that asked, it starts none."""
    return bool(_ASKED_MODEL.search(_previous_answer(messages))) and only_gives_a_model(
        messages[-1].text
    )


def _fit_was_the_job(text: str, intent: str) -> bool:
    """An earlier message asked whether a part fits before anything else, whatever the
    classifier made of its price or fitting question."""
    return fit_asked_first(text) and (
        intent in ("details", "install") or "psnum" in normalize(text).split()
    )


def _gave_asked_part(messages: Sequence[BaseMessage], *, named: bool = False) -> bool:
    """The newest message gives a part number the answer before it asked for (``named``:
    the reading found a part in it, a manufacturer number too)."""
    previous = _previous_answer(messages)
    return (
        "?" in previous
        and _ASKED_FOR_PART.search(previous) is not None
        and (named or "psnum" in normalize(messages[-1].text).split())
    )


def previous_job(messages: Sequence[BaseMessage], understanding: Understanding) -> str | None:
    """The job of the shopper's latest earlier message that had one."""
    users = [i for i, m in enumerate(messages[:-1]) if isinstance(m, HumanMessage)]
    for i in reversed(users[-3:]):
        m = messages[i]
        intent = intent_of(m.text, understanding, awaited=awaits_reply(messages[: i + 1]))
        if fit_asked_first(m.text) and "modelnum" in normalize(m.text).split():
            return "compat"  # "is that the right one for GE A4425GDTABB", read as a reply
        if (
            (_ELLIPSIS.match(m.text) and not fit_asked_first(m.text))
            or is_answer(intent, m.text)
            or _gave_asked_model(messages[: i + 1])
        ):
            continue  # it continued an earlier job itself ("and it fits X right" asks one)
        if _fit_was_the_job(m.text, intent):
            return "compat"  # "does it fit a kenmore …? and how hard is it to install"
        if intent in JOBS:
            return intent
    return None


# Words that tell a trouble, whether or not the catalog has a symptom for it ("the
# handle cracked", "it's not cold", "weird smell").
_TROUBLE = re.compile(
    r"\b(broke\w*|crack\w*|leak\w*|nois\w*|loud|stuck|stop+ed|problems?|issues?|fix\w*|"
    r"repair\w*|wrong|fail\w*|dead|melt\w*|froze\w*|freezing|warm|cold|hot|smell\w*|torn|"
    r"ripped|damaged|bad|weird|keeps?|won'?t|doesn'?t|does not|isn'?t|is not|aren'?t|not|no|"
    r"never|can'?t|cannot|help)\b",
    re.IGNORECASE,
)
# The assistant's "Is this a **refrigerator** or a **dishwasher**?"
_ASKED_APPLIANCE = re.compile(r"\*\*refrigerator\*\* or a \*\*dishwasher\*\*", re.IGNORECASE)


def _appliance_first(text: str) -> bool:
    """The message opens with the appliance (maybe its brand), then a clause of its own."""
    head = _CLAUSE_BREAK.split(text.strip(), maxsplit=1)
    words = set(normalize(head[0]).split())
    return len(head) == 2 and bool(words & appliance_reply_words()) and words <= _model_fillers()


def _gave_asked_appliance(messages: Sequence[BaseMessage]) -> bool:
    """The newest message opens with the appliance the answer before it asked for and goes
    on with a side question that names no part ("a GE dishwasher, you guys carry parts for
    those right?")."""
    text = messages[-1].text
    return (
        _ASKED_APPLIANCE.search(_previous_answer(messages)) is not None
        and _appliance_first(text)
        and not part_type_named(text)
    )


# Things only one appliance holds or does, in the shopper's words: a problem the symptom
# vocabulary has for one appliance only ("wont drain", "door wont latch", "light stays
# dark", "smells burnt") says which appliance it is only with one of them ("the dishes
# come out wet", "frost on the back wall"); without, a fridge's clogged defrost drain or
# its latch and light are as likely, and the shopper is asked.
_HOLDS = {
    "dishwasher": re.compile(
        r"\b(dish(es)?|plates?|glass(es|ware)?|cups?|bowls?|pots?|pans?|silverware|cutlery|"
        r"utensils?|tupperware|loads?|wash(es|ed|ing)?|rins(e|es|ed|ing)|detergent|soap|"
        r"pods?|tablets?|racks?|spray ?arms?|tub|drying)\b",
        re.IGNORECASE,
    ),
    "refrigerator": re.compile(
        r"\b(ice|icy|icing|cubes?|freezers?|frost(y|ed|ing)?|frozen|freez(e|es|ing)|"
        r"defrost(s|ing)?|food|milk|drinks?|beers?|produce|veggies|vegetables|lettuce|meat|"
        r"leftovers|cold|cool(s|ing)?|chill(s|ed|ing|y)?|warm(er|ing)?|temp(erature)?s?|"
        r"degrees|dispenser|crisper|condenser|compressor|evaporator)\b",
        re.IGNORECASE,
    ),
}


def tells_appliance(text: str, appliance: str) -> bool:
    """The message names a thing only ``appliance`` holds or does (see ``_HOLDS``)."""
    holds = _HOLDS.get(appliance)
    return holds is not None and holds.search(text) is not None


def only_names_the_appliance(text: str, messages: Sequence[BaseMessage]) -> bool:
    """The reply to "a refrigerator or a dishwasher?" that tells no trouble of its own
    ("fridge haha", "dishwasher lol": a few words, no trouble word, no part type): the
    problem is the one told before, and a symptom the classifier hears in the appliance's
    name ("fridge" → *Fridge too warm*) is not said. (The caller checks that the message
    names an appliance.)"""
    return (
        bool(_ASKED_APPLIANCE.search(_previous_answer(messages)))
        and len(text.split()) <= 6
        and _TROUBLE.search(text) is None
        and not part_type_named(text)
    )


# A price asked in slang: "whats that run", "what does the bearing one go for"
PRICE_SLANG = (
    r"what(?:'?s| does| do| would| will)?(?: (?:that|it|this|they|those|the(?: \w+){1,3}))?"
    r"(?: one)? (?:run|go(?:es)? for|going for|set me back)"
)
# "should i just replace the whole ice maker assembly?": whether to buy it, not how to
# fit it (with its price asked, its details)
_WHETHER_TO_REPLACE = re.compile(
    r"\b(should|shall) (i|we) (just )?(replace|swap|change|get|buy|order)\b", re.IGNORECASE
)
# A question about a part's price or stock ("replacement ice maker one, how much").
_PRICE_QUESTION = re.compile(
    rf"\b(how much|price\w*|cost\w*|in stock|stock|{PRICE_SLANG})\b", re.IGNORECASE
)


def asks_for_a_part(
    intent: str, text: str, understanding: Understanding, *, states_symptom: bool
) -> bool:
    """A message read as a problem that tells none: no symptom found (nor likely to the
    classifier, which finds one before the appliance is known), no word of a trouble, a
    part type named ("lg fridge 71052 water filter pls"). It asks for that part; a
    diagnosis would only ask what the appliance is doing."""
    return (
        intent == "diagnose"
        and not states_symptom
        and part_type_named(text)
        and (_TROUBLE.search(_DAMAGE.sub(" ", text)) is None)
        and understanding.score(text).no_symptom >= 0.5
    )


# A part's own damage: it is replaced, whatever the appliance does ("the middle one cracked
# right down the center")
DAMAGE_WORDS = (
    r"crack\w*|broke|broken|snapp\w*|snapped|torn|ripped|bent|split|chipped|missing|"
    r"fell off|came off|lost"
)
_DAMAGE = re.compile(rf"\b({DAMAGE_WORDS})\b", re.IGNORECASE)


_BOLD = re.compile(r"\*\*(.+?)\*\*")

# Another appliance than the shopper's own: "my other LG", "my sister's", "my moms", "for
# hers", "got two of these", "the one in the garage too".
_ANOTHER_APPLIANCE = re.compile(
    r"\b(my|our|the) other\b|\b(sister|sis|mom|mum|mother|dad|father|parents|neighbou?r|"
    r"friend|brother|bro|son|daughter|aunt|uncle|in-?laws?|grandma|grandpa|gran|nan|"
    r"landlord|tenant|cousin|boss|coworker|wife|husband|bf|gf|boyfriend|girlfriend)('?s)?\b|"
    r"\b(hers|his|theirs)\b|\bfor (her|him|them)\b|\b(got|have|own) (two|2|both) of\b|"
    # "we got two lgs", "i have 2 fridges"
    r"\b(got|have|own) (two|2|three|3) (\w+ )?(fridges|refrigerators|dishwashers|dws|units|"
    r"machines|appliances|lgs|ges|whirlpools|kenmores|samsungs|frigidaires|bosch(e)?s|maytags|"
    r"amanas|kitchenaids)\b|"
    r"\b(second|2nd|spare|garage|basement|rental|cabin|office) (fridge|refrigerator|dishwasher|"
    r"dw|one|unit)\b|"
    # "same fridge in the basement", "the one upstairs", "at the cabin"
    r"\b(in|at) the (basement|garage|cabin|cottage|office|shop|rental|lake house|beach house)\b|"
    r"\b(one|fridge|dishwasher|dw) (upstairs|downstairs)\b",
    re.IGNORECASE,
)


def names_another_appliance(text: str) -> bool:
    """The message says the model it gives is another appliance's than the shopper's."""
    return _ANOTHER_APPLIANCE.search(text) is not None


# A question of the part in focus that names another ("does it come with the spring?")
_OF_IT = re.compile(
    r"\b(does|do|is|will|would|can) (it|that|this|they)\b|\bcomes? with\b|\binclud", re.I
)


# A listed part's name said after "the" ("the cabinet mount", "the install kit")
# (each article starts its own: "the compartment door not just the field install kit")
_NAME_AFTER = re.compile(
    r"\b(?:the|that|this|your) ((?:(?!(?:the|that|this|your)\b)[a-z0-9'-]+ ?)+)", re.IGNORECASE
)
_WORD = re.compile(r"[a-z0-9']+")


def without_listed_names(text: str, messages: Sequence[BaseMessage]) -> str:
    """``text`` with the listed parts' names it says after "the" put as "it": "what about
    the cabinet mount" is "what about it", "how do i install the install kit" "how do i
    install it"."""
    names = [set(_WORD.findall(b.lower())) for b in _BOLD.findall(_previous_answer(messages))]
    if not names:
        return text

    def drop(m: re.Match[str]) -> str:
        words = m[1].split()
        longest = 0
        for name in names:
            n = 0
            while n < len(words) and words[n].lower().strip("-") in name:
                n += 1
            longest = max(longest, n)
        return m[0] if not longest else " ".join(["it", *words[longest:]]) + " "

    return _NAME_AFTER.sub(drop, text).strip()


def fitting_heard_in_a_name(
    text: str, messages: Sequence[BaseMessage], understanding: Understanding
) -> bool:
    """What the classifier heard as a fitting is a listed part's name ("what about the
    mounting screw", "is the installation screw in stock?"): without the names, the
    message asks for none."""
    rest = without_listed_names(text, messages)
    return (
        rest != text
        and not _INSTALL_WORDS.found(rest)
        and intent_of(rest, understanding) != "install"
    )


def names_another_part(text: str, messages: Sequence[BaseMessage]) -> bool:
    """The message names a part type that the part the previous answer was about (its
    first bold name) is not."""
    found = part_type_pattern().search(part_types_said(normalize(text)))
    bold = _BOLD.search(_previous_answer(messages))
    if found is None or bold is None or _OF_IT.search(text):
        return False
    name = set(normalize(bold[1]).split())
    return not set(found[1].split()) <= name


# A diagnosis for the appliance, no model known ("For *Not draining* on a dishwasher, …")
_APPLIANCE_WIDE = re.compile(
    r"\bon an? (dishwasher|refrigerator), these parts are the usual fix\b|^Here's what I found:"
)


# Whether it fits, asked in words the fit check answers ("thats the right gasket right?")
_FIT_ASKED = re.compile(
    r"\b(fits?|compatible|work(s)? (with|in|on|for)|(right|correct) (\w+ )?(one|part|size|"
    r"gasket|seal|filter|pump|valve|hinge|model))\b",
    re.IGNORECASE,
)
_FITTING_ASKED = re.compile(
    rf"{_INSTALL_WORDS.pattern}|\bhow (hard|easy|difficult|long)\b|\bsteps?\b", re.IGNORECASE
)
# "what drain pump DOES go in it then", "which drain pump does fit then": the parts of a
# type that would do
_OPTIONS_ASKED = re.compile(
    r"\b(what|which)\b(\s+\w+){0,3}?\s+(do i need|does|do|will|would|should)?\s*"
    r"(go(es)? in|fits?|works?)\b",
    re.IGNORECASE,
)


# "how do i get the old gasket off and fit this one": "fit" is the fitting's verb ("how do i
# know if it fits" asks the fit)
_HOW_DO_I = re.compile(
    r"\bhow (do|would|should|can|to) (?!(i |we |you |u )?(know|tell|check|find out|see)\b)[^?.!]*$",
    re.IGNORECASE,
)


# "fit" as the verb of the fitting ("how long will it take me to fit it"), not of a fit
_TO_FIT_IT = re.compile(r"\bto fit (it|this|that|them|one)\b(?! (in|on|into|to|with)\b)", re.I)


def fit_asked_first(text: str) -> bool:
    """Whether it fits is asked, before any fitting question."""
    fit = _FIT_ASKED.search(text)
    if fit is not None and _HOW_DO_I.search(text[: fit.start()]):
        return False
    fitting = _FITTING_ASKED.search(text)
    if fit is not None and fitting is not None and fitting.start() <= fit.end() + 1:
        return False  # "whats the easiest way to fit that in": "fit" is the fitting's verb
    verb = _TO_FIT_IT.search(text)
    if fit is not None and verb is not None and verb.start() <= fit.start() < verb.end():
        return False  # "how long will it take me to fit it"
    return fit is not None and (fitting is None or fit.start() < fitting.start())


# A list whose lines say each part fits the model ("· fits your CFE28TP2MBS1")
_LIST_SHOWS_FIT = re.compile(r"^\s*\d+\.\s.*· fits your\b", re.MULTILINE)


def resolve_intent(
    intent: str,
    messages: Sequence[BaseMessage],
    understanding: Understanding,
    *,
    picked_part: bool,
    names_part: bool = False,
    states_symptom: bool = True,
    known_model: bool = False,
) -> str:
    """The intent a turn acts on: its own, or for an answer the job it continues
    (``states_symptom``: the reading found a symptom in the message; ``known_model``: it
    names a model the catalog knows)."""
    if not messages or not isinstance(messages[-1], HumanMessage):
        return intent
    text = messages[-1].text
    words = normalize(text).split()
    if declines(text) and not picked_part:
        return DECLINE
    if thanks_for_something(text) and not picked_part:
        return "thanks"  # "ok thx for checking?", whatever job the classifier heard
    if (
        known_model
        and _CORRECTION.found(text)
        and not (_FIT_ASKED.search(text) or _FITTING_ASKED.search(text) or "?" in text)
        and words.count("modelnum") == 1
        and "psnum" not in words
        and not part_type_named(text)
        and (pending := previous_job(messages, understanding)) is not None
    ):
        # "oh wait sorry thats the old one we got rid of, the new one is a WDT780SAEM1":
        # the job before, for the model put right
        return pending
    if (
        names_part
        and corrects(text)
        and not (_FIT_ASKED.search(text) or _FITTING_ASKED.search(text) or "?" in text)
        and words.count("psnum") == 1
        and "modelnum" not in words
        and (pending := previous_job(messages, understanding)) in ("install", "compat", "details")
    ):
        # "wait wrong number, i meant PS11746800, the strike": the job before, for the part
        # put right
        return pending
    if (
        intent == "search"
        and states_symptom
        and not (picked_part or names_part)
        and (first := _FIRST_SENTENCE.match(text)) is not None
        and len(first[1].split()) >= 4
        and not part_type_named(first[1])
    ):
        # "GE DDT575SGF0BB makes a grinding noise when it washes. also do you have the mid
        # spray arm for it?": the problem told first is the job (its list has the part if
        # it is a usual fix)
        return "diagnose"
    if (
        intent in ("install", "details")
        and not picked_part
        and fit_asked_first(text)
        and _IT.search(text)
        and _one_part_shown(_previous_answer(messages))
    ):
        return "compat"  # "does it fit my fridge for sure and how hard is the install"
    if (
        intent == "details"
        and not (picked_part or names_part)
        and (first_asked := _FIRST_QUESTION.match(text)) is not None
        and _FITTING_ASKED.search(first_asked[0])
        and not (_PRICE_QUESTION.search(first_asked[0]) or _FIT_ASKED.search(first_asked[0]))
        and _IT.search(first_asked[0])
        and _one_part_shown(_previous_answer(messages))
    ):
        return "install"  # "is that one easy to put in? and does it come with the clamp"
    if (
        intent == "diagnose"
        and not (states_symptom or picked_part or names_part)
        and _IT.search(text)
        and (fitting_asked(normalize(text)) or _INSTALL_WORDS.found(text))
        and _one_part_shown(_previous_answer(messages))
    ):
        return "install"  # "and is it easy to pop in?" after its fit: no problem is told
    if (
        intent == "details"
        and not (picked_part or names_part)
        and ((_FIRST_QUESTION.match(text) and _HOW_THEY_GO.search(text)) or _SNAPS_ON.match(text))
        and not (_PRICE_QUESTION.search(text) or _FIT_ASKED.search(text))
        and _DETAILS_SHOWN.match(previous := _previous_answer(messages)) is not None
        and _one_part_shown(previous)
    ):
        # "how many come in a pack? also how do they snap on", "do they just snap on or
        # what" right after that part's details: what the card did not say is how it goes on
        return "install"
    if intent in (ANSWER, "thanks") and not picked_part and _HOW_TO_FIT_IT.search(text):
        # "actually wait yeah how do i put it in lol" after "No problem.", "ok thx!! back
        # to mine, how do i put it in"
        return "install"
    if (
        intent == ANSWER
        and not picked_part
        and fit_asked_first(text)
        and (
            _OFFERS_FIT.search(previous := _previous_answer(messages)) is not None
            or _one_part_shown(previous)
        )
    ):
        return "compat"  # "so that definitely fits mine?" to "Want me to check whether it fits …"
    if _CHECK_IT.match(text) and _one_part_shown(_previous_answer(messages)):
        # "ya check it" after a part's details (the fit check offered, or the fit shown
        # and the steps offered: what is checked is the fit)
        return "compat"
    if (
        not (picked_part or names_part)
        and _gave_asked_appliance(messages)
        and (pending := pending_job(messages, understanding)) is not None
    ):
        # "a GE dishwasher, you guys carry parts for those right?" to "a refrigerator or
        # a dishwasher?": the job asked for, for that appliance
        return pending
    if thanks_with_a_plan(text):
        return "thanks"  # "ok ill just wait for that one then, thx": nothing more asked
    if (
        _TAKES_OFFER.match(text)
        and not acknowledges(text)
        and _OFFERED_INSTALL.search(_previous_answer(messages))
    ):
        return "install"  # "sure go for it" to "Want the installation steps?", read as anything
    if (
        not names_part
        and model_for_a_wide_list(text, messages)
        and not (picked_part and _FIT_ASKED.search(text))
        and (pending := pending_job(messages, understanding)) in ("diagnose", "search")
    ):
        # "its an LDF7561ST, do u have the pump in stock?" after the usual fixes for any
        # dishwasher, "model 10632249101, also do i need to unplug it to swap it" after
        # any fridge's fan motors: that model's own list (its pump may be another part)
        return pending
    if (
        not (names_part or picked_part)
        and model_then_aside(text)
        and awaits_reply(messages)
        and (pending := previous_job(messages, understanding)) is not None
        and not (pending != "diagnose" and intent == "diagnose" and states_symptom)
    ):
        # "its a frigidaire 2533111330C. is that usually a thermostat thing?" after a
        # diagnosis: the job asked for, for that model (the side question is answered
        # by the job's own answer)
        return pending
    if intent == "orders" and (head := request_head(text)) is not None:
        # "need the middle spray arm for 2213222N414, also how long does shipping take":
        # the request before the order question (the answer adds where orders go)
        job = intent_of(head, understanding, awaited=awaits_reply(messages))
        if job in JOBS:
            intent = job
    if bare(text):
        intent = ANSWER  # numbers and filler: no job of its own ("ok and 1061068130640?")
    elif intent != ANSWER and asked_reply(text) and awaits_reply(messages):
        intent = ANSWER  # "a GE dishwasher?" to "refrigerator or dishwasher?": a reply
    if intent in ("thanks", "greeting") and (said := before_courtesy(text)) is not None:
        # "its WDT780SAEM1 thanks", "option 1 thx": a closing thanks after a reply or a
        # request; what comes before it is the message ("great thank you thanks" stays)
        before = intent_of(said, understanding, awaited=awaits_reply(messages))
        if (before in JOBS or before == ANSWER) and not (
            _CONFIRMS.match(said) and _one_part_shown(_previous_answer(messages))
        ):
            # ("perfect thats the one, thx" after one part's fit: a thanks, nothing asked)
            intent = before
    elif (
        intent == "thanks"
        and _YES_THANKS.match(text)
        and _OFFERED_INSTALL.search(_previous_answer(messages))
    ):
        intent = ANSWER  # "ya please thanks" to "Want the installation steps?": a yes
    if (
        not names_part
        and asks_for_a_part(intent, text, understanding, states_symptom=states_symptom)
        and previous_job(messages, understanding) != "diagnose"
    ):
        # "lg fridge 71052 water filter pls" (in a diagnosis, "water come from under the
        # door" goes on telling the trouble)
        intent = "search"
    if intent in ("install", ANSWER) and "modelnum" in words and fit_asked_first(text):
        # "does that also fit my other LG, LDS5774ST? and how hard is it to install",
        # "its going on an ADW662EAS btw, thats the right gasket right?": the fit check,
        # which offers the steps
        return "compat"
    if not (picked_part or names_part) and _OPTIONS_ASKED.search(text) and part_type_named(text):
        return "search"  # "dang. what drain pump DOES go in it then?": the options
    explicit = _INSTALL_WORDS.found(text) or _FIT_WORDS.found(text)
    elliptical = _ELLIPSIS.match(text) is not None
    if (
        # ("also i ordered a water filter last tuesday and never got a shipping email": an
        # order question, whatever part it names)
        ((elliptical and intent not in ("diagnose", "orders")) or _WHICH_ONE.search(text))
        and not (picked_part or names_part or explicit)
        and part_type_named(text)
        and not ("modelnum" in words and _GOES_IN.search(text))
    ):
        return "search"  # "what about the drain hose", "which one is the door latch"
    if _AMONG.search(text) and not names_part and intent in (*_PICKING, "compat"):
        return "search"
    if (
        names_part
        and intent in ("details", "search", "diagnose", ANSWER)
        and not explicit
        and _gave_asked_part(messages, named=True)
    ):
        # "PS11741354 the door spring" to "Which part do you mean?": the job that asked
        pending = pending_job(messages, understanding)
        if pending in ("compat", "install"):
            return pending
    if (
        intent in ("install", "details", ANSWER)
        and _FIT_WORDS.found(text)
        and "modelnum" in words
        and not _INSTALL_WORDS.found(text)
    ):
        # "(and) its for a whirlpool 10672013017, thats the right one yeah?" after a part's
        # steps or details: whether it fits that model, not the job before again
        return "compat"
    if (
        elliptical
        and (intent in ("details", ANSWER) or (names_part and not explicit))
        and (names_part or picked_part or "modelnum" in words)
        and not _PRICE_QUESTION.search(text)
        and not AVAILABILITY.search(text)  # ("also do u have the seal kit PS…": its stock)
    ):
        # "and PS3406971?", "what about WDF520PADM7": the job before, for the new part or
        # model ("and is it in stock" names nothing new: its own question)
        pending = previous_job(messages, understanding)
        if pending in ("compat", "install", "details"):
            return pending
    if names_part and intent == "search" and not _AMONG.search(text):
        return "details"  # "what about WH23X10028, the motor and drain pump": we have it
    if picked_part and (
        intent in _PICKING
        or (
            intent == "install"
            and not _INSTALL_WORDS.found(text)
            and _PRICE_QUESTION.search(text) is not None
        )
        or (intent == "install" and _WHAT_IS_FIRST.match(text) is not None)
        or (intent == "install" and only_a_name(text))
        or (intent == "install" and fitting_heard_in_a_name(text, messages, understanding))
        or (intent == "install" and _price_first(text))
        or (intent == "install" and (fit_asked_first(text) or _lifespan_first(text)))
        or intent in ("orders", "out_of_scope")
        or (intent == "injection" and rule_intent(text) != "injection")
        or (intent in ("thanks", "greeting") and rule_intent(text) is None)
        or (intent == "compat" and "modelnum" not in words)
    ):
        # "the second one", "damper control" after a list: that part, for the job the
        # message or the conversation names if it is about one part, else its details.
        # Pointing at a listed part outweighs the classifier's other guesses ("what about
        # the first part you showed me" is not about an order, "circulation pump price"
        # no attempt on the rules, which only the rules find, nor "ok 3" thanks unless
        # the rules say so; a fit check needs a model;
        # its price asked is its details, whatever the job before).
        pending = pending_job(messages, understanding)
        price = _PRICE_QUESTION.search(text)
        # (a fitting's word in a listed name asks none: "ok lets go with the install kit")
        fitting = (
            None
            if only_a_name(text) or (price and _WHETHER_TO_REPLACE.search(text))
            else _INSTALL_WORDS.start(without_listed_names(text, messages))
        )
        if _price_first(text) or (fitting is not None and price and _LIFESPAN.search(text)):
            return "details"  # "the filter - how much and how often do i change it"
        if fitting is not None and (what := _WHAT_IS_FIRST.match(text)) and what.end() < fitting:
            return "details"  # "whats the 4th one and is it hard to change": what it is first
        if _lifespan_first(text):
            return "details"  # "the first one, how often am i supposed to change it"
        if fitting is not None and fit_asked_first(text):
            return "compat"  # "the fan motor - does it fit mine? and how long to put in"
        if fitting is not None:
            return "install"
        if _FIT_WORDS.found(text):
            return "compat"
        if price:
            return "details"
        asked = _question_after_pick(text, understanding)
        if asked is not None:
            return asked
        if pending == "compat" and _LIST_SHOWS_FIT.search(_previous_answer(messages)):
            return "details"  # "1st one pls" after "which of those fits it?": fit shown
        return pending if pending in ("install", "compat") else "details"
    if (
        intent in (ANSWER, "diagnose")
        and not (picked_part or names_part)
        and (
            names_only_a_part_type(text)
            or (
                # "the blower vent thing": a name with a word the vocabulary lacks
                not states_symptom
                and only_a_name(text)
                and not _STATES.search(text)
                and part_type_named(text)
            )
        )
    ):
        # "the spring" after a list that has none (a part's name read as a symptom, or
        # as a reply to the question before): a search for it
        return "search"
    if intent in ("thanks", "greeting") and (rest := _after_courtesy(text)):
        # "ok great, how much", "thanks, how do i install it": the question is the job
        asked = intent_of(rest, understanding)
        if asked in JOBS or (picked_part and asked in _PICKING):
            # ("thanks, how much is the first one": a question about a listed part)
            return resolve_intent(
                asked, messages, understanding, picked_part=picked_part, names_part=names_part
            )
    if (
        (
            intent in ("search", "details")
            or (intent == "diagnose" and not states_symptom)
            or (intent == "out_of_scope" and known_model and awaits_reply(messages))
        )
        and not names_part
        and only_gives_a_model(text)
    ):
        # a model given with a few words the classifier takes for a request, a problem it
        # finds no symptom in ("hang on let me look... 10641014104") or, where a reply is
        # awaited and the model is one of ours, another topic ("my place has a WDT780SAEM1,
        # good to go?", not "whats the weather in 90210"): the job before, for that model
        pending = previous_job(messages, understanding)
        if pending is not None:
            return pending
    if (
        intent == "search"
        and not names_part
        and _FIT_WORDS.found(text)
        and "modelnum" in words
        and not part_type_named(text)
    ):
        # "and same part for my other fridge, 2533111330A?": no part type of its own to
        # search for; the part before, checked for that model
        return "compat"
    if (
        intent == "details"
        and not (names_part or picked_part)
        and names_another_part(text, messages)
    ):
        # "whats the defrost thermostat for it cost" after the defrost heater's steps: that
        # part, searched for the model, not the part in focus
        return "search"
    if not is_answer(intent, text):
        return intent
    if (
        intent == ANSWER
        and not names_part
        and "modelnum" not in words
        and part_type_named(text)
        and not _YES_OR_NO.match(text)
    ):
        # "the drain hose" after a list it is not on: that part, searched (a listed one
        # was picked above). A model given with where it is written ("sticker inside the
        # door") continues the job.
        return "search"
    if _FIT_WORDS.found(text) and ("modelnum" in words or _YES.match(text)):
        # "that's the right one for a 10639427990 yeah?"; "yeah check it fits pls" to
        # "Want the installation steps?" asks for the fit check instead
        return "compat"
    if (
        _YES.match(text)
        and not acknowledges(text)
        and _OFFERED_INSTALL.search(_previous_answer(messages))
    ):
        return "install"
    pending = pending_job(messages, understanding)
    if pending is None and "modelnum" in words:
        # A model given unasked ("it's a whirlpool MDB7749SAW0" after a diagnosis):
        # the same job, now for that model.
        pending = previous_job(messages, understanding)
    if pending == "search" and names_part:
        return "details"  # "oh wait no, i meant the bypass filter. 10013297": that part
    return pending or intent


# "the first one. can I do it myself?", "option 1, how hard to put in", "#2 - easy job?":
# a pick, then a question of its own after a stop, comma or dash.
_CLAUSE_BREAK = re.compile(r"[.,;:!?]+\s*|\s+-+\s+")


def _question_after_pick(text: str, understanding: Understanding) -> str | None:
    """The job a question after a few words that picked a part asks for ("the first one.
    can I do it myself?" installs it), read alone: the pick's words pull the whole message
    towards a bare *answer*."""
    parts = _CLAUSE_BREAK.split(text.strip(), maxsplit=1)
    if len(parts) < 2 or len(parts[0].split()) > 4 or len(parts[1].split()) < 2:
        return None
    asked = intent_of(parts[1], understanding)
    return asked if asked in ("install", "compat") else None


# "sorry I meant the freezer", "no wait, it just won't drain", "oops typo, I meant …": the
# message puts right what the shopper said before; "also", "too" add to it instead.
_CORRECTION = Caseless(
    r"^\W*((oh|ah|um+|uh+|hmm+|ok(ay)?|well)\W+)*"
    r"(no+|nope|oops|whoops|sorry|wait|actually|my bad|correction|scratch that)\b|"
    r"\b(i meant|i mean|meant to say|i misspoke|not the \w+,? (but )?the|typo|"
    r"the (new|right|correct|actual) (one|model|number) is)\b"
)
_ADDS = re.compile(
    r"\b(also|as well|plus|another|on top|besides)\b|\btoo\b(?=\W*$|\s*[,.;!?])", re.IGNORECASE
)  # "too" at a clause's end ("it leaks too"), not "too cold"
_COMPARTMENT = re.compile(r"\b(freezer|fridge|refrigerator|fresh food|icebox)\b", re.I)
_NOT_THAT = re.compile(r"\bnot (the |my )?(freezer|fridge|refrigerator|fresh food|icebox)\b", re.I)


def corrects(text: str) -> bool:
    """The message corrects what the shopper said before rather than adding to it."""
    return _CORRECTION.found(text) and _ADDS.search(text) is None


# "it isn't warm anymore, that's sorted, but now …", "drains fine now, I cleaned the
# filter. but now it grinds": the trouble told before is over, and a new one follows.
# ("doesn't fill anymore" states a trouble: a symptom said to be gone is a denial,
# `denials.py`.)
_OVER = re.compile(
    r"\b(sorted|fixed|solved|resolved|sorted out|fine now|ok(ay)? now|good now|"
    r"works? (fine |ok |okay )?now|working (again|now|fine)|went away|gone now)\b",
    re.IGNORECASE,
)
_THEN_NEW = re.compile(r"\b(but|now|however|though|except|only)\b", re.IGNORECASE)


def moves_on(text: str) -> bool:
    """The message says the trouble told before is over and tells another one after it
    (its symptoms take the place of the session's; "also" or "too" add instead)."""
    over = _OVER.search(text)
    return (
        over is not None
        and _THEN_NEW.search(text, over.end()) is not None
        and _ADDS.search(text) is None
    )


def corrected_compartment(text: str) -> str | None:
    """The compartment a correction names ("i mean fridge sorry", "not the fridge, the
    freezer"): "freezer" or "fridge", else None."""
    if not corrects(text):
        return None
    m = _COMPARTMENT.search(_NOT_THAT.sub(" ", text))
    if m is None:
        return None
    return "freezer" if m[1].lower() in ("freezer", "icebox") else "fridge"


def is_answer(intent: str, text: str) -> bool:
    """A reply that continues rather than starts: the classifier's *answer*, or a bare
    part number (which alone would ask for the part's details)."""
    return intent == ANSWER or (intent == "details" and bare(text))
