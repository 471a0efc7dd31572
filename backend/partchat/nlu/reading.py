"""A message's full reading: the classifier's intent and symptoms, the catalog's numbers.

The catalog decides what numbers are (``extraction.extract``); the classifier decides
what the shopper wants and which symptoms they describe in their own words. Symptom
slugs are appliance-free ("leaking"); the appliance of the message, else of the session,
picks the catalog symptom ("refrigerator/leaking").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from partchat.catalog.types import Appliance, CatalogReader, Symptom
from partchat.nlu.extraction import Extraction, extract

from .denials import denied_slugs
from .dialogue import ANSWER, JOBS, only_gives_a_model, unawaited
from .features import (
    FITTED_IN,
    NEGATOR,
    fine_clauses,
    normalize,
    part_type_named,
    without_fine_clauses,
    without_negations,
)
from .model import Scores, Understanding
from .rules import (
    ASKS_FOR_A_PART,
    AVAILABILITY,
    INSTALL_WORDS,
    PRICE_QUESTION,
    STEPS_ASKED,
    asks,
    asks_for_the_options,
    asks_only_a_price,
    asks_the_fit_in_words,
    asks_whether_it_fits,
    fitting_asked,
    given_part_job,
    part_named_alone,
    request_head,
    rule_intent,
)
from .temperatures import one_state_each, settle, states, warm_said_instead, warmth_of_its_own

# Intents whose messages can describe a symptom ("a door gasket for my leaking fridge"
# still searches, but records the symptom). Elsewhere a symptom word names the part ("how
# do I swap the door latch", "does the heating element fit"): no install, part details or
# fit check message of the train split has a symptom.
_SYMPTOM_INTENTS = frozenset({"diagnose", "search", "answer"})


# The shopper's own earlier words set aside: "ignore my last message", "forget what i said
# about the pump", "disregard my earlier question" (the rules' INJECTION names the rules).
_OWN_WORDS_ASIDE = re.compile(
    r"\b(ignore|disregard|forget|scratch|never ?mind)\s+(that|all that|my|what i)\b(\s\w+){0,2}?"
    r"\s*(message|msg|question|post|text|comment|said|wrote|typed|asked|one|bit|last)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Tuning:
    """The reading's decision thresholds. Chosen by grouped 5-fold cross-validation on
    the train split (``bench/nlu_cv.py``), not on dev: the values that read held-out
    phrasings best, not the ones that fit the messages tuned on."""

    some_diagnose: float = 0.4
    """A problem description's symptoms count when the classifier gives "some symptom"
    this much: under it, a problem the catalog has no symptom for (a bad taste, mould,
    a loose handle) reads as none, not as the nearest symptom."""
    some_answer: float = 0.8
    some_elsewhere: float = 0.5
    match_floor: float = 0.15
    """The catalog's phrase matches count where the classifier gives their symptom this
    much (given there is one)."""
    clause_sure: float = 0.8
    """A clause's own symptom counts when the clause surely has one, and surely this one."""
    clause_words: int = 2
    """A clause this long at least can state a symptom of its own ("also loud": 1)."""
    second_own_clause: bool = True
    """The classifier's second slug counts only where a clause of the message, read
    alone, has it first: two symptoms are stated apart ("not draining, and loud"), while
    one phrase the classifier cannot place ("too cold even on setting 1": the fridge's or
    the freezer's?) splits its probability between two slugs without naming both."""

    fine_not_first: bool = True
    """The classifier's first slug gives way to the complaint's where a clause that says
    all is fine, read alone, has it first ("no ice, water dispenser works fine")."""
    fine_complaint: float = 0.5
    """… where the classifier gives the complaint alone, and the fine clause alone,
    "some symptom" this much."""

    added_sure: float = 0.5
    """A clause that says it adds ("no light either") states its symptom at this."""
    warmth_own_clause: bool = True
    """So does a clause that names a compartment and its warmth ("… and the freezer side
    feels kinda warm"): beside another symptom, a warm compartment is often told by its
    effect, and its clause alone reads at 0.7-0.8 (``temperatures.warmth_of_its_own``)."""

    one_state_each: bool = True
    """The temperature symptoms agree: one state a compartment, both warm as one symptom
    (``temperatures.one_state_each``)."""
    odour: bool = True
    """A message's clauses that tell a smell state no symptom but a smell's own
    (``_beyond_odour``): the refrigerator's vocabulary has no smell."""
    warm_where_said: bool = True
    """A single compartment's *too warm* is the one the words say warm
    (``temperatures.warm_said_instead``)."""
    part_dead: bool = True
    """*Will not start* beside another symptom needs a clause that names no part and reads
    as it (``_says_not_start``)."""
    temperatures: bool = True
    """The temperatures a message reports settle its temperature symptoms
    (``temperatures.settle``): "fridge 50, freezer 35" has both compartments warm."""

    def some(self, intent: str) -> float:
        return {"diagnose": self.some_diagnose, ANSWER: self.some_answer}.get(
            intent, self.some_elsewhere
        )


