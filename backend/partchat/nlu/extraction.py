"""Deterministic, catalog-aware extraction of part numbers, models, symptoms and appliance.

Used by the graph's ``extract`` node on every user message and by the
``extract_information`` tool. No LLM call: regular expressions find candidate
tokens, the catalog decides what they are.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TypedDict

from partchat.catalog.types import Appliance, CatalogReader, ModelInfo, ModelLookup
from partchat.catalog.vocab import APPLIANCE_KINDS, APPLIANCE_NAMES, appliance_regex, brand_regex

from .features import part_type_named

# Word-ish tokens that may be part or model numbers: letters, digits, dashes, dots.
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9./-]{2,39}")
_PS = re.compile(r"^PS\d{3,12}$")
_HAS_DIGIT = re.compile(r"\d")
_HAS_ALPHA = re.compile(r"[A-Z]")
_MODEL_CUE = re.compile(r"\bmodel\s*(?:number|no\.?|#)?\s*(?:is|:)?\s*$", re.IGNORECASE)
# "does it fit a 71053", "for the 71054": a model of five or more digits after its article
_FIT_CUE = re.compile(r"\b(fits?|for|on|with|in)\s+(an?|the|my)\s*$", re.IGNORECASE)
_PART_CUE = re.compile(r"\bpart\s*(?:number|no\.?|#)?\s*(?:is|:)?\s*$", re.IGNORECASE)
# A number read off the appliance ("model on the sticker says 1867", "the label reads 7205"):
# one of four digits too, if the catalog has it
_READ_OFF = re.compile(
    r"\b(sticker|label|tag|plate)\s+(\w+\s+){0,3}?(says|reads|shows)\s*[:,-]?\s*$", re.IGNORECASE
)


@cache
def _number_cue() -> re.Pattern[str]:
    """A brand, an appliance's name (any spelling), "model" or "fits" just before a number,
    or before it with a comma, dash or colon between ("LG fridge, 71052", "LG - 71052")."""
    return re.compile(
        rf"\b(model|{brand_regex()}|{appliance_regex(APPLIANCE_NAMES)}|with|for|on|fits?|in an?)\s*"
        r"(number|no\.?|#)?\s*(is)?\s*[:,-]?\s*$",
        re.IGNORECASE,
    )


@cache
def _brand_cue() -> re.Pattern[str]:
    """A brand or an appliance's name (any spelling) just before a model number, or before it
    with a comma, dash or colon between."""
    return re.compile(
        rf"\b({brand_regex()}|{appliance_regex(APPLIANCE_NAMES)})\s*[:,-]?\s*$", re.IGNORECASE
    )


@cache
def _appliance_words() -> tuple[tuple[re.Pattern[str], Appliance], ...]:
    """Per appliance, every spelling of the table but hints: names, typos ("dishwaser",
    "refridgerator", "DW") and the parts only it has ("ice maker")."""
    kinds = tuple(k for k in APPLIANCE_KINDS if k != "hint")
    return tuple(
        (re.compile(rf"\b({appliance_regex(kinds, app)})\b", re.IGNORECASE), app)
        for app in ("dishwasher", "refrigerator")
    )


MAX_TEXT = 4000


class ModelMention(TypedDict):
    model: str
    known: bool
    brand: str | None
    appliance: Appliance | None
    suggestions: list[str]


class Extraction(TypedDict):
    part_numbers: list[str]  # the catalog's current part numbers, resolved through it
    unknown_part_numbers: list[str]  # numbers shaped like the catalog's, or cued, it does not know
    models: list[ModelMention]
    symptoms: list[str]  # canonical labels
    appliance: Appliance | None


def appliance_from_words(text: str) -> Appliance | None:
    """The appliance named in the text; the first mention wins when both appear."""
    best: tuple[int, Appliance] | None = None
    for pattern, appliance in _appliance_words():
        m = pattern.search(text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), appliance)
    return best[1] if best else _misspelt_appliance(text)


_LONG_WORD = re.compile(r"[a-z]{8,}")
_LONG_NAMES: tuple[tuple[str, Appliance], ...] = (
    ("dishwasher", "dishwasher"),
    ("refrigerator", "refrigerator"),
)


def _misspelt_appliance(text: str) -> Appliance | None:
    """An appliance's long name typed a letter off that the table does not spell out
    ("dishwaher", "dishwsher", "refrigertor")."""
    from rapidfuzz.distance import Levenshtein

    for word in _LONG_WORD.findall(text.lower()):
        for name, appliance in _LONG_NAMES:
            if Levenshtein.distance(word, name, score_cutoff=1) <= 1:
                return appliance
    return None


def _candidates(text: str) -> list[tuple[str, str, str]]:
    """(token, the 20 characters before it, how sure) for tokens that could be numbers:
    ``letters``, ``short`` and ``read`` ones only count where the catalog has them exactly."""
    out: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for m in _TOKEN.finditer(text):
        typed = m.group(0).strip(".-/")
        token = typed.upper()
        if len(token) < 3 or token in seen:
            continue
        if not _HAS_DIGIT.search(token):
            # letters only: a manufacturer number typed in capitals ("RPWFE"), checked
            # against the part's own (``extract``); other words are no numbers
            if len(token) >= 4 and typed.isupper() and typed.isalpha():
                seen.add(token)
                out.append((token, "", "letters"))
            continue
        # Plain numbers: only long ones can be model or manufacturer numbers (not "2019",
        # "$45"), unless a brand, an appliance, "model" or "fits" stands just before
        # ("LG 71052", "does it work with 14305").
        before = text[max(0, m.start() - 20) : m.start()]
        plain = not _HAS_ALPHA.search(token)
        if (
            plain
            and len(token) < 7
            and (len(token) < 4 or not _number_cue().search(before))
            and not (len(token) >= 5 and _FIT_CUE.search(before))
            and not (len(token) >= 5 and _bare_reply(text, m.start(), m.end()))
        ):
            if len(token) >= 4 and _READ_OFF.search(before) and _REPLY_AFTER.match(text[m.end() :]):
                seen.add(token)
                out.append((token, before, "read"))
            elif len(token) >= 5:
                # "how do i install 675808", "need a spray arm 403110": a short maker's
                # number or model, if it is one (82 of the catalog's manufacturer numbers
                # and 526 of its models have five or six digits; a zip code is none)
                seen.add(token)
                out.append((token, before, "short"))
            continue
        seen.add(token)
        out.append((token, before, ""))
    return out[:20]


# A number given alone, as a reply, or first before something else: "71052", "its a
# 71052", "mine's 71052.", "71052 - and can i return the filter …"
_REPLY_BEFORE = re.compile(
    r"^\W*((ok|okay|sure|yes|yeah|yep|oh|hmm|um|wait|sorry|oops|no)\W+)*"
    r"((it'?s|it is|mine'?s|mine is|model'?s)\s+|"
    # where it was read: "the sticker says 402010", "label inside the door reads …"
    r"((the|my)\s+)?(sticker|label|tag|plate|it)\s+(\w+\s+){0,3}?(says|reads|shows)\s+)?"
    r"(an?\s+|the\s+)?$",
    re.IGNORECASE,
)
_REPLY_AFTER = re.compile(
    r"^\W*$|^\s*([-–—,;:.!?]+\s|\s+(and|also|btw|but|if (that|it) helps|is (the|my|our) model)\b)",
    re.IGNORECASE,
)


def _bare_reply(text: str, start: int, end: int) -> bool:
    return bool(_REPLY_BEFORE.match(text[:start]) and _REPLY_AFTER.match(text[end:]))


async def extract(text: str, catalog: CatalogReader, *, symptoms: bool = True) -> Extraction:
    """Everything recognisable in one message. Never raises on user text. ``symptoms=False``
    leaves the symptoms to the caller (``nlu.reading`` matches them with more context)."""
    text = text[:MAX_TEXT]
    parts: list[str] = []
    unknown_parts: list[str] = []
    models: list[ModelMention] = []
    shape = await catalog.part_number_pattern()
    for token, before, sure in _candidates(text):
        if sure == "read":
            # read off the appliance: its model, if the catalog has it exactly
            exact = (await catalog.find_model(token))["match"]
            if exact is not None:
                models.append(_known_model(exact))
            continue
        if sure:
            # only the part's own manufacturer number counts ("EASY" replaces nothing)
            part = await catalog.get_part(token)
            if part is not None and (part["mfr_number"] or "").upper() == token:
                parts.append(part["ps_number"])
            elif sure == "short":
                # a model of that many digits, beside the part type wanted for it or its
                # own brand ("does PS12724833 also work in the other lg we have, 72053")
                exact = (await catalog.find_model(token))["match"]
                if exact is not None and (
                    part_type_named(text) or _names_brand(text, exact["brand"])
                ):
                    models.append(_known_model(exact))
            continue
        if _PS.match(token) or shape.fullmatch(token):
            part = await catalog.get_part(token)
            (parts if part else unknown_parts).append(part["ps_number"] if part else token)
            continue
        cued_model = bool(_MODEL_CUE.search(before))
        cued_part = bool(_PART_CUE.search(before))
        lookup: ModelLookup | None = None
        if not cued_part:
            lookup = await catalog.find_model(token)
            if lookup["match"] is not None:
                models.append(_known_model(lookup["match"]))
                continue
        if not cued_model:
            part = await catalog.get_part(token)
            if part is not None:
                parts.append(part["ps_number"])
                continue
        if cued_part:
            unknown_parts.append(token)
            continue
        # An unknown model-shaped token: letters and digits, or cued by "model"; with
        # near matches, or after a brand or an appliance ("whirlpool WRS325SDHZ").
        if cued_model or (_HAS_ALPHA.search(token) and len(token) >= 6):
            if lookup is None:
                lookup = await catalog.find_model(token)
            branded = _brand_cue().search(before) is not None
            if cued_model or lookup["suggestions"] or (branded and _HAS_DIGIT.search(token)):
                models.append(
                    ModelMention(
                        model=lookup["normalized"] or token,
                        known=False,
                        brand=None,
                        appliance=None,
                        suggestions=lookup["suggestions"][:5],
                    )
                )
    if not any(m["known"] for m in models):
        for joined in _split_model_candidates(text):
            lookup = await catalog.find_model(joined)
            joined_info = lookup["match"]
            key = joined.replace(" ", "").upper()
            if joined_info is not None and joined_info["model_number"].upper() == key:
                models = [m for m in models if m["model"].replace(" ", "") not in key]
                models.append(_known_model(joined_info))
                break
    appliance = appliance_from_words(text)
    if appliance is None:
        appliance = next((m["appliance"] for m in models if m["known"] and m["appliance"]), None)
    matched = await catalog.match_symptoms(text, appliance) if symptoms else []
    return Extraction(
        part_numbers=_unique(parts),
        unknown_part_numbers=_unique(unknown_parts),
        models=models,
        symptoms=_unique([s["label"] for s in matched]),
        appliance=appliance,
    )


def _names_brand(text: str, brand: str | None) -> bool:
    return (
        bool(brand) and re.search(rf"\b{re.escape(str(brand))}\b", text, re.IGNORECASE) is not None
    )


def _known_model(info: ModelInfo) -> ModelMention:
    return ModelMention(
        model=info["model_number"],
        known=True,
        brand=info["brand"],
        appliance=info["appliance"],
        suggestions=[],
    )


_PIECE = re.compile(r"[A-Za-z0-9]{1,8}")


def _split_model_candidates(text: str) -> list[str]:
    """A model number pasted in pieces ("LDF 7774 BD", "106 4056 2010"): two or three
    short neighbouring pieces, at least two with digits, or all as the model is written
    (capitals and digits), longest first."""
    pieces = [w.strip(".,;:!?()") for w in text.split()]
    digit = [bool(_HAS_DIGIT.search(p)) and _PIECE.fullmatch(p) is not None for p in pieces]
    if not any(digit):
        return []
    short = [d or _PIECE.fullmatch(p) is not None for p, d in zip(pieces, digit, strict=True)]
    out: list[str] = []
    for size in (3, 2):
        for i in range(len(pieces) - size + 1):
            window = range(i, i + size)
            digits = sum(digit[k] for k in window)
            if not digits or not all(short[k] for k in window):
                continue
            joined = [pieces[k] for k in window]
            as_written = all(p == p.upper() for p in joined)
            if (digits >= 2 or as_written) and 6 <= sum(map(len, joined)) <= 16:
                out.append(" ".join(joined))
    return out[:6]


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
