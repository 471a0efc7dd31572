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
    appliance_words,
    brand_words,
    part_type_keywords,
)

from .caseless import Caseless
from .features import NEGATOR, normalize, part_type_named, part_type_pattern

# What a rule-changing attempt is made of, in any wording: (1) a verb that sets the rules
# aside with the rules as its object; (2) the assistant's own set-up asked for; (3) a new
# persona or mode; (4) chat-template markup. Each alternative names the assistant's rules,
# never a shopper's thing ("ignore my last message", "the override setting").
_SET_ASIDE = (
    r"(ignor\w*|disregard|forget|bypass|skip|drop|abandon|stop following|dont follow|"
    r"do not follow)\s+((all|any|of|your|ur|the|these|those|previous|prior|above|earlier|"
    r"original|current|safety|store|every|my|that)\s+)*"
    r"(instructions?|rules|prompt|guidelines|directions|directives|programming|restrictions|"
    r"polic(y|ies)|guardrails|filters|training|constraints|limits)\b"
)
_OWN_SETUP = (
    r"system prompt|system message|(your|ur) (instructions|prompt|rules|guidelines|programming)|"
    r"(your|ur|the) (secret|hidden|initial|original|internal|confidential|real|exact|full|"
    r"raw|core|first|system) (\w+ )?(rules|instructions|prompt|guidelines|configuration|"
    r"config|setup|directives)|"
    r"(full|whole|entire|raw|complete|hidden|initial) prompt|"
    r"(instructions|rules) (you (got|were given|received|follow|operate under)|given to you)|"
    r"what (were|are) you (told|instructed|programmed)|how (were|are) you (set up|programmed|"
    r"configured|instructed)|from your (developers|creators|devs|makers)"
)
_PERSONA = (
    r"you are now|(you are|youre|ur|u r) no longer|"
    # "act as a go-between with the courier" asks for a person's help, not a persona
    r"act (as|like) (?!an? (go-between|intermediary|middleman|liaison))(a |an |my |u |you |ur |if |dan\b)|"
    r"no (store )?(rules|policies|restrictions) apply|(rules|policies|restrictions) "
    r"(dont|do not|no longer) apply|"
    r"role[- ]?play|play the (role|part) of|pretend (you|to|that|the|it|u |ur )|let'?s play a game|"
    r"(developer|dev|god|admin|debug|unrestricted|jailbreak) mode|jailbreak|\bDAN\b|"
    r"do anything now|(no|without( any)?|zero) (restrictions|limits|filters|rules)\b|"
    r"\bnew (task|instructions?|rules?|persona|role|policy)\s*[:=]|"
    r"\byour new (task|instructions?|rules?|persona|role)\b|\bsudo\b|override code|"
    r"system override"
)
_MARKUP = r"<\|\w+\|>|</?\s*(system|admin|assistant)\s*>|\[\[?\s*(system|admin)\b|#{2,}\s*(admin|system|new)"
# The same attempts in the languages shoppers write them in: "ignore/forget" with "the
# instructions/rules", and "system prompt".
_ELSEWHERE = (
    r"(ignor\w*|olvid\w*|oubli\w*|vergiss\w*|dimentic\w*|esque[cç]\w*|negeer\w*|vergeet\w*|"
    r"игнорируй|забудь)\W+(\w+\W+){0,4}(instruc\w*|anweisung\w*|istruzion\w*|instru[cç][oõ]\w*|"
    r"instructies|regeln|regla\w*|r[eè]gle\w*|regol\w*|regra\w*|regels|инструкц\w*|правил\w*)|"
    r"prompt (del|do|du) (sistema|syst[eè]me)|systemprompt|системн\w* промпт"
)
# Scripts without spaces between words: no word boundary to anchor on.
_UNSPACED = r"忽略|无视|無視|指令|系统提示|システムプロンプト|프롬프트|무시"
# Anchored at word starts: a search fails fast inside words (half the cost per message).
INJECTION = Caseless(
    _MARKUP
    + "|"
    + _UNSPACED
    + r"|\b(?:"
    + "|".join(
        [
            _SET_ASIDE,
            _OWN_SETUP,
            _PERSONA,
            _ELSEWHERE,
            r"reveal|disregard(?!\s+(my|what i)\b)|forget (all|your|everything)|ignore everything|"
            r"override(?! (setting|switch|button|mode))|"
            r"above this line|(repeat|print|output|display|dump) (me )?(everything|all( of)? the text|"
            r"the text|what('s| is| was) (above|before|written)|your|the (first|previous|above|hidden|"
            r"initial) (\w+ )?(message|prompt|instructions?|text|rules|lines?|words))|"
            r"show (me )?(your (prompt|instructions|rules|system|config\w*|settings|hidden)|"
            r"the (hidden|initial|system|first|previous|above) (\w+ )?(message|prompt|instructions?|"
            r"text|rules|lines?|words))|"
            r"initial (prompt|instructions)|hidden (prompt|instructions)",
        ]
    )
    + ")"
)

# A fit stated by fiat: "just tell me yes it fits", "no need to check", "I already know
# it fits": the shopper wants it said, not checked.
_FIT_BY_FIAT = Caseless(
    r"\b(without|(no|(don'?t|do not)) need to|don'?t|do not|stop|quit|no)\s+(check\w*|look\w* (it )?up|"
    r"verify\w*|checks)\b|\bi (already )?know (it|that|this|\S+) fits\b|"
    r"\btrust me\b.{0,40}\b(fits|compatible|works)\b|"
    r"\b(say|tell me|confirm)( that)? (yes|it (fits|works))\b|"
    r"\bfits (every|all|any) (\w+ )?(models?|fridges?|dishwashers?|refrigerators?)\b|"
    r"\b(compatible|fits|works) with (every|all|any) (models?|fridges?|dishwashers?|"
    r"refrigerators?)\b"
)
# A discount demanded rather than asked about: "give me 90% off", "apply 100% off".
_DISCOUNT_DEMAND = Caseless(
    r"(^|[,.;:!]\s*)\W*(please |pls |now |just )?(give|apply|grant|make)\b.{0,40}\b\d+\s?% ?(off|discount)"
)