TUNING = Tuning()
# The words that open a part type's name said to point at one in view ("the pump").
_POINTING = frozenset({"the", "that", "this"})
# An unsure *out of scope* that names one of the catalog's part types is a search.
_UNSURE_SCOPE = 0.6
# A clause that says it adds to what was said before ("no light either", "loud too").
_ADDS = re.compile(r"\b(?:too|either|as well)\W*$", re.IGNORECASE)
# "+", "&" and a lone "n" are "and" as shoppers type it ("fridge+freezer warm", "tiny
# cubes + water trickles", "fridge n freezer not cold").
# ("both the fridge and the freezer are warm" is one clause: two compartments, one state)
_CLAUSES = re.compile(
    r"[,.;!?+&]+|\b(?:and|n)\b(?!\s+(?:the\s+|my\s+)?(?:freezer|fridge|refrigerator)s?"
    r"(?:\s+(?:side|part|section|compartment))?\s+(?:are|were|r|both)\b)|\b(?:but|also|plus|then)\b|"
    # a consequence ("door wont latch so it wont even start")
    r"\bso\b(?=\s+(?:it|its|it's|now|the|that|nothing)\b)",
    re.IGNORECASE,
)
_COMES_WITH = re.compile(r"\b(come|comes|coming) (w|with)\b|\bincluded\b|\bin the box\b")
_AND_SIGN = re.compile(r"\s*\+\s*|\s+n\s+", re.IGNORECASE)
# "is PS11731660 the water supply tube for KDTE334GPS0": a part and a model in a question
# that asks whether one goes with the other.
# Which parts of a type would fit, asked with no part given: the options, a search (also
# right after the model: "model number WDT780SAEM1, which door latch goes on it")
_WHICH_FIT = re.compile(r"^((so|ok|and|hi|hey) )*(what|which)\b|\bmodelnum (what|which)\b")
_PART_FOR_MODEL = re.compile(
    r"^(is|does|do|will|would|can|could|should)\b.*\bpsnum\b.*"
    r"\b(for|with|in|on)( (a|an|my|the|our))?( \w+)? modelnum\b|"
    # "PS8728266 handle for bosch SHE43F12UC, fits?", "PS… for MODEL yes or no", "ok?"
    r"(?=.*\bpsnum\b)(?=.*\bmodelnum\b).*\b(fits?|compatib\w*|yes or no|y n|(ok|okay) qmark)\b"
)


