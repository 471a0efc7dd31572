"""The offline model on a store's own catalog (``examples/catalog/`` imported): every
part number and price it says comes from that catalog through a tool result, never from
the shipped one."""

from __future__ import annotations

import csv
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from partchat.agent.graph import build_graph
from partchat.agent.offline import OfflineChatModel
from partchat.catalog import Catalog
from partchat.nlu import store as nlu_store
from partchat.toolbox.dispatch import Toolbox
from tests.conftest import EXAMPLE_CATALOG
from tests.support.agent_driver import Conversation, Turn
from tests.unit.agent.test_conversations import Step, check_step

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.timeout(60)]

STORE_NUMBER = re.compile(r"\bAB-\d+\b")
PS_NUMBER = re.compile(r"\bPS\d+\b")
PRICE = re.compile(r"\$\d[\d,]*\.\d\d")


def _store_parts() -> dict[str, str]:
    """part number → its price as the shopper sees it, from the example files."""
    with (EXAMPLE_CATALOG / "parts.csv").open(newline="") as f:
        return {r["part_number"]: f"${float(r['price']):,.2f}" for r in csv.DictReader(f)}


PARTS = _store_parts()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def graph(imported_catalog_db: Path) -> AsyncIterator[Any]:
    catalog = await Catalog.open(imported_catalog_db)
    understanding = nlu_store.load(imported_catalog_db)
    yield build_graph(OfflineChatModel(), Toolbox.load(catalog), catalog, understanding)
    await catalog.close()


def from_the_store(turn: Turn) -> list[str]:
    """Part numbers and prices in the answer that are not the store's or that no tool
    output of the turn returned."""
    problems = []
    source = turn.outputs_json()
    for number in set(STORE_NUMBER.findall(turn.text)):
        if number not in source:
            problems.append(f"{number} is not in a tool output")
        if number not in PARTS and "couldn't find" not in turn.text:
            problems.append(f"{number} is not one of the store's parts")
    if "couldn't find" not in turn.text:  # that answer repeats the number asked for
        problems += [f"shipped number {n}" for n in PS_NUMBER.findall(turn.text)]
    prices = set(PARTS.values())
    problems += [
        f"price {p} is not the store's" for p in PRICE.findall(turn.text) if p not in prices
    ]
    return problems