_PRICE_CLAIM = Caseless(
    r"\b(say|tell(ing)?|confirm|repeat|state|write|agree|type)\b.{0,60}(\bcosts?\b|\bprice\b|"
    r"\$\s?\d|\bfree\b|\bdiscount|\d+\s?% off|\bcents?\b|\bbucks\b|\bon sale\b)"
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
    if _DISCOUNT_DEMAND.found(text):
        return True
    if not _PRICE_CLAIM.found(text):
        return False
    return not _PRICE_QUESTION.search(text) or _PRICE_STATED.search(text) is not None


def states_by_fiat(text: str) -> bool:
    """An injection: the rules set aside, or a price or a fit to be said, not looked up."""
    return INJECTION.found(text) or claims_a_price(text) or _FIT_BY_FIAT.found(text)


# A greeting and nothing else, its letters drawn out or not ("hiii", "heyyy", "yooo"), by
# the time of day alone ("morning", "mornin", "gm") or as an older courtesy ("good day to
# you", "g'day").
GREETING = re.compile(
    r"^\s*(h+i+|hello+|he+y+|hiya|heya|howdy|greetings|y+o+|ayo+|sup|wass?up|whats up|"
    r"gm|g'?day|((good|gud) )?(morning|mornin'?|afternoon|evening)|(good|gud) day)\b[\s!.,]*"
    r"((there|team|partchat|all|everyone|folks|guys|mate|to (you|ya|u))\b[\s!.,]*)*$",
    re.IGNORECASE,
)

# A short message of greeting words only, in any spelling: the words (English and the
# common European ones, "salutations", "howdy"), each a letter off allowed from five
# letters ("helo", "gmorning" of "g'morning"), and the words said with them ("y'all",
# "hope ur well", "anyone around?", "how are you").
_GREETING_WORDS = frozenset(
    [
        "hi",
        "hii",
        "hey",
        "heya",
        "hiya",
        "hello",
        "howdy",
        "greetings",
        "salutations",
        "yo",
        "sup",
        "wassup",
        "whatsup",
        "gm",
        "gday",
        "morning",
        "mornin",
        "afternoon",
        "evening",
        "hallo",
        "hola",
        "bonjour",
        "ciao",
        "salut",
        "hej",
        "aloha",
        "namaste",
        # "knock knock, anybody on this thing?"
        "knock",
    ]
)
_GREETING_FILLER = frozenset(
    [
        "there",
        "all",
        "yall",
        "everyone",
        "everybody",
        "folks",
        "guys",
        "team",
        "mate",
        "friend",
        "friends",
        "people",
        "anyone",
        "anybody",
        "around",
        "here",
        "partchat",
        "to",
        "you",
        "ya",
        "u",
        "hope",
        "ur",
        "your",
        "well",
        "doing",
        "qmark",
        "how",
        "are",
        "is",
        "it",
        "going",
        "things",
        "whats",
        "up",
        "good",
        "gud",
        "day",
        "and",
        "on",
        "this",
        "thing",
        "online",
        "awake",
        "alive",
    ]
)
_GREETING_TYPO_FROM = 5
"""A greeting word this long at least may be typed a letter off ("helo"; "hey" may not)."""


# a letter drawn out ("gooood", "heyyyy"): the word with it once or twice
_DRAWN_OUT = re.compile(r"(\w)\1{2,}")


def _drawn_in(word: str) -> tuple[str, ...]:
    """The word, and with each letter drawn out said once and twice."""
    if not _DRAWN_OUT.search(word):
        return (word,)
    return (word, _DRAWN_OUT.sub(r"\1", word), _DRAWN_OUT.sub(r"\1\1", word))


def _greeting_word(word: str) -> bool:
    if any(w in _GREETING_WORDS for w in _drawn_in(word)):
        return True
    from rapidfuzz.distance import Levenshtein

    return len(word) >= _GREETING_TYPO_FROM - 1 and any(
        len(g) >= _GREETING_TYPO_FROM and Levenshtein.distance(word, g, score_cutoff=1) <= 1
        for g in _GREETING_WORDS
    )


def greets(text: str) -> bool:
    """The message is a greeting and nothing else: ``GREETING``, or only greeting words
    (a letter off allowed) and the words said with them, a greeting word first."""
    if GREETING.match(text) or GREETING.match(_DRAWN_OUT.sub(r"\1\1", text)):
        return True
    words = [w for w in normalize(text).split() if w != "qmark"]
    return (
        0 < len(words) <= 6
        and _greeting_word(words[0])
        and all(
            _greeting_word(w) or any(d in _GREETING_FILLER for d in _drawn_in(w)) for w in words[1:]
        )
    )


THANKS = re.compile(
    r"^\s*((thanks|thank you|thx|tysm|tyvm|ty|cheers|great,? thanks|(muchas )?gracias|merci( beaucoup)?|danke( schon)?|"
    r"grazie( mille)?|obrigad[oa]|dank je( wel)?)\b[^?]{0,40}|"
    # the short thanks of British and Australian English: "ta", "ta mate", "ta very much"
    r"ta( (mate|very much|muchly|love))?\W*|"
    # a closing: "cool, that's it", "ok that's all", "perfect, that's everything"
    r"(ok(ay)?|cool|great|perfect|awesome|nice|alright|good)\W+(thats|that is|that's) "
    r"(it|all|everything)\b[^?]{0,30}|"
    # a goodbye, nothing else: "later!", "ok great bye", "alright, see ya", "bye for now"
    r"((ok(ay)?|alright|great|cool|awesome|perfect|thanks|thx|thank (you|u))\W+)*"
    r"(bye|goodbye|later|see (ya|you)|cya|talk (to you )?later|ttyl|good ?night|take care)"
    r"(\W+(and|bye|now|for now|then|again|thanks|thx|all|everyone))*\W*)$",
    re.IGNORECASE,
)

ORDERS = Caseless(
    r"\b(my order|order status|order number|tracking|track (my|the|an?|this) (order|package|"
    r"parcel|shipment|delivery)|refund|return (my|the|an?) |delivery|"
    r"shipping|shipped|invoice|"
    # where the store delivers, asked first: "do you ship to canada", "can u deliver
    # overseas" (asked after a problem, the problem is the job)
    r"^\W*(do|does|can|will|would) (you|u|ya)( guys| all| folks)? (ship|deliver)( \w+)? "
    r"(to|outside|internationally|overseas|abroad)\b|cancel (my|the) order|return label|exchange (it|this|the|my)|"
    # sending a part back: "if its the wrong one can i send it back", "can i return it"
    r"(send|ship|mail) (it|this|that|them) back(?! (out|in|on|into|together|up))|"
    r"return (it|this|that|them)(?! (to (its|the|their)|into))\b|"
    # (not "when the dishes come out", "when the light should come on")
    r"when\b[^?]{0,40}\b(arrive|ship|come(?! (out|on|off|loose|apart|undone|up|down)\b)|get here|"
    r"be delivered)|promo code|coupon|"
    # "when could i get it?": when it reaches the shopper ("… get it in", "… installed" fit it)
    r"\bwhen (can|could|would|will|do|might) (i|we|u|you) (get|receive) "
    r"(it|this|that|one|them|the part)\b(?! (in|on|out|off|installed|fixed|done|working)\b)|"
    r"ship\w* (it |that |this |them )?(for )?free|charge for shipping|receipt|reciept|i returned|"
    # a part that came damaged: the order's trouble, not the appliance's
    r"(arrived|came|showed up|delivered)\b[^.?!]{0,40}\b(broken|damaged|cracked|torn|smashed|"
    r"crushed|snapped|dented)|(damaged|broken|crushed|cracked) (in|during) (shipping|transit)|"
    # the wrong thing received: "got the wrong part in the mail", "was sent the wrong one"
    r"(got|gotten|received|recieved|sent|shipped|delivered|mailed|came|arrived|was|were)"
    r"( me| us| it)? (the |a )?wrong (part|item|one|thing|size|model|order)|"
    # what the store sent, and how long it takes to come: "the part you sent me is wrong",
    # "usually how long does it take to ship"
    r"(you|u|they|y'?all) (sent|shipped|mailed) (me|us)|"
    r"how long\b[^?]{0,30}\bto (ship|arrive|get here|be delivered|come in|be back|restock))\b"
)

# A receipt read for a number or a name ("the number off my old receipt", "its just called
# valve access on my receipt"): where the shopper read it, not a question about an order.
_RECEIPT_AS_SOURCE = re.compile(
    r"\b(on|off|from|in|per)\s+(my|the|our|an?|this|that)?\s*(old\s+)?(receipt|reciept)\b",
    re.IGNORECASE,
)

# Whether a given part fits a given model ("fits", "compatible", "works with").
_ASKS_FIT = re.compile(r"\b(fits?|compatible|work(s)? (with|in|on)|right (one|part) for)\b", re.I)

OTHER_APPLIANCE = Caseless(
    r"\b(washing machine|washer|dryer|oven|stove|range hood|cooktop|microwave|air ?conditioner|"
    r"furnace|water heater|vacuum|television|tv|garbage disposal|trash compactor|"
    # cooling that is not a household fridge, and the other machines of a home or a car
    r"(window|portable|central|my|the|our|car|truck) a/?c\b|a/?c (unit|units|remote)|"
    r"air condition\w*|central air|mini ?split|de?humidif\w*|kegerator|"
    r"(beverage|walk[- ]?in) cooler|disposal|garage door( opener)?|car|truck|stand mixer|"
    r"blender|toaster|coffee (maker|machine)|air fryer|mircowave)s?\b"
)

# A washer that is a part ("the rubber washer", "hinge washers", "washer screw"): the
# catalog's washers are named so; a washer alone is the laundry machine.
_PART_WASHER = re.compile(
    r"\b(lock|hinge|hose|thrust|rubber|nylon|plastic|friction|fib(er|re)|flat|spacer|metal|"
    r"steel|seal(ing)?|spring|wave|single|screws? (and|&)) washers?\b|\bwashers? (screw|head|bolt)s?\b",
    re.IGNORECASE,
)


def names_other_appliance(text: str) -> bool:
    """The message names an appliance or a machine that is not ours (the part washers
    are taken out only when something matched: most messages name no other machine)."""
    if not OTHER_APPLIANCE.found(text):
        return False
    return OTHER_APPLIANCE.found(_PART_WASHER.sub(" ", text))


CHITCHAT = Caseless(
    r"\b(weather|joke|poem|story|capital of|who won|recipe|bitcoin|stock market|president|"
    r"meaning of life|sing|translate|essay|homework|chatgpt|settle a bet|trivia|"
    r"how (tall|high|far|old) is (the|a|an|mount|mt)\b|"
    # who or what the assistant is: "are you a real person", "is this chatgpt?"
    r"(are (you|u)|is this|am i talking to) (a |an )?(real person|person|human|bot|robot|ai|"
    r"chatgpt|gpt))\b"
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
        "really",
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
        # yes and no in other words, hedges, and picks from a list ("2nd please", "both")
        "absolutely",
        "exactly",
        "definitely",
        "certainly",
        "affirmative",
        "negative",
        "yea",
        "ya",
        "alright",
        "mhm",
        "maybe",
        "probably",
        "guess",
        "believe",
        "uh",
        "uhh",
        "um",
        "umm",
        "hmm",
        "actually",
        "please",
        "pls",
        "go",
        "ahead",
        "first",
        "second",
        "third",
        "fourth",
        "last",
        "middle",
        "both",
        "either",
        "1st",
        "2nd",
        "3rd",
        "option",
        "of",
        "them",
        # a pick declined ("neither of those", "none of these") and the make said
        # ("fridge, kenmore brand")
        "neither",
        "none",
        "those",
        "these",
        "brand",
        # what kind or how old ("fridge, bottom freezer style", "bosch, dishwasher, maybe ten
        # years old") and a laugh ("dishwasher not fridge lol")
        "style",
        "type",
        "kind",
        "old",
        "years",
        "year",
        "ish",
        "lol",
        "haha",
    ]
)
# Said with a model number, the words of where it was read and whose it is: "under the
# door it says WDT780SAEM1", "mdl# GDWT160R10SS", "it's for an LDF7551WW", "mine is a …".
# Only with a model number: alone they are no reply.
_WITH_A_MODEL = frozenset(
    [
        "for",
        "mine",
        "mines",
        "have",
        "got",
        "own",
        "sticker",
        "label",
        "tag",
        "plate",
        "says",
        "say",
        "reads",
        "shows",
        "printed",
        "written",
        "stamped",
        "on",
        "under",
        "inside",
        "behind",
        "frame",
        "tub",
        "rim",
        "wall",
        "edge",
        "mdl",
        "models",  # "model's 10641012104"
        "btw",
        "no",
        "num",
        "actually",
        "sorry",
        "oops",
        "wait",
        "typo",
        "then",
        "serial",
        "of",
        "from",
        "to",
        "if",
        "that",
        "helps",
        "qmark",  # "wdt780saem1 ?": the number asked back
    ]
)
# "find …" / "search for …" as a command is a search, whatever the words after it.
SEARCH_COMMAND = re.compile(
    r"^\s*(please\s+|pls\s+)?(find(?!\s+out)|search|look\s*up)\b", re.IGNORECASE
)
# "do you have drain pumps?", "do u guys carry door bins": whether the store has a kind of
# part (with a part type named, and no part number: "do you have PS… in stock" is details).
# So does asking where to buy one: "sold here?", "do you sell it", "where can I get one",
# "can i buy an evaporator fan here" (26 of 31 train, dev and paraphrase texts with such
# words are searches; the others are ruled: orders, an injection, an install guide).
AVAILABILITY = re.compile(
    r"\b(do|does|would|will) (you|ya|u)( guys| all| folks)?( happen to| still| even)? "
    r"(have|carry|sell|stock)\b|"
    r"\b(sold|sell|carry|stock)\w* here\b|\b(sell|sold) (it|them|those|these|that|one|ones)\b|"
    r"\bcan i (buy|order|get) (just )?(one|a|an|the|it|them|this|that)\b|"
    r"\bwhere (can i|do i|to|could i|would i) (buy|get|order|find)\b|\bwho sells\b|"
    # "got any door bins?", "what thermostats u got", "you got full ice maker assemblies?"
    # (15 of 15 train, dev and paraphrase texts with such words and a part type: searches)
    r"\b(you|ya|u)( guys| all| folks)? got\b|\bgot any\b|\bgot one for\b|"
    # "what do u have for the spray nozzle on that one"
    r"\bwhat (do|does|would) (you|ya|u)( guys| all| folks)? (have|carry|sell|stock) (for|in)\b",
    re.IGNORECASE,
)
# A message that opens by asking for a part ("need a start relay, it clicks", "looking
# for a door gasket for my GE, it leaks", "i want a new spray arm"): the part first, its
# problem the reason. Said of the normalised text.
ASKS_FOR_A_PART = re.compile(
    # (after the model it is for: "samsung RF22KREDBSR, i need the door closing mechanism")
    r"^((hi|hey|hello|ok|so) )?((\w+ ){0,3}?modelnum )?((i|we|im|i am|were|we are) )?(really |just )?"
    r"(need|want|wanna|"
    r"looking for|shopping for|in the market for|searching for|trying to find|after)\b"
    r"(?! (to|help|instructions|a hand|some help)\b)"
)
INSTALL_WORDS = re.compile(r"\b(install\w*|replac\w*|swap|fit it|put (it )?in)\b", re.IGNORECASE)
_PS = re.compile(r"\bPS\d{3,12}\b", re.IGNORECASE)