# Whether a given part goes with something, in words the classifier weighs against other
# jobs' ("or do I need something else", "go in" of a problem): the words decide ("fit" of
# a part, "can I fit PS… myself", is installing it).
_FIT_QUESTION = re.compile(
    r"\b(fits|fit (my|a|an|the|our|this|that|in|on|with|modelnum)|compatible|yes or no|(right|correct) (one|part|size)|(ok|okay|good) (for|with)"
    # "will it go in a samsung fridge"; "the gasket that goes on the bottom of the door"
    # says which part, not where it fits
    r"|(?<!that )(?<!which )go(es)? (in|on|into|with)|work(s)? (with|in|on))\b"
)
# A part suspected of a problem: "could that be the evap fan motor", "is it my drain pump"
# (90 of 109 such train and dev texts are diagnoses, none a search).
_SUSPECTS_A_PART = re.compile(
    r"\b(could|might|would|can) (that|it|this) be\b|\bis (it|that|this) (the|my)\b"
)
_MAY_ASK_FIT = frozenset({"search", "details", ANSWER, "install", "diagnose"})
# "hows it go on", "how does the spray arm go in": how a part goes on is installing it.
# A question of how, not whether: one that opens with it, or "… how do i fit the run
# capacitor" after the part and the model
_HOW_ASKED = re.compile(r"^how\b|\bhow (do|does|would|should|can|could|to|d)( i| we| you)? fit\b")
_HOW_LONG = re.compile(r"\bhow long\b")
_HOW_IT_GOES = re.compile(r"\bhows?\b(\W+\w+){0,3}\W+(go|goes)\W+(on|in|into|back)\b")
# What a message about a given part can be read as but is not, by these rules: a price
# asked is the part's details (the classifier hears "how much for … filter" as a search).
# A question about a given part reads as its details only where the classifier finds no
# problem more likely than one: a problem it cannot name ("the dishwasher is roaring, is
# it the pump PS…?") still asks for a diagnosis.
_NO_PROBLEM = 0.5
_PRICE_READS = frozenset({"search", "diagnose", ANSWER, "out_of_scope", "thanks"})
# (no train or dev text with a given part is out of scope or a greeting: "do you have
# PS…" and "anyone have W10195416?" are not "do you have feelings" nor "anyone there?")
_GIVEN_PART_READS = frozenset(
    {"search", "details", "compat", "install", "diagnose", ANSWER, "orders"}
    | {"out_of_scope", "greeting"}
)


# A smell: the vocabulary has none for the refrigerator ("reeks like a dead animal", "smells
# bad under the fridge" name no symptom), and the words around it ("dead", "warm", "rotten")
# are not the appliance's state.
_ODOUR = re.compile(
    r"\b(?:smell\w*|stink\w*|stank|reek\w*|odou?rs?|stench\w*|musty|mildew\w*|whiff)\b",
    re.IGNORECASE,
)


@dataclass
class Reading:
    intent: str
    confidence: float
    found: Extraction
    symptom_ids: list[str] = field(default_factory=list)
    denied: list[str] = field(default_factory=list)
    """The labels of the symptoms the message says are not the problem ("it's not leaking")."""


class _Scorer:
    """The model's scores of each text, computed once within one reading: several checks
    read the same complaint and clauses."""

    __slots__ = ("_seen", "_understanding")

    def __init__(self, understanding: Understanding) -> None:
        self._understanding = understanding
        self._seen: dict[str, Scores] = {}

    def score(self, text: str) -> Scores:
        scores = self._seen.get(text)
        if scores is None:
            scores = self._seen[text] = self._understanding.score(text)
        return scores


def slug_of(symptom_id: str) -> str:
    return symptom_id.split("/", 1)[1]


# Words that open a message to take something back or pause, and say nothing of its job
_INTERJECTION = re.compile(
    r"^\W*((actually|wait|hold on|hang on|oh wait|hmm+|oops)\b\W*)+(?=\w)", re.IGNORECASE
)


def without_interjection(text: str) -> str:
    """The message without the words that open it to take back or pause ("actually wait
    how hard is it to put in" → "how hard is it to put in")."""
    return _INTERJECTION.sub("", text, count=1)


