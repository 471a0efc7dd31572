"""Pure string helpers shared by the build, the query layer and the developer importer
(``scripts/import_sources.py``)."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from .vocab import appliance_words, part_type_keywords

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'", "“": '"', "”": '"'})
_SURROGATES = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SPACES = re.compile(r"\s+")
_NON_ALNUM = re.compile(r"[^0-9A-Za-z]+")
_PHRASE_JUNK = re.compile(r"[^0-9a-z]+")

NA_VALUES = frozenset({"", "n/a", "na", "none", "null", "nan", "-"})


def clean_text(value: object) -> str | None:
    """Trim, collapse whitespace, one apostrophe style; None for empty or N/A."""
    if value is None:
        return None
    text = _CONTROL.sub(" ", _SURROGATES.sub("", str(value))).translate(_APOSTROPHES)
    text = _SPACES.sub(" ", text).strip()
    return None if text.lower() in NA_VALUES else text


def safe_user_text(value: str, max_len: int = 1000) -> str:
    """User input made safe to handle: no NUL/control chars, no lone surrogates, bounded."""
    text = _SURROGATES.sub("", value[: max_len * 2])
    text = _CONTROL.sub(" ", text).translate(_APOSTROPHES)
    return text[:max_len]


def price_to_cents(value: object) -> int | None:
    """'$91.96' / '91.96' / 91.96 → 9196; None when absent or not a price."""
    text = clean_text(value)
    if text is None:
        return None
    text = text.replace("$", "").replace(",", "").strip()
    try:
        amount = Decimal(text)
    except InvalidOperation:
        return None
    if amount < 0 or amount > 100_000:
        return None
    return int((amount * 100).quantize(Decimal("1")))


def number_key(value: str) -> str:
    """Part/model number key: upper case, letters and digits only."""
    if len(value) <= 200 and value.isascii() and value.isalnum():
        return value.upper()  # a typed number as it usually comes: nothing to take out
    return _NON_ALNUM.sub("", safe_user_text(value, 200)).upper()


def model_key(value: str) -> str:
    """Canonical model number: upper case, no spaces, dashes or other punctuation."""
    return number_key(value)


def phrase_key(value: str) -> str:
    """Lower-case words separated by single spaces; apostrophes dropped (won't → wont)."""
    text = safe_user_text(value, 20_000).lower().replace("'", "").replace("&", " and ")
    return _PHRASE_JUNK.sub(" ", text).strip()


def slugify(value: str) -> str:
    return _NON_ALNUM.sub("-", value).strip("-").lower()


def is_part_number_like(token: str) -> bool:
    """True for tokens that look like a part or model number (letters+digits, ≥ 4 chars)."""
    return len(token) >= 4 and any(c.isdigit() for c in token)


def part_type_from_name(name: str | None) -> str | None:
    """Derive the part type from a name: the longest curated keyword found in it wins."""
    if not name:
        return None
    words = f" {phrase_key(name)} "
    for keyword, part_type in part_type_keywords():
        if f" {keyword} " in words:
            return part_type
    return None


# the sources spell the appliances out: no abbreviations, typos or hints
_SOURCE_KINDS = ("name", "plural", "compartment", "part")


def appliances_from_text(text: str | None) -> set[str]:
    """'Refrigerator, Freezer, Ice Maker.' → {'refrigerator'}; only our two appliances."""
    if not text:
        return set()
    words = f" {phrase_key(text)} "
    return {app for word, app in appliance_words(_SOURCE_KINDS) if f" {word} " in words}


def split_list(value: object, sep: str = ",") -> list[str]:
    """Split a 'A, B ... Show more' list into clean items, keeping order, no duplicates."""
    text = clean_text(value)
    if text is None:
        return []
    text = text.replace("... Show more", "").replace("...Show more", "")
    out: list[str] = []
    for item in text.split(sep):
        cleaned = clean_text(item)
        if cleaned and cleaned not in out:
            out.append(cleaned)
    return out


def youtube_watch_url(url: str | None) -> str | None:
    """Embed links become watch links so every video URL has one form."""
    url = clean_text(url)
    if url is None:
        return None
    match = re.match(r"https?://(?:www\.)?youtube\.com/embed/([\w-]+)", url)
    if match:
        return f"https://www.youtube.com/watch?v={match.group(1)}"
    return url if url.startswith("http") else None