# A question about what a given part costs ("how much for W10872845", "what do you charge
# for PS…", "need a quote on …", "which one is cheaper"): its details. "how much time …"
# is not a price.
PRICE_QUESTION = re.compile(
    r"\b(how much (is|are|for|does|do|did|would|will|s|to buy|to order)|prices?|priced|pricing|"
    r"costs?|charge|quote|ballpark|expensive|cheap|cheaper|cheapest|pricier)\b"
)
# A given part's price asked and nothing else ("price check: 6600JB1010A", "cost of PS…?
# thx"): a question, never an attempt to have a price stated, whatever the classifier hears.
_PRICE_ONLY = frozenset(
    {"price", "prices", "pricing", "priced", "check", "cost", "costs", "quote", "current"}
    | {"how", "much", "is", "whats", "what", "s", "the", "of", "on", "for", "it", "its"}
    | {"psnum", "modelnum", "qmark", "pls", "please", "thanks", "thx", "ty", "today"}
)


def asks_only_a_price(norm: str) -> bool:
    """The normalised text asks a given part's price in price words only."""
    return PRICE_QUESTION.search(norm) is not None and _PRICE_ONLY.issuperset(norm.split())


# A question in the normalised text: a question mark, a question word first, "is it the".
_ASKS = re.compile(
    r"\bqmark\b|^(is|are|what|whats|which|does|do|can|could|would|will|how|hows)\b|"
    r"\b(is|isnt) (it|that|this|psnum) (the|a|an|just|only)\b"
)