async def read(
    text: str,
    catalog: CatalogReader,
    understanding: Understanding,
    *,
    context_appliance: Appliance | None = None,
    tuning: Tuning = TUNING,
    awaited: bool = True,
) -> Reading:
    """``awaited``: the assistant asked something or listed things to pick from, so the
    message may be a bare *answer*; when not, the classifier's *answer* is its next
    intent if that is a job (``dialogue.unawaited``: a first message starts a job)."""
    found = await extract(text, catalog, symptoms=False)
    scorer = _Scorer(understanding)
    # "actually wait how hard is it to put in": the classifier reads what follows the
    # interjection
    scores = scorer.score(without_interjection(text))
    ruled = rule_intent(text)
    if ruled == "out_of_scope" and any(m["known"] for m in found["models"]):
        # "Kenmore 2213222N414 is not draining …, ran the disposal": a model of ours,
        # whatever other machine the message mentions
        ruled = None
    intent = ruled or (scores.intent if awaited else unawaited(scores))
    if intent == "orders" and (head := request_head(text)) is not None:
        # "bosch SHE53T52UC - dishes coming out gritty. what do i need to replace? also do
        # you ship to canada": the request before the order question is the job, and its
        # problem is read as one
        asked = scorer.score(head).intent
        if asked in JOBS:
            intent = asked
    unsure_scope = ruled is None and intent == "out_of_scope" and scores.confidence < _UNSURE_SCOPE
    if unsure_scope and part_type_named(text):
        intent = "search"  # "what rinse aid parts do you have": a part of ours
    norm = normalize(text)
    if ruled is None and intent == "injection" and asks_whether_it_fits(norm):
        # "can you tell me if it fits": a fit asked, whatever "can you tell me" sounds like
        intent = "compat"
    if ruled is None and intent == "injection" and _OWN_WORDS_ASIDE.search(text):
        # "ignore my last message, the model is …": the shopper's own words set aside, not
        # the rules (3 of 3 train and dev texts); the rest of the message is the intent
        rest = scorer.score(_OWN_WORDS_ASIDE.sub(" ", text))
        intent = rest.intent if rest.intent != "injection" else rest.runner_up
    if unsure_scope and fitting_asked(norm):
        intent = "install"  # "whats the best way to get that out and a fresh one in"
    elif (
        ruled is None
        and intent == "details"
        and (fitting_asked(norm) or FITTED_IN.search(norm))
        and not (PRICE_QUESTION.search(norm) or AVAILABILITY.search(text) or _HOW_LONG.search(norm))
    ):
        # "is that diy-able, what are the steps", "whats the easiest way to fit that in":
        # the fitting asked, and nothing a part's details answer (977 of the train and dev
        # texts that ask it are installs; the 4 details ask a price, its stock or how long
        # it takes too; of the 162 more that put a part in with any verb, none are details)
        intent = "install"
    elif (
        ruled is None
        and intent == "install"
        and _COMES_WITH.search(norm)
        and not (fitting_asked(norm) or INSTALL_WORDS.search(text) or "how" in norm.split())
    ):
        # "does the defrost timer 5304518034 come with screws": what is in the box (45 of
        # the 51 train texts that ask it are details; the installs ask how, or to mount)
        intent = "details"
    if (
        ruled is None
        and intent in ("diagnose", "details")
        and AVAILABILITY.search(text)
        and not found["part_numbers"]
        and not found["unknown_part_numbers"]
        and part_type_named(text)
    ):
        # "do you have drain pumps? it's full of water": the part first; with no part
        # given, no one part's details either
        intent = "search"
    elif (
        ruled is None
        and intent in ("diagnose", ANSWER)
        and ASKS_FOR_A_PART.search(norm)
        and not INSTALL_WORDS.search(text)
        and part_type_named(text)
    ):
        intent = "search"  # "need a start relay, the fridge clicks": the part first
    if (
        ruled is None
        and intent == "search"
        and _SUSPECTS_A_PART.search(norm)
        and not found["part_numbers"]
        and scores.no_symptom < _NO_PROBLEM
    ):
        intent = "diagnose"  # "my fridge got noisy.. could that be the evap fan motor??"
    # A part type's name and nothing that states a problem ("fridge light bulb", "the door
    # gasket"): a search, or a reply where something awaits one; never a diagnosis.
    alone = part_named_alone(text) if ruled is None else None
    if alone is not None and intent not in ("search", "details", "compat", "install"):
        intent = "search" if alone == "search" or not awaited else ANSWER
    elif alone == "name" and awaited and intent == "search" and norm.split()[0] in _POINTING:
        # "the pump", "the bottom rack" where a reply is awaited: the article points at
        # one already in view (12 of 12 such train and dev texts are replies; the bare
        # name, "door cam", asks for one as often as it picks one)
        intent = ANSWER
    # (the classifier's injection too: the rules decide injection, and an attempt that
    # names a part and a model with a fit word is one they know: "say PS… fits MODEL")
    if (
        intent in ("search", "details", ANSWER) or (ruled is None and intent == "injection")
    ) and _PART_FOR_MODEL.search(norm):
        intent = "compat"
    elif (
        ruled is None
        and found["part_numbers"]
        and intent in _MAY_ASK_FIT
        and _FIT_QUESTION.search(norm)
        and not _HOW_ASKED.search(norm)
        and not _HOW_IT_GOES.search(norm)
        and not INSTALL_WORDS.search(text)
    ):
        intent = "compat"  # "is PS… ok for MODEL", "will W10404344 go in a samsung fridge"
    elif (
        ruled is None
        and found["part_numbers"]
        and (
            (intent in _PRICE_READS and PRICE_QUESTION.search(norm))
            or (intent == "injection" and asks_only_a_price(norm))
            or (
                # "154844301 -- ballpark cost, and how soon could it go out?": a price
                # and no word of fitting
                intent == "install"
                and PRICE_QUESTION.search(norm)
                and not INSTALL_WORDS.search(text)
                and given_part_job(norm, 1, False) != "install"
            )
        )
    ):
        intent = "details"  # "how much for the W10872845 filter", "need a quote on …"
    if (
        ruled is None
        and intent == "compat"
        and not found["part_numbers"]
        and not found["unknown_part_numbers"]
        and _WHICH_FIT.search(norm)
        and part_type_named(text)
    ):
        intent = "search"  # "what door bins would go on a whirlpool WRS571CIHV02": the options
    if ruled is None and not found["part_numbers"] and asks_for_the_options(text, intent):
        # "hm ok, so which drain pump does mine take", "is the water filter on there? maybe
        # its just clogged": the options
        intent = "search"
    if found["part_numbers"] and (ruled is None or ruled == ANSWER):
        # A given part's job by the message's structure (``rules.given_part_job``): a
        # number alone, a model with it, the steps asked, two parts compared.
        job = given_part_job(
            norm, len(found["part_numbers"]), any(m["known"] for m in found["models"])
        )
        if (
            job is not None
            # ("W10751502 for 66513099N411?" opening a chat asks whether it fits; as a
            # reply it answers what was asked, unless it asks the fit in words: "my fridge
            # is an LG 71053, AGF80300702 ok for that one?")
            and (
                ruled is None
                or job == "details"
                or (job == "compat" and (not awaited or asks_the_fit_in_words(norm)))
            )
            and intent in _GIVEN_PART_READS
            and (
                intent != "diagnose"
                or scores.no_symptom >= _NO_PROBLEM
                or (job == "install" and STEPS_ASKED.search(norm) is not None)
            )
        ):
            intent = job
    if (
        ruled is None
        and awaited
        and intent == "details"
        and not found["part_numbers"]
        and not found["unknown_part_numbers"]
        and "?" not in text
        and only_gives_a_model(text)
    ):
        # "BSS25JSTGSS is what the label shows": a model and filler, no part to detail
        intent = ANSWER
    all_symptoms = await catalog.symptoms()
    appliance = found["appliance"] or context_appliance
    # The catalog's phrases ("dead", "puddle", "fan noise") count where the classifier
    # finds their symptom plausible at all: "the water dispenser has been dead" is not
    # *Will not start*; and only in messages that can describe one ("an oven that
    # clicks", "PS… price?" are not looked up).
    # The message without its clauses that say all is fine ("but the freezer is fine"):
    # those state no symptom of their own, nor a catalog phrase ("light still works tho").
    complaint = without_fine_clauses(text)
    phrases = (
        await catalog.match_symptoms(_AND_SIGN.sub(" and ", complaint or text), appliance)
        if intent in _SYMPTOM_INTENTS and 1.0 - scores.no_symptom >= tuning.match_floor
        else []
    )
    odds = scores.symptom_odds
    matched = [s["id"] for s in phrases if odds.get(slug_of(s["id"]), 0.0) >= tuning.match_floor]
    learnt: list[str] = []
    # The classifier's symptoms count when it is this sure that there is one at all.
    sure = 1.0 - scores.no_symptom >= tuning.some(intent)
    if tuning.temperatures and not sure:
        # A reading out of its compartment's range is a problem stated, in any words
        # around it ("bottom shelf says 52").
        sure = any(state != "ok" for state in states(text).values())
    slugs = list(scores.slugs)
    told = scorer.score(complaint) if complaint is not None and slugs else None
    # "ice dispenser not working, water still works": the classifier's first slug is the
    # one the fine clause names, read alone; the complaint's own comes first. Only where
    # the complaint surely states a symptom, and not that one in any of its clauses
    # ("isn't running at all, power to the outlet is fine"), nor one the reported
    # temperatures rule out ("the freezer is at 0°F").
    if (
        complaint is not None
        and told is not None
        and tuning.fine_not_first
        and told.slugs
        and 1.0 - told.no_symptom >= tuning.fine_complaint
        and slugs[0] not in told.slugs
        and slugs[0] not in _clause_slugs_all(complaint, scorer)
        and slugs[0] in _fine_tops(text, scorer, tuning.fine_complaint)
        and told.slugs[0] in settle([told.slugs[0]], states(text))
    ):
        slugs = [told.slugs[0], *(g for g in slugs if g != told.slugs[0])]
    if told is not None and len(slugs) > 1:
        # "warm up top, but the freezer is fine": a symptom only the fine clause suggests
        # is not one, first or second.
        kept = told.slugs
        slugs = [g for g in slugs if g in kept] or slugs[:1]
    if len(slugs) > 1 and tuning.second_own_clause:
        tops = _clause_tops(complaint or text, scorer)
        slugs = [g for i, g in enumerate(slugs) if i == 0 or g in tops]
    if intent in _SYMPTOM_INTENTS and sure:
        slugs += _clause_slugs(
            complaint or text,
            scorer,
            slugs,
            tuning.clause_sure,
            tuning.clause_words,
            tuning.added_sure,
            tuning.warmth_own_clause,
        )
        if tuning.temperatures:
            slugs = settle(slugs, states(text))
        learnt = [s for s in (_symptom_for(g, appliance, all_symptoms) for g in slugs) if s]
    if appliance is None:
        # No appliance said: the symptoms' own appliance, when they agree on one
        # ("ice maker" is a refrigerator's), decides the phrases that both have. A
        # phrase of a symptom both appliances have implies nothing ("no lights" is in
        # the dishwasher's *Will not start* only, but a fridge can have none either).
        matched = [i for i in matched if _symptom_for(slug_of(i), None, all_symptoms)]
        implied = _one_appliance(learnt) or _one_appliance(matched)
        if implied is not None:
            matched = [i for i in matched if i.startswith(implied + "/")]
            learnt += (
                [
                    s
                    for g in slugs
                    if (s := _symptom_for(g, implied, all_symptoms)) and s not in learnt
                ]
                if learnt or sure
                else []
            )
    if tuning.temperatures and (measured := states(text)):
        # A temperature phrase ("fridge warm") the readings settled otherwise is not one.
        settled = set(settle([slug_of(i) for i in matched], measured)) | {
            slug_of(i) for i in learnt
        }
        matched = [i for i in matched if slug_of(i) in settled]
    ids = list(dict.fromkeys([*learnt, *matched]))
    if tuning.warm_where_said and (swap := warm_said_instead([slug_of(i) for i in ids], text)):
        # "the freezer section is warm but the top part is cold": the fridge's *too warm*
        # the classifier confused is the freezer's (the temperature slugs are the fridge's).
        ids = list(
            dict.fromkeys(f"refrigerator/{swap[1]}" if slug_of(i) == swap[0] else i for i in ids)
        )
    if tuning.one_state_each and len(ids) > 1:
        agreed = set(one_state_each([slug_of(i) for i in ids], odds))
        ids = [i for i in ids if slug_of(i) in agreed]
    denied = denied_slugs(text, all_symptoms)
    if denied:
        ids = [i for i in ids if slug_of(i) not in denied]
    if ids and (stripped := without_negations(text)) is not None:
        # "no click when I shut it", "not leaking anymore, but now it's loud": a symptom
        # that is a thing present (no phrasing of it is a negation) counts only where the
        # message still says it once the negations and what they govern are taken out.
        negatable = _negatable(all_symptoms)
        if any(i in negatable for i in ids):
            said = scorer.score(stripped)
            backed = {*said.slugs, *_clause_tops(stripped, scorer)}
            ids = [i for i in ids if i not in negatable or slug_of(i) in backed]
    if ids and tuning.odour and _ODOUR.search(text):
        ids = _beyond_odour(ids, text, scorer, all_symptoms, tuning.some(intent))
    # "ice maker totally dead, no ice at all": a part dead is that part's symptom; *Will not
    # start* is the whole appliance's, kept only where a clause that names no part reads as it.
    if (
        tuning.part_dead
        and len(ids) > 1
        and any(slug_of(i) == _NOT_START for i in ids)
        and not _says_not_start(complaint or text, scorer, tuning.some(intent))
    ):
        ids = [i for i in ids if slug_of(i) != _NOT_START]
    if len(ids) > 1 and any(slug_of(i) == _NOT_START for i in ids) and _HUMS.search(text):
        # "just hums when i hit start but no water comes in": a machine that hums has
        # started; its other symptom is the problem (36 of 36 such train and dev texts)
        ids = [i for i in ids if slug_of(i) != _NOT_START]
    if alone is not None:
        ids = []  # a part's name states no problem ("fridge light bulb")
    elif intent == ANSWER and learnt and 1.0 - scores.no_symptom >= tuning.clause_sure:
        intent = "diagnose"  # "it's not draining" reads like "it's a …", but states a problem
    if (
        ruled is None
        and intent in ("search", "diagnose", "out_of_scope", "greeting")
        and not ids
        and found["part_numbers"]
        and not any(m["known"] for m in found["models"])
        and asks(norm)
        and scores.no_symptom >= _NO_PROBLEM
    ):
        # A question about a given part that states no problem ("is PS… the gasket for the
        # bottom of the door?", "W11384469 - is that the fridge door switch?"): its details.
        intent = "details"
    by_id = {s["id"]: s for s in all_symptoms}
    found["symptoms"] = list(dict.fromkeys(by_id[i]["label"] for i in ids if i in by_id))
    labels = (
        sorted({s["label"] for s in all_symptoms if slug_of(s["id"]) in denied}) if denied else []
    )
    return Reading(intent, scores.confidence, found, ids, labels)


