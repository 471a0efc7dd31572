"""The catalog's public shapes: what the query layer returns and what tools build on.

These TypedDicts are the contract between the catalog (``partchat.catalog``) and its
users (tools, the extractor, the offline model). Prices are integer cents; every
string is already cleaned (no trailing spaces, one apostrophe style).
"""

from __future__ import annotations

import re
from typing import Literal, NotRequired, Protocol, TypedDict

Appliance = Literal["refrigerator", "dishwasher"]
FitStatus = Literal["fits", "not_listed", "unknown_model", "unknown_part"]
Evidence = Literal["model_page", "part_page"]


class Part(TypedDict):
    """One part, the current (not replaced) number first."""

    ps_number: str  # "PS3406971"
    mfr_number: str | None  # "W10195416"
    name: str
    brand: str | None
    part_type: str | None  # "Dishrack Wheel", "Water Inlet Valve", …
    appliances: list[Appliance]
    price_cents: int | None
    availability: str | None  # "In Stock", "Special Order", "No Longer Available", …
    video_url: str | None
    rating_pct: int | None  # 0–100, share of positive reviews
    review_count: int | None
    replaces: list[str]  # older manufacturer numbers this part replaces
    symptoms: list[str]  # canonical symptom labels this part fixes
    difficulty: str | None  # "Really Easy", "Easy", "A Bit Difficult", …
    install_time: str | None  # "Less than 15 mins", "15 - 30 mins", …


class SearchHit(TypedDict):
    part: Part
    score: float  # higher is better


class ModelInfo(TypedDict):
    model_number: str  # canonical, upper case, no spaces or dashes
    brand: str | None
    appliance: Appliance | None
    part_count: int  # how many compatible parts the catalog lists for it


class ModelLookup(TypedDict):
    """``find_model``: the exact match if there is one, else near misses."""

    query: str
    normalized: str
    match: ModelInfo | None
    suggestions: list[str]  # model numbers, best first, at most 5


class Compatibility(TypedDict):
    status: FitStatus
    evidence: Evidence | None  # set only when status == "fits" (or not_listed on a model page)
    part: Part | None
    model: ModelInfo | None


class Symptom(TypedDict):
    id: str  # "dishwasher/not-draining"
    appliance: Appliance
    label: str  # canonical label, "Not draining"
    synonyms: list[str]  # shopper phrasings, lower case


class RepairGuide(TypedDict):
    appliance: Appliance
    symptom: str  # canonical label
    part_types: list[str]  # in the order they usually cause the symptom
    reported_pct: int | None  # "how often reported", percent of customers
    difficulty: str | None
    video_url: str | None


class DiagnosisCandidate(TypedDict):
    part: Part
    part_type: str | None
    reason: str  # "the most common cause of *Not draining* on dishwashers"
    fits: FitStatus | None  # fit for the model given, None when no model


class Diagnosis(TypedDict):
    appliance: Appliance | None
    symptoms: list[str]  # canonical labels recognised
    unrecognised: list[str]  # inputs that matched no symptom
    guides: list[RepairGuide]
    candidates: list[DiagnosisCandidate]


class InstallGuide(TypedDict):
    part_type: str | None  # None for the general guide
    title: str
    generic: bool  # True: the general guide, not written for this part type
    safety: list[str]
    tools: list[str]
    steps: list[str]
    test: list[str]
    # Set by ``install_guide_for_part``: the part's own install video, when known.
    video_url: NotRequired[str | None]


class CatalogStats(TypedDict):
    parts: int
    models: int
    compatibility_pairs: int
    symptoms: int
    install_guides: int
    brands: int
    by_appliance: dict[str, dict[str, int]]


class CatalogReader(Protocol):
    """The async query layer. Every method takes user strings and never raises on them."""

    async def search(
        self,
        query: str,
        model: str | None = None,
        appliance: Appliance | None = None,
        limit: int = 10,
    ) -> list[SearchHit]: ...

    async def get_part(self, number: str) -> Part | None: ...

    async def compatibility(self, part: str, model: str) -> Compatibility: ...

    async def parts_for_model(
        self, model: str, part_type: str | None = None, limit: int = 50
    ) -> list[Part]: ...

    async def diagnose(
        self,
        appliance: Appliance | None,
        symptoms: list[str],
        model: str | None = None,
        limit: int = 8,
    ) -> Diagnosis: ...

    async def find_model(self, text: str) -> ModelLookup: ...

    async def match_symptoms(
        self, text: str, appliance: Appliance | None = None
    ) -> list[Symptom]: ...

    async def symptoms(self, appliance: Appliance | None = None) -> list[Symptom]: ...

    async def install_guide(self, part_type: str | None) -> InstallGuide: ...

    async def stats(self) -> CatalogStats: ...

    async def part_number_pattern(self) -> re.Pattern[str]:
        """Finds the catalog's own part numbers in text, known or not."""
        ...