def asks(norm: str) -> bool:
    """The normalised text asks something."""
    return _ASKS.search(norm) is not None


# Beside a part type's name, the words that ask for one ("LG dishwasher drain pump", "do
# you have a door switch for a fridge", "need a new water filter"), and the words that
# are no more than an article or a courtesy ("the door gasket", "lower rack please").
_ASKING_FOR = frozenset(
    [
        "for",
        "need",
        "needs",
        "want",
        "wanted",
        "looking",
        "after",
        "have",
        "carry",
        "sell",
        "stock",
        "do",
        "does",
        "you",
        "u",
        "ya",
        "guys",
        "i",
        "im",
        "got",
        "any",
        "some",
    ]
)
_NAME_ONLY = frozenset(
    [
        "a",
        "an",
        "the",
        "my",
        "our",
        "one",
        "new",
        "replacement",
        "spare",
        "please",
        "pls",
        "qmark",
        "it",
    ]
)


# The words that join a part type's name to what it is for or where it sits ("the retainer
# bar for a shelf on my fridge door", "is there an inlet valve in there", "u have it?"):
# prepositions, pronouns, "is there", "where", a place ("the bottom rack"); none of them
# tells a trouble.
_PHRASE_WORDS = frozenset(
    [
        "for",
        "of",
        "on",
        "in",
        "at",
        "to",
        "with",
        "from",
        "that",
        "this",
        "these",
        "those",
        "its",
        "it",
        "any",
        "some",
        "there",
        "where",
        "which",
        "what",
        "do",
        "does",
        "u",
        "you",
        "ya",
        "have",
        "has",
        "got",
        "get",
        "sell",
        "sells",
        "stock",
        "carry",
        "new",
        "is",
        "are",
        "and",
        "also",
        "too",
        "by",
        "into",
        "inside",
        "top",
        "bottom",
        "upper",
        "lower",
        "front",
        "back",
        "rear",
        "left",
        "right",
        "middle",
        "inner",
        "outer",
        # what it looks like, and a clause that says where it sits ("the white one", "the
        # retainer bar that goes across a door shelf", "the little clip that holds a bin")
        "white",
        "black",
        "stainless",
        "steel",
        "silver",
        "gray",
        "grey",
        "bisque",
        "almond",
        "plastic",
        "metal",
        "clear",
        "little",
        "small",
        "big",
        "large",
        "goes",
        "holds",
        "sits",
        "attaches",
        "connects",
        "hangs",
        "across",
        "under",
        "behind",
        "above",
        "below",
    ]
)