def _clause_slugs(
    text: str,
    scorer: _Scorer,
    have: list[str],
    sure: float,
    words: int,
    added: float = 1.0,
    warm_own: bool = False,
) -> list[str]:
    """Symptoms that a clause of their own states plainly ("leaking AND really loud"):
    over the whole message the slugs share one softmax, so a second one is often under
    its threshold. A clause that says it adds ("no light either", "loud too") needs only
    ``added``."""
    clauses = [c for c in _CLAUSES.split(text) if len(c.split()) >= words]
    if len(clauses) < 2:
        return []
    out: list[str] = []
    for c in clauses:
        cs = scorer.score(c)
        if not cs.slugs:
            continue
        top = cs.slugs[0]
        # (a clause that says it adds, or one that names a compartment and its warmth:
        # "and the freezer side feels kinda warm")
        says = _ADDS.search(c) or (warm_own and warmth_of_its_own(top, c))
        bar = min(sure, added) if says else sure
        if 1.0 - cs.no_symptom < bar:
            continue
        if cs.symptom_odds[top] >= bar and top not in have and top not in out:
            out.append(top)
    return out


def _clause_scores(text: str, scorer: _Scorer) -> list[Scores]:
    """Each clause of the text, read alone."""
    return [scorer.score(c) for c in _CLAUSES.split(text) if c.strip()]


