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

from .features import normalize, part_type_named
from .model import Understanding
from .rules import rule_intent

# Intents that are not a job of their own: they continue or close one.
ANSWER = "answer"
_JOBS = frozenset({"search", "details", "compat", "diagnose", "install"})
# Intents a message that picks a listed part may be read as: naming a part reads like
# a search ("damper control"), a symptom ("start relay") or a question about it.
_PICKING = frozenset({ANSWER, "search", "details", "diagnose"})
# "Want the installation steps?" offers them; "details, a fit check or installation steps
# for one of these?" offers a choice, which a "yes" does not make.
_OFFERED_INSTALL = re.compile(
    r"^(?![^\n]*\bor\b)[^\n]*(installation steps|how to install)\b[^\n]*\?\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_INSTALL_WORDS = re.compile(
    r"\b(install\w*|replac\w*|swap\w*|fit it|put (it |this |that )?in|mount\w*|hook\w* up)\b",
    re.IGNORECASE,
)
# "and PS3406971?", "what about the drain hose W10195416": the same question, another part.
_ELLIPSIS = re.compile(
    r"^\W*((ok(ay)?|cool|great|thanks|and|also|so)\W+)*(and|what about|how about|also)\b",
    re.IGNORECASE,
)
_FIT_WORDS = re.compile(
    r"\b(fits?|compatible|work(s)? (with|in|on)|(right|correct|same) (one|part) for)\b",
    re.IGNORECASE,
)
# "is the drain hose on that list", "is the fill cup one of them": whether a part type is
# among the parts, asked by its name: a search for it answers with its fit.
_AMONG = re.compile(
    r"^\W*(is|are|was|were)\b.*\b(on (that|the|this|your) list|one of (them|those|these)|"
    r"among (them|those|these)|in (that|the|this) list)\b",
    re.IGNORECASE,
)
_WHICH_ONE = re.compile(r"\bwhich (one|part) is\b|\bwhich of (them|those|these) is\b", re.I)
_ASKED_FOR_PART = re.compile(r"\bpart number\b|\bwhich part\b", re.IGNORECASE)
# "yes", "yeah show me how", "yes pls, walk me through it": a yes and at most a few
# words that do not take it back.
_YES = re.compile(
    r"^\s*(yes|yeah|yep|yup|ya|yea|sure|ok(ay)?|please|go ahead|do it|show me)\b"
    r"(?![^?]*\b(no|not|but|instead|other)\b)[^?]{0,40}$",
    re.IGNORECASE,
)

# A reply that says yes or no first ("yes but not for this one, the filter") answers the
# question; a bare part name does not.
_YES_OR_NO = re.compile(r"^\W*(yes|yeah|yep|yup|ya|yea|sure|ok(ay)?|no|nope|nah|not)\b", re.I)


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


def intent_of(text: str, understanding: Understanding) -> str:
    """An earlier message's intent, read as the reading reads it (the rules, else the
    classifier): "a bosch dishwasher" is an answer whatever the classifier guesses."""
    return rule_intent(text) or understanding.score(text).intent


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
        intent = intent_of(text, understanding)
        if is_answer(intent, text) or _gave_asked_part(messages[: i + 1]):
            continue  # an earlier answer to an earlier question: look further back
        return intent if intent in _JOBS else None
    return None


def _gave_asked_part(messages: Sequence[BaseMessage]) -> bool:
    """The newest message gives a part number the answer before it asked for."""
    previous = _previous_answer(messages)
    return (
        "?" in previous
        and _ASKED_FOR_PART.search(previous) is not None
        and "psnum" in normalize(messages[-1].text).split()
    )


def previous_job(messages: Sequence[BaseMessage], understanding: Understanding) -> str | None:
    """The job of the shopper's latest earlier message that had one."""
    users = [m for m in messages[:-1] if isinstance(m, HumanMessage)]
    for m in reversed(users[-3:]):
        intent = intent_of(m.text, understanding)
        if _ELLIPSIS.match(m.text) or is_answer(intent, m.text):
            continue  # it continued an earlier job itself
        if intent in _JOBS:
            return intent
    return None


def resolve_intent(
    intent: str,
    messages: Sequence[BaseMessage],
    understanding: Understanding,
    *,
    picked_part: bool,
    names_part: bool = False,
) -> str:
    """The intent a turn acts on: its own, or for an answer the job it continues."""
    if not messages or not isinstance(messages[-1], HumanMessage):
        return intent
    text = messages[-1].text
    if bare(text):
        intent = ANSWER  # numbers and filler: no job of its own ("ok and 1061068130640?")
    explicit = _INSTALL_WORDS.search(text) or _FIT_WORDS.search(text)
    elliptical = _ELLIPSIS.match(text) is not None
    if (
        ((elliptical and intent != "diagnose") or _WHICH_ONE.search(text))
        and not (picked_part or names_part or explicit)
        and part_type_named(text)
    ):
        return "search"  # "what about the drain hose", "which one is the door latch"
    if _AMONG.search(text) and not names_part and intent in (*_PICKING, "compat"):
        return "search"
    if (
        names_part
        and intent in ("details", "search")
        and not explicit
        and _gave_asked_part(messages)
    ):
        # "PS11741354 the door spring" to "Which part do you mean?": the job that asked
        pending = pending_job(messages, understanding)
        if pending in ("compat", "install"):
            return pending
    if elliptical and (intent in ("details", ANSWER) or (names_part and not explicit)):
        pending = previous_job(messages, understanding)
        if pending in ("compat", "install", "details"):
            return pending
    if names_part and intent == "search" and not _AMONG.search(text):
        return "details"  # "what about WH23X10028, the motor and drain pump": we have it
    if picked_part and intent in _PICKING:
        # "the second one", "damper control" after a list: that part, for the job the
        # message or the conversation names if it is about one part, else its details.
        pending = pending_job(messages, understanding)
        if _INSTALL_WORDS.search(text):
            return "install"
        if _FIT_WORDS.search(text):
            return "compat"
        return pending if pending in ("install", "compat") else "details"
    if not is_answer(intent, text):
        return intent
    words = normalize(text).split()
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
    if _FIT_WORDS.search(text) and "modelnum" in words:
        return "compat"  # "that's the right one for a 10639427990 yeah?"
    if _YES.match(text) and _OFFERED_INSTALL.search(_previous_answer(messages)):
        return "install"
    pending = pending_job(messages, understanding)
    if pending is None and "modelnum" in words:
        # A model given unasked ("it's a whirlpool MDB7749SAW0" after a diagnosis):
        # the same job, now for that model.
        pending = previous_job(messages, understanding)
    return pending or intent


def is_answer(intent: str, text: str) -> bool:
    """A reply that continues rather than starts: the classifier's *answer*, or a bare
    part number (which alone would ask for the part's details)."""
    return intent == ANSWER or (intent == "details" and bare(text))