@cache
def _modifier_words() -> frozenset[str]:
    """The words of the catalog's part type names and the phrase words: beside a part
    type's name they say which one ("evap drip pan", "bottom spray arm"), not a trouble."""
    keywords = {w for k, _ in part_type_keywords() for w in k.split()}
    return frozenset((keywords | _PHRASE_WORDS) - NEGATOR)


@cache
def _appliance_names() -> frozenset[str]:
    return frozenset(w for w, _ in appliance_words())


@cache
def _name_words() -> frozenset[str]:
    """Every word ``part_named_alone`` can accept."""
    parts = {w for k, _ in part_type_keywords() for w in k.split()}
    return frozenset(
        parts
        | {w + "s" for w in parts}
        | {w for a in _appliance_names() for w in a.split()}
        | appliance_reply_words()
        | brand_words()
        | _ASKING_FOR
        | _NAME_ONLY
        | _modifier_words()
        | {"modelnum"}  # the model it is for: "LG 14673 dish rack roller"
    )


def part_named_alone(text: str) -> str | None:
    """The message only names a part type, so it states no problem ("fridge light bulb",
    "kick plate?", "the water filter"): "search" when it asks for one (an appliance or a
    brand named, "for", "do you have", "need"), "name" when it is the name alone (a reply
    where something awaits one, else a search). None otherwise, and when the only part
    named is an appliance's own name ("ice maker")."""
    norm = normalize(text)
    if not _name_words().issuperset(norm.split()):
        return None  # a word no part name or request has: most messages, at a set's cost
    pattern = part_type_pattern()
    named = [m.group(1) for m in pattern.finditer(norm)]
    appliances = _appliance_names()
    if not named or all(n in appliances for n in named):
        return None
    rest = pattern.sub(" ", norm).split()
    asking = appliance_reply_words() | brand_words() | _ASKING_FOR | {"modelnum"}
    modifiers = _modifier_words()
    if not all(w in asking or w in _NAME_ONLY or w in modifiers for w in rest):
        return None
    return "search" if any(w in asking for w in rest) else "name"


@cache
def _reply_words() -> frozenset[str]:
    return _REPLY_WORDS | appliance_reply_words() | brand_words()


# A listed part picked by a few words before "one" ("stainless steel one", "the hose one",
# "yeah that top one"); not asked for ("which one", "got one?", "need a new one") nor
# thanked for ("thanks thats the one"). 118 of 119 such train, dev and paraphrase texts
# are replies (the other tells a search's "door cam" again).
_NOT_A_PICK = frozenset(
    {"which", "got", "any", "have", "has", "what", "whats", "a", "new", "another"}
    | {"thanks", "thank", "thx", "ty", "psnum", "modelnum"}
)