def _clause_slugs_all(text: str, scorer: _Scorer) -> set[str]:
    """Every slug any clause of the text has, read alone."""
    return {g for cs in _clause_scores(text, scorer) for g in cs.slugs}


def _fine_tops(text: str, scorer: _Scorer, sure: float) -> set[str]:
    """The slug each clause that says all is fine has first, read alone, where the
    classifier gives that clause "some symptom" at least ``sure``: the clause names the
    thing that is fine ("water still works"), not a wish ("get it working again")."""
    return {
        cs.slugs[0]
        for c in fine_clauses(text)
        if (cs := scorer.score(c)).slugs and 1.0 - cs.no_symptom >= sure
    }


def _clause_tops(text: str, scorer: _Scorer) -> set[str]:
    """The slug each clause of a message of several clauses has first, read alone."""
    scored = _clause_scores(text, scorer)
    if len(scored) < 2:
        return set()
    return {cs.slugs[0] for cs in scored if cs.slugs}


_NEGATABLE: dict[tuple[str, ...], frozenset[str]] = {}


def _negatable(symptoms: list[Symptom]) -> frozenset[str]:
    """The symptoms none of whose phrasings is a negation ("leaking", "clicking"; not "not
    draining" or "not cold"): said with a negation, they are absent."""
    key = tuple(s["id"] for s in symptoms)
    found = _NEGATABLE.get(key)
    if found is None:
        found = frozenset(
            s["id"]
            for s in symptoms
            if not any(
                NEGATOR.intersection(normalize(p).split()) for p in [s["label"], *s["synonyms"]]
            )
        )
        _NEGATABLE[key] = found
    return found


