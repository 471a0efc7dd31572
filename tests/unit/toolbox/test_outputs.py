"""Real outputs over a deterministic sample of 200 catalog parts match the output contracts,
and carry what the UI needs for part cards."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from partchat.toolbox.dispatch import Toolbox
from tests.unit.toolbox.conftest import assert_result_shape

SAMPLE_SEED = 20240611
PER_APPLIANCE = 100


@dataclass(frozen=True)
class SamplePart:
    ps_number: str
    mfr_number: str | None
    name: str
    appliance: str
    symptoms: list[str]
    compatible_model: str | None  # a model from the part's compatibility list
    other_model: str  # a random catalog model


@pytest.fixture(scope="module")
def sample(catalog_db: Path) -> list[SamplePart]:
    return build_sample(catalog_db)


def build_sample(catalog_db: Path) -> list[SamplePart]:
    """100 parts per appliance: 70 with a compatibility list, 30 drawn from all parts."""
    rng = random.Random(SAMPLE_SEED)
    conn = sqlite3.connect(f"file:{catalog_db}?mode=ro", uri=True)
    try:
        models = [r[0] for r in conn.execute("SELECT model_number FROM models ORDER BY id")]
        labels = {
            app: [
                r[0]
                for r in conn.execute(
                    "SELECT label FROM symptoms WHERE appliance = ? ORDER BY id", (app,)
                )
            ]
            for app in ("refrigerator", "dishwasher")
        }
        chosen: list[tuple[int, str]] = []
        for app, bit in (("refrigerator", 1), ("dishwasher", 2)):
            with_compat = [
                r[0]
                for r in conn.execute(
                    "SELECT id FROM parts WHERE app_mask & ? AND id IN (SELECT part_id FROM compat)"
                    " ORDER BY id",
                    (bit,),
                )
            ]
            everything = [
                r[0]
                for r in conn.execute("SELECT id FROM parts WHERE app_mask & ? ORDER BY id", (bit,))
            ]
            first = rng.sample(with_compat, 70)
            rest = rng.sample(sorted(set(everything) - set(first)), PER_APPLIANCE - 70)
            chosen += [(pid, app) for pid in first + rest]
        out = []
        for pid, app in chosen:
            ps, mfr, name, symptoms = conn.execute(
                "SELECT ps_number, mfr_number, name, symptoms FROM parts WHERE id = ?", (pid,)
            ).fetchone()
            compat = [
                r[0]
                for r in conn.execute(
                    "SELECT m.model_number FROM compat c JOIN models m ON m.id = c.model_id "
                    "WHERE c.part_id = ? ORDER BY m.id",
                    (pid,),
                )
            ]
            out.append(
                SamplePart(
                    ps_number=ps,
                    mfr_number=mfr,
                    name=name,
                    appliance=app,
                    symptoms=json.loads(symptoms)[:10] or labels[app][:2],
                    compatible_model=rng.choice(compat) if compat else None,
                    other_model=rng.choice(models),
                )
            )
        return out
    finally:
        conn.close()


def test_the_sample_is_deterministic_and_spans_both_appliances(
    sample: list[SamplePart], catalog_db: Path
) -> None:
    assert build_sample(catalog_db) == sample
    assert len(sample) == 200 and len({p.ps_number for p in sample}) == 200
    assert sum(p.appliance == "dishwasher" for p in sample) == PER_APPLIANCE
    assert sum(p.compatible_model is not None for p in sample) >= 140


Calls = Callable[[SamplePart], list[dict[str, Any]]]

CALLS: dict[str, Calls] = {
    "get_part_details": lambda p: [
        {"partNumber": p.ps_number},
        *([{"partNumber": p.ps_number, "model": p.compatible_model}] if p.compatible_model else []),
        {"partNumber": p.ps_number, "model": p.other_model},
        *([{"partNumber": p.mfr_number}] if p.mfr_number else []),
    ],
    "get_installation_instructions": lambda p: [
        {"partNumber": p.ps_number},
        {"partNumber": p.ps_number, "model": p.compatible_model or p.other_model},
    ],
    "check_compatibility": lambda p: [
        *([{"partNumber": p.ps_number, "model": p.compatible_model}] if p.compatible_model else []),
        {"partNumber": p.ps_number, "model": p.other_model},
    ],
    "search_parts": lambda p: [
        {"query": p.name[:200]},
        {"query": p.name[:200], "model": p.compatible_model or p.other_model, "limit": 10},
    ],
    "diagnose_repair": lambda p: [
        {"symptoms": p.symptoms, "appliance": p.appliance},
        {"symptoms": p.symptoms, "model": p.compatible_model or p.other_model},
    ],
    "extract_information": lambda p: [
        {
            "text": f"I need {p.ps_number} ({p.name}) for my {p.appliance}, model "
            f"{p.compatible_model or p.other_model}. {'; '.join(p.symptoms)}."[:4000]
        },
    ],
}


@pytest.mark.parametrize("tool", sorted(CALLS))
async def test_real_outputs_match_the_output_schema(
    tool: str, toolbox: Toolbox, sample: list[SamplePart]
) -> None:
    failures: list[tuple[dict[str, Any], Any]] = []
    calls = 0
    for part in sample:
        for args in CALLS[tool](part):
            calls += 1
            result = await toolbox.call(tool, args)
            if result.get("ok") is not True:
                failures.append((args, result))
                continue
            problems = toolbox.output_errors(tool, result)
            if problems:
                failures.append((args, problems))
            assert_result_shape(toolbox, tool, result)
            _check_semantics(tool, part, args, result)
    assert calls >= 200
    assert not failures, failures[:5]


def _check_semantics(tool: str, part: SamplePart, args: dict[str, Any], result: Any) -> None:
    """The facts that matter, beyond the shape."""
    if tool in ("get_part_details", "get_installation_instructions"):
        assert result["part"]["partNumber"] == part.ps_number
        if args.get("model"):
            assert result["part"]["model"] is not None and result["part"]["fit"] is not None
        else:
            assert result["part"]["fit"] is None
    if (
        tool == "get_part_details"
        and part.compatible_model
        and args.get("model") == part.compatible_model
    ):
        assert result["part"]["fit"] == "fits"
    if tool == "check_compatibility":
        assert result["partNumber"] == part.ps_number
        if args["model"] == part.compatible_model:
            assert result["status"] == "fits" and result["evidence"] is not None
        else:
            assert result["status"] in ("fits", "not_listed", "unknown_model")
    if tool == "search_parts":
        for card in result["parts"]:
            assert card["fit"] is None if "model" not in args else card["fit"] is not None
    if tool == "diagnose_repair":
        assert result["needsModel"] is ("model" not in args)
    if tool == "extract_information":
        assert part.ps_number in result["partNumbers"]


async def test_the_wdt780saem1_wheel_card(toolbox: Toolbox) -> None:
    """PS3406971 on WDT780SAEM1: everything a UI part card needs."""
    for tool, args in [
        ("get_part_details", {"partNumber": "PS3406971", "model": "WDT780SAEM1"}),
        ("get_installation_instructions", {"partNumber": "PS3406971", "model": "WDT780SAEM1"}),
        ("check_compatibility", {"partNumber": "PS3406971", "model": "WDT780SAEM1"}),
    ]:
        result = await toolbox.call(tool, args)
        assert result["ok"] is True, result
        card = result["part"]
        assert card["partNumber"] == "PS3406971"
        assert card["name"] == "Lower Dishrack Wheel"
        assert card["brand"]
        assert isinstance(card["priceCents"], int) and card["priceCents"] > 0
        assert card["price"] == f"${card['priceCents'] // 100}.{card['priceCents'] % 100:02d}"
        assert card["price"].startswith("$")
        assert card["availability"] and card["inStock"] is True
        assert card["videoUrl"].startswith("https://")
        assert card["difficulty"] and card["installTime"]
        assert card["fit"] == "fits" and card["model"] == "WDT780SAEM1"
    fit = await toolbox.call(
        "check_compatibility", {"partNumber": "ps3406971", "model": " wdt780saem1 "}
    )
    assert fit["status"] == "fits" and fit["model"] == "WDT780SAEM1"
    guide = await toolbox.call("get_installation_instructions", {"partNumber": "PS3406971"})
    assert guide["videoUrl"] == guide["part"]["videoUrl"]
    assert guide["guide"]["steps"]


async def test_search_cards_carry_the_fit_for_the_model(toolbox: Toolbox) -> None:
    result = await toolbox.call("search_parts", {"query": "dishrack wheel", "model": "wdt780saem1"})
    assert result["ok"] is True and result["model"] == "WDT780SAEM1"
    assert result["parts"]
    assert all(c["fit"] == "fits" and c["model"] == "WDT780SAEM1" for c in result["parts"])


async def test_unknown_things_are_results(toolbox: Toolbox) -> None:
    missing = await toolbox.call("get_part_details", {"partNumber": "PS000000001"})
    assert missing["ok"] is False and missing["error"]["code"] == "unknown_part"
    assert missing["error"]["errors"][0]["path"] == "/partNumber"
    assert_result_shape(toolbox, "get_part_details", missing)
    fit = await toolbox.call(
        "check_compatibility", {"partNumber": "PS3406971", "model": "WDT780SAEMX"}
    )
    assert fit["ok"] is True and fit["status"] == "unknown_model"
    assert fit["part"]["fit"] == "unknown_model"
    assert_result_shape(toolbox, "check_compatibility", fit)
    nopart = await toolbox.call(
        "check_compatibility", {"partNumber": "PS000000001", "model": "WDT780SAEM1"}
    )
    assert nopart["ok"] is True and nopart["status"] == "unknown_part" and nopart["part"] is None
    assert_result_shape(toolbox, "check_compatibility", nopart)
    nothing = await toolbox.call("search_parts", {"query": "qqqqzzzz"})
    assert nothing == {"ok": True, "query": "qqqqzzzz", "model": None, "parts": []}
    integral = await toolbox.call("search_parts", {"query": "wheel", "limit": 2.0})
    assert integral["ok"] is True and len(integral["parts"]) <= 2