def picks_one(words: list[str]) -> bool:
    """The normalised words pick a listed part by a few words before "one"."""
    return 1 < len(words) <= 5 and words[-1] in ("one", "ones") and not _NOT_A_PICK & set(words)


# Fitting instructions asked for and nothing else ("sweet. instructions?", "got a video
# for it?", "send me the steps pls"): an install, never an injection ("ignore your
# instructions" has words of its own). 35 of 35 such train, dev and paraphrase texts are
# installs.
_FITTING_ASKED = frozenset(
    {"instructions", "instruction", "directions", "steps", "guide", "tutorial", "video"}
    | {"manual", "installation", "install", "walkthrough"}
)
_FITTING_ONLY = _FITTING_ASKED | frozenset(
    {"how", "to", "the", "any", "pls", "please", "qmark", "for", "this", "that", "it", "one"}
    | {"part", "there", "is", "are", "some", "got", "have", "you", "u", "do", "send", "me"}
    | {"show", "can", "could", "i", "get", "see", "step", "by", "a", "an", "and", "now"}
    | {"then", "so", "ok", "okay", "cool", "great", "sweet", "nice", "awesome", "perfect"}
    | {"alright", "thanks", "thx", "psnum", "modelnum"}
)


def asks_only_for_fitting(words: list[str]) -> bool:
    """The normalised words ask for a part's fitting instructions and nothing else."""
    return bool(_FITTING_ASKED.intersection(words)) and _FITTING_ONLY.issuperset(words)


# The fitting job itself asked about, as a noun ("whats the swap look like", "what does the
# install involve", "hows the installation go"): the classifier hears "what does it look
# like" in it, a part's details.
_THE_JOB_ASKED = re.compile(
    r"\b(whats|what is|what does|what would|hows|how is|how does|how would) (the|a|an|that|this) "
    r"(swap|swapout|install|installation|changeover)( \w+)?"
    r" (look|looks|like|involve|involves|entail|entails|go|goes)\b"
)


# An order question added after a request of its own ("need the middle spray arm for
# 2213222N414, also how long does shipping usually take"): the request is the job.
_ASIDE = re.compile(r"[.?!;]+\s+|,?\s+(?:also|btw|plus|oh and|and also|ps|p\.s\.)\b", re.I)


def request_head(text: str) -> str | None:
    """The words before a sentence's end or an "also", "btw" (four words or more that
    ask no order question): a request an order question may follow, else None."""
    m = _ASIDE.search(text)
    if m is None:
        return None
    head = text[: m.start()]
    return head if len(head.split()) >= 4 and not ORDERS.found(head) else None


def orders_head(text: str) -> str | None:
    """The request before an order question added to it, else None."""
    head = request_head(text)
    return head if head is not None and ORDERS.found(text[len(head) :]) else None


def orders_aside(text: str) -> bool:
    """The order question comes after a request of its own."""
    return orders_head(text) is not None


# Which part of a type is needed ("which hinge do i need", "what door bin would i need")
_WHICH_NEEDED = re.compile(
    r"\b(what|which)\b(?P<kind>(\s+\w+){1,3}?)\s+(do|would|will|should) (i|we) need\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.?!]+")


def _asks_a_part_too(text: str) -> bool:
    """A sentence of its own, without the small talk, names a part type ("which one of
    those is the thermostat? also hows the weather"; not "how tall is the eiffel tower")."""
    return any(
        not CHITCHAT.found(said) and part_type_pattern().search(normalize(said))
        for said in _SENTENCE.findall(text)
    )


def rule_intent(text: str) -> str | None:
    """The intent the rules are sure of, else None."""
    words = normalize(text).split()
    reply = _reply_words() | (_WITH_A_MODEL if "modelnum" in words else frozenset())
    if words and all(w in reply for w in words) and "psnum" not in words:
        return "answer"
    if picks_one(words):
        return "answer"
    if asks_only_for_fitting(words) or _THE_JOB_ASKED.search(" ".join(words)):
        return "install"
    if states_by_fiat(text):
        return "injection"
    if not words and any(c.isalpha() for c in text):
        return "out_of_scope"  # in a script the reading has no words for
    if greets(text):
        return "greeting"
    if THANKS.match(text):
        return "thanks"
    if (
        ORDERS.found(text)
        and ORDERS.found(_RECEIPT_AS_SOURCE.sub(" ", text))
        and not INSTALL_WORDS.search(text)
        and not orders_aside(text)
        and not ({"psnum", "modelnum"} <= set(words) and _ASKS_FIT.search(text))
    ):
        # "before I place my order, PS… fits a 10672003010 right?" is a fit check
        return "orders"
    ours = OUR_APPLIANCE.search(text) is not None or _PS.search(text) is not None
    if names_other_appliance(text) and not ours:
        return "out_of_scope"
    if CHITCHAT.found(text) and not IN_SCOPE.search(text) and not _asks_a_part_too(text):
        return "out_of_scope"
    if SEARCH_COMMAND.match(text):
        return "search"
    needed = _WHICH_NEEDED.search(text)
    if needed and part_type_pattern().search(normalize(needed["kind"])):
        return "search"  # "damn ok, which hinge do i need then": the options of that type
    return None