CONVERSATIONS: dict[str, list[Step]] = {
    "search": [
        Step(
            "I need a drain pump for my dishwasher",
            calls=[
                (
                    "search_parts",
                    {"query": "drain pump", "limit": 5, "appliance": "dishwasher"},
                )
            ],
            has=["Brightwash Drain Pump Assembly", "AB-10234", "$64.50"],
        )
    ],
    "search-for-a-model": [
        Step(
            "how much is the water filter for CRF340S",
            has=["Coldcrest Water Filter", "AB-20416", "$34.50", "No Longer Available"],
            ctx={"productModel": "CRF340S", "applianceType": "refrigerator"},
        )
    ],
    "details": [
        Step(
            "tell me about AB-10234",
            calls=[("get_part_details", {"partNumber": "AB-10234"})],
            has=["BWP-7701", "$64.50", "92% positive from 41 reviews", "Not draining"],
            ctx={"partNumber": "AB-10234"},
        )
    ],
    "details-by-a-replaced-number": [
        Step(
            "what is part CCI-5400",
            calls=[("get_part_details", {"partNumber": "AB-20411"})],
            has=["Coldcrest Ice Maker Assembly", "AB-20411", "$118.00"],
        )
    ],
    "fits-then-another-part": [
        Step(
            "does AB-10236 fit my BWD450?",
            calls=[("check_compatibility", {"partNumber": "AB-10236", "model": "BWD450"})],
            has=["Yes!", "Brightwash Door Gasket", "full parts list", "$22.00"],
            ctx={"productModel": "BWD450", "applianceType": "dishwasher"},
        ),
        Step(
            "and AB-10235?",
            calls=[("check_compatibility", {"partNumber": "AB-10235", "model": "BWD450"})],
            has=["Yes!", "Brightwash Water Inlet Valve", "$38.25"],
        ),
    ],
    "does-not-fit": [
        Step(
            "does AB-20416 fit CRX210W?",
            calls=[("check_compatibility", {"partNumber": "AB-20416", "model": "CRX210W"})],
            has=["does **not** list", "Coldcrest Water Filter", "CRX210W"],
            lacks=["Yes!"],
        )
    ],
    "diagnosis-from-a-synonym-then-the-model": [
        Step(
            "my dishwasher has standing water in the bottom",
            calls=[
                (
                    "diagnose_repair",
                    {"symptoms": ["Not draining"], "appliance": "dishwasher"},
                )
            ],
            has=["Not draining", "AB-10234", "$64.50", "model number"],
        ),
        Step(
            "model BWD450",
            calls=[("diagnose_repair", {"symptoms": ["Not draining"], "model": "BWD450"})],
            has=["fits your BWD450", "AB-10234"],
        ),
    ],
    "fridge-diagnosis": [
        Step(
            "the ice maker quit on my Coldcrest fridge, model CRX210W",
            has=["Ice maker not making ice", "AB-20411", "$118.00", "AB-20412", "$44.60"],
            ctx={"productModel": "CRX210W"},
        )
    ],
    "install-guide": [
        Step(
            "how do I install AB-10234?",
            calls=[("get_installation_instructions", {"partNumber": "AB-10234"})],
            has=["T20 Torx driver", "Bail out standing water", "videos.example.com/ab-10234"],
            matches=[r"^1\. Remove the kick plate"],
        )
    ],
    "install-general-guide": [
        Step(
            "how do I install AB-20413?",
            calls=[("get_installation_instructions", {"partNumber": "AB-20413"})],
            has=["general", "Compare the new part's number", "Easy, time: 15 - 30 mins"],
        )
    ],
    "unknown-store-number": [
        Step(
            "tell me about AB-99999",
            calls=[("get_part_details", {"partNumber": "AB-99999"})],
            has=["couldn't find part **AB-99999**"],
        )
    ],
    "a-shipped-number-is-unknown-here": [
        Step(
            "tell me about PS11752778",
            calls=[("get_part_details", {"partNumber": "PS11752778"})],
            has=["couldn't find part"],
            lacks=["Door Shelf Bin", "$"],
        )
    ],
    "a-part-from-the-list": [
        Step("do you have a door shelf bin", has=["AB-20415", "$29.99"]),
        Step(
            "tell me about the first one",
            calls=[("get_part_details", {"partNumber": "AB-20415"})],
            has=["Coldcrest Door Shelf Bin", "CCB-7001"],
        ),
        Step(
            "does it fit CRX210W?",
            calls=[("check_compatibility", {"partNumber": "AB-20415", "model": "CRX210W"})],
            has=["Yes!"],
        ),
    ],
    "fits-then-yes-to-the-install-steps": [
        Step(
            "does AB-10236 fit my BWD450?",
            calls=[("check_compatibility", {"partNumber": "AB-10236", "model": "BWD450"})],
            has=["Want the installation steps?"],
        ),
        Step(
            "yes",
            calls=[
                (
                    "get_installation_instructions",
                    {"partNumber": "AB-10236", "model": "BWD450"},
                )
            ],
            has=["Pull the old gasket out of its channel", "fits your BWD450"],
        ),
    ],
    "the-second-one-from-a-search": [
        Step(
            "I need parts for my Brightwash dishwasher, it's leaking",
            has=["Brightwash Door Gasket", "Brightwash Water Inlet Valve"],
        ),
        Step(
            "the second one",
            calls=[("get_part_details", {"partNumber": "AB-10235"})],
            has=["BWV-2210", "$38.25"],
        ),
    ],
    "a-claimed-price-is-checked": [
        Step(
            "the website said AB-10234 costs $5, right?",
            calls=[("get_part_details", {"partNumber": "AB-10234"})],
            has=["$64.50"],
            lacks=["$5.00"],
        )
    ],
}


async def test_a_dozen_conversations() -> None:
    assert len(CONVERSATIONS) >= 12


@pytest.mark.parametrize("name", list(CONVERSATIONS))
async def test_conversation_on_the_imported_catalog(graph: Any, name: str) -> None:
    conversation = Conversation(graph)
    for i, step in enumerate(CONVERSATIONS[name], 1):
        turn = await conversation.say(step.say)
        where = f"{name} turn {i} ({step.say!r})"
        check_step(step, turn, where)
        assert not from_the_store(turn), f"{where}: {from_the_store(turn)}\n{turn.text}"