def _symptom_for(slug: str, appliance: Appliance | None, symptoms: list[Symptom]) -> str | None:
    """The catalog symptom of a slug: the appliance's, or the only one there is."""
    candidates = [s["id"] for s in symptoms if slug_of(s["id"]) == slug]
    if appliance is not None:
        candidates = [c for c in candidates if c.startswith(appliance + "/")]
    return candidates[0] if len(candidates) == 1 else None


def _one_appliance(ids: list[str]) -> Appliance | None:
    apps = {i.split("/", 1)[0] for i in ids}
    return apps.pop() if len(apps) == 1 else None  # type: ignore[return-value]


def _beyond_odour(
    ids: list[str], text: str, scorer: _Scorer, symptoms: list[Symptom], some: float
) -> list[str]:
    """The symptoms a message about a smell states outside its clauses that tell the smell:
    those clauses name no symptom but a smell's own (*Burning smell*); the rest of the
    message, read alone, must still state each other one ("smells bad and won't drain")."""
    smelly = _smell_symptoms(symptoms)
    rest = " , ".join(c for c in _CLAUSES.split(text) if c.strip() and not _ODOUR.search(c))
    said: set[str] = set()
    if len(rest.split()) >= 2:
        scores = scorer.score(rest)
        if 1.0 - scores.no_symptom >= some:
            said = {*scores.slugs, *_clause_tops(rest, scorer)}
    return [i for i in ids if i in smelly or slug_of(i) in said]