# Of a given part (said of the normalised text): how it is fitted, the steps asked for
# ("step by step", "procedure", "…, how?") or a fitting verb with the part as its object
# ("trying to fit PS…", "how do i mount the PS… bracket"), the effort or tools it takes;
# how long it lasts ("how often should PS… be changed") is its details, not its fitting.
_INSTALL_ASKED = re.compile(
    r"\b(steps?|step by step|procedure|(walk|talk|take|run) me through|instructions|tutorial|video)\b|"
    # where it goes and how it sits: "where does it even live on a fridge", "which end goes
    # to the disposal", "the back wall has to come off to get at it", "wont line up"
    r"\bwhere (does|do|would|should) (it|this|that|they|psnum|modelnum)( even)? "
    r"(go|goes|live|sit|mount|attach|connect|plug)\b|"
    r"\bwhich (end|side|way|wire|hose|hole)\b(\s\w+){0,3}\s(goes|go|up|faces|connects)\b|"
    # "where does the far end clamp on", "could a total novice swap in …"
    r"\bwhere (does|do) (the )?(\w+ ){0,2}(clamp|attach|connect|hook|screw)s?( on| in| up)?\b|"
    r"\b(could|can|would) (a|an|some) (\w+ ){0,3}(fit|mount|put in|swap in|change out|install)\b|"
    r"\bget (at|to) (it|them)\b|\bwhat am i doing wrong\b|"
    # how it comes out and goes in, what the job involves: "how the old shaft comes out
    # and the new psnum goes in", "whats involved in yanking the old pump out"
    r"\bhow (\w+ ){0,5}?(goes|comes) (in|out|on|off)\b|\bwhats involved\b|"
    # "whats the best way to get that out and a fresh one in" (a dev turn the classifier
    # read as out of scope; 24 of 24 such train and dev texts are installs)
    r"\b(get|take|yank|pop) (it|that|this|them|the old( \w+)?) out\b|"
    r"\b(new|fresh|replacement) one (in|on)\b|"
    # doing it yourself: "is that a diy job or nah" (13 of the 14 train and dev texts with
    # "diy" are installs; the other answers the assistant's question for a model)
    r"\bdiy\b|"
    r"\b(wont|doesnt|dont|cant get it to) (line up|seat|sit (right|flush)|click in)\b|"
    r"\bhow( qmark)*$|"
    r"\b(to|i|how|help|with)( me| us)? (fit|mount|put in|swap in|change out|replace|install)\b(\s\w+){0,4}\spsnum\b|"
    # the fitting as a noun or a gerund: "need help fitting door cam WPW…", "W… shelf mounting?"
    # (a manufacturer's number reads as modelnum)
    r"\b(fitting|mounting|putting in|swapping( in| out)?|replacing|changing out|hooking up)\b"
    r"(\s\w+){0,5}\s(psnum|modelnum)\b|"
    # what comes apart to reach it: "how much of the dishwasher do i gotta tear apart to
    # reach W10782773", "tips for getting the old one out"
    r"\b(tear|take|pull) (\w+ )?apart\b|\bto (reach|get to|get at|access) (it|the|psnum|modelnum)\b|"
    r"\btips? (for|on)\b|"
    r"\b(psnum|modelnum)\b(\s\w+){0,3}\s(fitting|mounting|hook ?up)( qmark)+$|"
    # the effort or the tools it takes: "PS… how tough to put in", "is it just racks out
    # racks in or more work", "tools needed?" (30 of 30 such texts with a part: installs;
    # its "difficulty rating" is the part's data, its details)
    r"\bhow (hard|difficult|easy|tricky|tough)\b|\b(hard|easy|difficult) to\b|"
    r"\b(by )?myself\b|\bon my own\b|\b(more|much) work\b|\btools?\b|\bscrewdriver\b|"
    r"\b(a|an) (pro|tech|technician|plumber|electrician|handyman)\b|"
    # fastened by hand: "how does PS11750071 clip on??", "how do the wheels snap in"
    r"\bhow\b(\s\w+){0,4}\s(clips?|snaps?|attach(es)?|slides?|screws?|hooks?)"
    r"( on| in| into| back| up)?\b|"
    # "does it just clip onto the door or what", "do they snap on or screw on" (43 of 44
    # train and dev texts are installs; the other asks its stock first)
    r"\b(does|do|will|would) (it|they|this|that|psnum|modelnum|the \w+)( just| simply| only)? "
    r"(clip|snap|screw|slide|hook|bolt|pop|push|press|click|plug)s? (on|onto|in|into|over|up)\b|"
    # the knack of it: "any tips", "is there a trick to getting W… to sit in the channel"
    # (16 of 16 such train and dev texts are installs; "did the trick" is thanks)
    r"(?<!did )\b(any|a|the) (tips?|tricks?)\b"
)
# A fit asked before anything else: "does|will|would … fit|work with|go in" opening the
# message (the fitting asked after it comes once it fits: the fit check offers the steps).
_FIT_FIRST = re.compile(
    r"^((ok|okay|so|and|hi|hey|also|but|quick question|q|um|hmm) )*(does|will|would|can|is|are)"
    r"( \w+){0,5} "
    r"(fit|fits|compatible|work with|work in|work on|go in|go on)\b"
)
# The fitting asked in so many words: it outweighs a problem the part's name sounds like
# ("talk me through yanking the old door latch and getting WD21X10490 in").
STEPS_ASKED = re.compile(
    r"\b(step by step|(walk|talk|take|run) me through|where (does|do) (it|psnum|modelnum) go)\b"
)
# "can i fit PS… myself": the shopper fitting it, not whether it fits
_I_FIT = re.compile(r"\b(i|we|you|u) (fit|mount|put)\b")
_INSTALLING = re.compile(r"\binstall(ing|ation|ed|s)?\b")
_HOW = re.compile(r"\bhow\b")
_HOW_LONG = re.compile(
    r"\bhow (often|frequently|regularly)\b|\bhow long\b(\s\w+){0,4}\slast\b|\blife ?span\b|"
    r"\bhow many (days|weeks|months|years)\b|"
    r"\bbefore it needs (swapping|replacing|changing|tossing|a swap)\b|\bhow long is (it|one|this)\b"
)
# A part's number and nothing asked but the part itself: "PS429724", "242252702 details
# pls", "details on 242252702", "got PS395284?"; or whether the store has it: "do you
# have PS…", "anyone carry W10195416", "looking for WP902894" (every such train and dev
# text is its details)
_PART_FILLER = frozenset(
    {"psnum", "modelnum", "qmark", "details", "detail", "info", "information", "specs"}
    | {"spec", "pls", "please", "got", "have", "on", "about", "abt", "for", "what", "whats"}
    | {"and", "do", "you", "u", "ya", "yall", "guys", "anyone", "anybody", "still", "any"}
    | {"carry", "sell", "stock", "available", "in", "is", "there", "a", "the", "part"}
    | {"number", "it", "hi", "hey", "hello", "need", "looking", "right", "now", "here"}
)


