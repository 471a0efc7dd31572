from __future__ import annotations

import asyncio
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from partchat.catalog import Catalog

HOSTILE = [
    "",
    " ",
    '"',
    '""',
    "'",
    "NEAR(",
    "NEAR(a b",
    "a NEAR b",
    "*",
    "**",
    "-",
    "--",
    "- drain",
    "drain -pump",
    "pump*",
    "^pump",
    "AND",
    "OR",
    "NOT",
    "a AND OR NOT b",
    "(",
    ")",
    "{col}:x",
    "name:pump",
    "\x00",
    "pump\x00pump",
    "\ud800",
    "a\udfffb",
    "😀🧊",
    "🧊 ice maker 🧊",
    "%",
    "_",
    "\\",
    "'; DROP TABLE parts; --",
    "x" * 10_000,
    "drain " * 2_000,
    "ñandú ümlaut",
    "ＷＤＴ７８０",
    "\u202e",
    "\t\n\r",
]


async def _exercise(catalog: Catalog, text: str) -> None:
    hits = await catalog.search(text)
    assert isinstance(hits, list)
    assert isinstance(await catalog.search(text, model=text, appliance="dishwasher"), list)
    await catalog.get_part(text)
    fit = await catalog.compatibility(text, text)
    assert fit["status"] in ("fits", "not_listed", "unknown_model", "unknown_part")
    assert isinstance(await catalog.parts_for_model(text, part_type=text), list)
    d = await catalog.diagnose(None, [text], model=text)
    assert isinstance(d["candidates"], list)
    lookup = await catalog.find_model(text)
    assert len(lookup["suggestions"]) <= 5
    assert isinstance(await catalog.match_symptoms(text), list)
    assert (await catalog.install_guide(text))["steps"] is not None


async def test_hostile_list(catalog: Catalog) -> None:
    for text in HOSTILE:
        await _exercise(catalog, text)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(max_size=200))
def test_hostile_hypothesis(catalog_db: Path, text: str) -> None:
    async def run() -> None:
        cat = await Catalog.open(catalog_db)
        try:
            await _exercise(cat, text)
        finally:
            await cat.close()

    asyncio.run(run())
