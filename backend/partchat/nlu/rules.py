"""High-precision rules that override the classifier's intent.

A message that tries to change the assistant's rules is ``injection`` whatever else it
says; these patterns were written against real attempts and are cheaper to trust than to
learn. The others decide the fixed answers when the classifier is unsure.
"""

from __future__ import annotations

import re
from functools import cache

from partchat.catalog.vocab import (
    APPLIANCE_KINDS,
    AppliancePattern,
    appliance_reply_words,
    brand_words,
)

from .features import normalize

INJECTION = re.compile(
    r"ignore (all |any |your |the |previous |prior |above )*(instructions|rules|prompt)|"
    r"system prompt|your (instructions|prompt|rules)|reveal|jailbreak|developer mode|"
    r"you are now|act as|pretend (you|to|that|the|it)|disregard|forget (all|your|everything)|"
    r"override(?! (setting|switch|button|mode))|"
    r"above this line|(repeat|print|output|display|dump) (me )?(everything|all( of)? the text|"
    r"the text|what('s| is| was) (above|before|written)|your|the (first|previous|above|hidden|"
    r"initial) (\w+ )?(message|prompt|instructions?|text|rules|lines?|words))|"
    r"show (me )?(your (prompt|instructions|rules|system|config\w*|settings|hidden)|"
    r"the (hidden|initial|system|first|previous|above) (\w+ )?(message|prompt|instructions?|"
    r"text|rules|lines?|words))|"
    r"initial (prompt|instructions)|hidden (prompt|instructions)|\bDAN\b|do anything now",
    re.IGNORECASE,
)

_PRICE_CLAIM = re.compile(
    r"\b(say|tell|confirm|repeat|state|write|agree|type)\b.{0,60}(\bcosts?\b|\bprice\b|\$\s?\d|"
    r"\bfree\b|\bdiscount|\d+\s?% off)",
    re.IGNORECASE,
)
# "can you tell me the price for …", "repeat the price of …": a question, unless a figure
# is stated too.
_PRICE_QUESTION = re.compile(
    r"\b(tell|repeat|give)\s+(me\s+)?(the|what)\s+(price|cost)\b", re.IGNORECASE
)
_PRICE_STATED = re.compile(r"\$\s?\d|\bfree\b|\bcents?\b|\bnothing\b|\bzero\b", re.IGNORECASE)


def claims_a_price(text: str) -> bool:
    """The message wants a price, a discount or free shipping said back ("say PS… costs
    $1"), not one looked up."""
    if not _PRICE_CLAIM.search(text):
        return False
    return not _PRICE_QUESTION.search(text) or _PRICE_STATED.search(text) is not None


GREETING = re.compile(
    r"^\s*(hi|hello|hey|hiya|howdy|greetings|good (morning|afternoon|evening))\b[\s!.,]*"
    r"(there|team|partchat)?[\s!.,]*$",
    re.IGNORECASE,
)

THANKS = re.compile(r"^\s*(thanks|thank you|thx|cheers|great,? thanks)\b[^?]{0,40}$", re.IGNORECASE)

ORDERS = re.compile(
    r"\b(my order|order status|order number|tracking|track (my|the|an?|this) (order|package|"
    r"parcel|shipment|delivery)|refund|return (my|the|an?) |delivery|"
    r"shipping|shipped|invoice|cancel (my|the) order|return label|exchange (it|this|the|my)|"
    r"when\b[^?]{0,40}\b(arrive|ship|come|get here|be delivered)|promo code|coupon|"
    r"ship\w* (it |that |this |them )?(for )?free|charge for shipping)\b",
    re.IGNORECASE,
)

OTHER_APPLIANCE = re.compile(
    r"\b(washing machine|washer|dryer|oven|stove|range hood|cooktop|microwave|air ?conditioner|"
    r"furnace|water heater|vacuum|television|tv|garbage disposal|trash compactor)\b",
    re.IGNORECASE,
)

CHITCHAT = re.compile(
    r"\b(weather|joke|poem|story|capital of|who won|recipe|bitcoin|stock market|president|"
    r"meaning of life|sing|translate)\b",
    re.IGNORECASE,
)

# our appliances in any spelling of the table (catalog/vocab.py), and their parts
_OURS = tuple(k for k in APPLIANCE_KINDS if k != "hint")
OUR_APPLIANCE = AppliancePattern(r"\b({appliance})\b", _OURS)

IN_SCOPE = AppliancePattern(r"\b({appliance}|part|ps\d+)\b", _OURS)

# Bare replies to the assistant's questions: an appliance or a brand, a model number,
# yes / no, with nothing else.
_REPLY_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "my",
        "its",
        "it",
        "is",
        "i",
        "think",
        "its",
        "yes",
        "yeah",
        "yep",
        "yup",
        "no",
        "nope",
        "nah",
        "correct",
        "right",
        "ok",
        "okay",
        "sure",
        "idk",
        "dunno",
        "not",
        "sure",
        "modelnum",
        "model",
        "number",
        "one",
        # the appliance's names and the brands: appliance_reply_words(), brand_words()
        # the kind of appliance ("GE refrigerator, side by side", "a built in DW")
        "side",
        "by",
        "french",
        "door",
        "top",
        "bottom",
        "mount",
        "built",
        "in",
        "counter",
        "depth",
        "compact",
        "portable",
        "stainless",
    ]
)
# "find …" / "search for …" as a command is a search, whatever the words after it.
SEARCH_COMMAND = re.compile(
    r"^\s*(please\s+|pls\s+)?(find(?!\s+out)|search|look\s*up)\b", re.IGNORECASE
)
# "do you have drain pumps?", "do u guys carry door bins": whether the store has a kind of
# part (with a part type named, and no part number: "do you have PS… in stock" is details).
AVAILABILITY = re.compile(
    r"\b(do|does|would|will) (you|ya|u)( guys| all| folks)? (have|carry|sell|stock)\b",
    re.IGNORECASE,
)
_INSTALL_WORDS = re.compile(r"\b(install\w*|replac\w*|swap|fit it|put (it )?in)\b", re.IGNORECASE)
_PS = re.compile(r"\bPS\d{3,12}\b", re.IGNORECASE)


@cache
def _reply_words() -> frozenset[str]:
    return _REPLY_WORDS | appliance_reply_words() | brand_words()


def rule_intent(text: str) -> str | None:
    """The intent the rules are sure of, else None."""
    words = normalize(text).split()
    reply = _reply_words()
    if words and all(w in reply for w in words) and "psnum" not in words:
        return "answer"
    if INJECTION.search(text) or claims_a_price(text):
        return "injection"
    if GREETING.match(text):
        return "greeting"
    if THANKS.match(text):
        return "thanks"
    if ORDERS.search(text) and not _INSTALL_WORDS.search(text):
        return "orders"
    ours = OUR_APPLIANCE.search(text) is not None or _PS.search(text) is not None
    if OTHER_APPLIANCE.search(text) and not ours:
        return "out_of_scope"
    if CHITCHAT.search(text) and not IN_SCOPE.search(text):
        return "out_of_scope"
    if SEARCH_COMMAND.match(text):
        return "search"
    return None