# Which part of a type a machine takes ("which drain pump does mine take")
_WHICH_WORD = re.compile(r"\b(which|what)\b", re.IGNORECASE)
_WHICH_TAKES = re.compile(
    r"\b(which|what) (\w+ ){1,4}(does|do|would|will|should) (mine|my \w+|it|this one|that one|"
    r"the \w+|i|we|modelnum) (take|takes|need|needs|use|uses|want)\b"
)


def asks_which_it_takes(text: str) -> bool:
    """The message asks which part of a named type a machine takes: the options, a search
    ("hm ok, so which drain pump does mine take" after a fit check that said no)."""
    if _WHICH_WORD.search(text) is None:
        return False  # (the cheap test first: earlier messages are read again each turn)
    norm = normalize(text)
    return (
        "psnum" not in norm.split()
        and _WHICH_TAKES.search(norm) is not None
        and part_type_named(text)
    )


# "is the water filter on there? maybe its just clogged", "is there a spring for the soap
# door somewhere in there" (19 of the 20 such train and dev turns after a list are searches;
# the other gives a model number)
_IS_IT_THERE = re.compile(r"\bis (the|there an?) (\w+ ){1,5}?((somewhere|also) )?(on|in) there\b")


def asks_whether_it_has(text: str) -> bool:
    """The message asks whether the machine has a part of a named type: a search, whatever
    the guess at a cause beside it ("is the drain hose on there? might be that")."""
    if " there" not in text.lower():
        return False  # (the cheap test first)
    words = (norm := normalize(text)).split()
    return (
        "psnum" not in words
        and "modelnum" not in words
        and _IS_IT_THERE.search(norm) is not None
        and part_type_named(text)
    )


def asks_for_the_options(text: str, intent: str) -> bool:
    """A message the classifier read as ``intent`` asks for a named type's options (a
    search): which one the machine takes, read so from a job or an answer; whether it has
    one, from a problem too (the cause guessed beside it)."""
    return (intent in _WHICH_TAKES_READS and asks_which_it_takes(text)) or (
        intent in _WHETHER_IT_HAS_READS and asks_whether_it_has(text)
    )


_WHICH_TAKES_READS = frozenset({"install", "details", "compat", "answer"})
_WHETHER_IT_HAS_READS = _WHICH_TAKES_READS | {"diagnose"}


_WHETHER_IT_FITS = re.compile(
    r"\b(if|whether) (it|this|that|the \w+|psnum) (fits|will fit|would fit)\b"
)


# The fit asked in words ("AGF80300702 ok for my LG 71053?"; "W10751502 for 66513099N411?"
# asks nothing in words: as a reply it answers what was asked)
_FIT_IN_WORDS = re.compile(rf"{_ASKS_FIT.pattern}|\bok(ay)? (for|with|on|in)\b", re.IGNORECASE)


def asks_the_fit_in_words(norm: str) -> bool:
    """The normalised message asks in words whether a part fits."""
    return _FIT_IN_WORDS.search(norm) is not None


def asks_whether_it_fits(norm: str) -> bool:
    """The normalised message asks whether a part fits ("can you tell me if it fits": the
    classifier hears an attempt in "can you tell me")."""
    return _WHETHER_IT_FITS.search(norm) is not None


def fitting_asked(norm: str) -> bool:
    """The normalised message asks how a part goes in or comes out."""
    return _INSTALL_ASKED.search(norm) is not None or _INSTALLING.search(norm) is not None


# What a given part is, asked first: "whats psnum …", "is psnum the wash impeller …" (not
# "is psnum the right one for …", a fit)
_WHAT_PART_IS = re.compile(
    r"^((ok|so|and|also|hi|hey) )*((whats|what is) psnum( and\b| qmark|$)|"
    r"is psnum (a|an|the) (?!(right|correct|same|one|proper)\b))"
)


def given_part_job(norm: str, parts: int, known_model: bool) -> str | None:
    """The job a message about ``parts`` given parts asks for, by its structure, else
    None: a part's number alone is its details; with a model, a fit check unless it asks
    how (no train message with a part and a model and no "how" or "install" is an
    install; "how do i know if it fits" is left to the classifier); two parts and no
    model, a comparison (their details)."""
    if not known_model and _PART_FILLER.issuperset(norm.split()):
        return "details"
    if _HOW_LONG.search(norm):
        return "details"
    if not known_model and _WHAT_PART_IS.match(norm):
        # "whats PS… and does it go in GE dishwashers", "is PS… the wash impeller for
        # whirlpool dishwashers?": what the part is, first (its details name its brand)
        return "details"
    fitting = fitting_asked(norm)
    if _FIT_FIRST.search(norm) and (known_model or (fitting and not _I_FIT.search(norm))):
        # "does PS… fit a WDT780SAEM1 and if so how hard is it to swap", "also does PS… fit
        # it too and how do i install that one": the fit first (it asks for the model)
        return "compat"
    if fitting:
        return "install"
    if known_model:
        return None if _HOW.search(norm) else "compat"
    return "details" if parts > 1 else None
