from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from scripts.import_sources import (  # the developer ETL
    _replaced_number,
    guide_catalog_types,
    symptom_records,
)

from partchat.catalog.normalize import (
    clean_text,
    model_key,
    number_key,
    part_type_from_name,
    phrase_key,
    price_to_cents,
)

DATA_DIR = Path(__file__).resolve().parents[3] / "data" / "catalog"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Dishwasher Drain Pump WPW10348269", "Drain Pump"),
        ("Lower Dishrack Wheel", "Dishrack Wheel"),
        ("Refrigerator Door Shelf Bin", "Door Shelf Bin"),
        ("Water Inlet Valve", "Water Inlet Valve"),
        ("Ice Maker Assembly", "Ice Maker Assembly"),
        ("Refrigerator Door Gasket 241872513", "Door Gasket"),
        ("Upper Spray Arm", "Spray Arm"),
        ("Evaporator Fan Motor", "Evaporator Fan Motor"),
        ("Something Unheard Of", None),
    ],
)
def test_part_type_longest_keyword(name: str, expected: str | None) -> None:
    assert part_type_from_name(name) == expected


def test_cleaning_helpers() -> None:
    assert price_to_cents("91.96") == 9196
    assert price_to_cents("$1,234.5") == 123450
    assert price_to_cents("N/A") is None
    assert clean_text("Really Easy ") == "Really Easy"
    assert clean_text("Won’t  start ") == "Won't start"
    assert clean_text(" N/A ") is None
    assert model_key("wdt-780 saem1") == "WDT780SAEM1"
    # a plain ASCII token takes a shortcut; anything else the full clean-up
    assert number_key("wrs325sdhz") == "WRS325SDHZ"
    assert number_key("ps11752778\x00") == "PS11752778"
    assert number_key("ＷＲＳ３２５") == ""
    assert phrase_key("Won’t Start") == phrase_key("won't start") == "wont start"


@pytest.mark.parametrize(
    ("item", "number"),
    [
        ("WS7201 Show less", "WS7201"),
        ("WPW10376691", "WPW10376691"),
        ("WR30X 10093", "WR30X 10093"),
        ("732132000@", "732132000"),
        ("MWF", "MWF"),
        ("Simple fix", None),
        ("laid it on its side", None),
        ("LIFT UP on housing", None),
        ("it was qu ... Read more", None),
        ("... Read more", None),
    ],
)
def test_a_replaced_number_is_a_number_not_a_review(item: str, number: str | None) -> None:
    assert _replaced_number(item) == number


def test_guide_types_map_to_catalog_types() -> None:
    assert guide_catalog_types(["Drain Pump & Motor"])[0] == "Drain Pump"
    assert "Door Latch" in guide_catalog_types(["Door Latch Or Door Latch Switch"])


def test_symptom_vocabulary_shape() -> None:
    records = symptom_records()
    ids = [r["id"] for r in records]
    assert ids == sorted(ids) and len(ids) == len(set(ids))
    ice = next(r for r in records if r["id"] == "refrigerator/ice-maker-not-making-ice")
    assert {"no ice", "ice maker stopped working", "not producing ice"} <= set(ice["synonyms"])


def test_shipped_data_is_sorted_and_clean() -> None:
    with gzip.open(DATA_DIR / "parts.jsonl.gz", "rt", encoding="utf-8") as fh:
        parts = [json.loads(line) for line in fh]
    numbers = [p["ps_number"] for p in parts]
    assert numbers == sorted(numbers) and len(numbers) == len(set(numbers))
    for p in parts:
        for key in ("difficulty", "install_time", "name", "availability"):
            v = p[key]
            assert v is None or (v == v.strip() and "’" not in v)
        assert p["price_cents"] is None or isinstance(p["price_cents"], int)
        assert set(p["appliances"]) <= {"refrigerator", "dishwasher"} and p["appliances"]
        # replaced numbers are numbers: no list link text, no repair story from a review
        assert all(re.fullmatch(r"[A-Z0-9][A-Z0-9./#-]{0,30}", r) for r in p["replaces"])
        assert not any(r.endswith(("SHOWLESS", "READMORE")) for r in p["replaces"])
    with gzip.open(DATA_DIR / "compatibility.jsonl.gz", "rt", encoding="utf-8") as fh:
        pairs = {(r["part"], r["model"]) for r in map(json.loads, fh)}
    assert ("PS11752778", "WDT780SAEM1") not in pairs
    assert ("PS3406971", "WDT780SAEM1") in pairs
    sources = (DATA_DIR / "SOURCES.md").read_text("utf-8")
    assert "Prices" in sources and "longest keyword first" in sources