_SMELLY: dict[tuple[str, ...], frozenset[str]] = {}


def _smell_symptoms(symptoms: list[Symptom]) -> frozenset[str]:
    """The symptoms one of whose phrasings names a smell ("burning smell")."""
    key = tuple(s["id"] for s in symptoms)
    found = _SMELLY.get(key)
    if found is None:
        found = _SMELLY[key] = frozenset(
            s["id"] for s in symptoms if any(_ODOUR.search(p) for p in [s["label"], *s["synonyms"]])
        )
    return found


_NOT_START = "will-not-start"
# A hum heard, not denied ("no hum", "not even a hum" say it is dead)
_HUMS = re.compile(
    r"(?<!\bno )(?<!\ba )(?<!\bnot even a )\bhum(s|ming|med)?\b"
    r"|(?<!\bnot )(?<!\bnot even )(?<!\bwithout )\ba (low )?hum\b",
    re.IGNORECASE,
)


def _says_not_start(text: str, scorer: _Scorer, some: float) -> bool:
    """A clause of the text that names no part type reads as *Will not start* first."""
    for c in _CLAUSES.split(text):
        if not c.strip() or part_type_named(c):
            continue
        cs = scorer.score(c)
        if cs.slugs and cs.slugs[0] == _NOT_START and 1.0 - cs.no_symptom >= some:
            return True
    return False
