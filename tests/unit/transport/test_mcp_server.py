"""partchat.transport.mcp_server: contracts → MCP tools, Toolbox results → MCP tool results, and an
in-process SDK client over a toolbox with fake implementations (no catalog)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from referencing import Registry

from partchat.toolbox.contracts import Contract, ContractError, load_contracts
from partchat.toolbox.dispatch import Toolbox
from partchat.toolbox.impls import IMPLEMENTATIONS, ToolImpl
from partchat.transport.mcp_server import build_server, bundle_output_schema, call_result, mcp_tools
from partchat.transport.mcp_server import shared_schema as load_shared

CARD = {
    "partNumber": "PS3406971",
    "mfrNumber": "W10195416",
    "name": "Lower Dishrack Wheel",
    "brand": "Whirlpool",
    "partType": "Dishrack Wheel",
    "priceCents": 3357,
    "price": "$33.57",
    "availability": "In Stock",
    "inStock": True,
    "videoUrl": None,
    "difficulty": "Very Easy",
    "installTime": "15 - 30 mins",
    "rating": 97,
    "reviewCount": 333,
    "fit": None,
    "model": None,
}
DETAILS = {"ok": True, "part": CARD, "replaces": [], "symptoms": [], "appliances": ["dishwasher"]}


@pytest.fixture(scope="module")
def contracts() -> dict[str, Contract]:
    return load_contracts()[0]


@pytest.fixture(scope="module")
def shared() -> dict[str, Any]:
    return load_shared()


def test_tools_are_the_contracts(contracts: dict[str, Contract], shared: dict[str, Any]) -> None:
    tools = mcp_tools(contracts, shared)
    assert [t.name for t in tools] == sorted(contracts)
    for tool in tools:
        c = contracts[tool.name]
        assert (tool.description, tool.input_schema) == (c.description, c.input_schema)


def test_output_schemas_stand_alone(contracts: dict[str, Contract], shared: dict[str, Any]) -> None:
    """Bundled: no reference leaves the schema, and it judges like the original."""
    for tool in mcp_tools(contracts, shared):
        schema = tool.output_schema
        assert schema is not None and shared["$id"] not in json.dumps(schema)
        alone = Draft202012Validator(schema, registry=Registry())  # nothing to fetch
        assert alone.is_valid({"ok": True}) is False
    details = next(t for t in mcp_tools(contracts, shared) if t.name == "get_part_details")
    alone = Draft202012Validator(details.output_schema, registry=Registry())
    assert alone.is_valid(DETAILS)
    assert not alone.is_valid({**DETAILS, "part": {**CARD, "fit": "maybe"}})  # via $defs


def test_a_schema_without_shared_references_is_unchanged(shared: dict[str, Any]) -> None:
    schema = {"type": "object", "properties": {"ok": {"const": True}}}
    assert bundle_output_schema(schema, shared) is schema


def test_a_def_clashing_with_the_shared_ones_is_refused(shared: dict[str, Any]) -> None:
    schema = {
        "$defs": {"PartCard": {}},
        "properties": {"part": {"$ref": f"{shared['$id']}#/$defs/PartCard"}},
    }
    with pytest.raises(ContractError, match="PartCard"):
        bundle_output_schema(schema, shared)


def test_call_results_carry_structure_text_and_the_error_flag() -> None:
    ok = call_result(DETAILS)
    assert ok.structured_content == DETAILS and ok.is_error is False
    assert json.loads(ok.content[0].text) == DETAILS  # type: ignore[union-attr]
    failed = {"ok": False, "error": {"code": "timeout", "message": "slow", "errors": []}}
    err = call_result(failed)
    assert err.structured_content == failed and err.is_error is True


def _toolbox(contracts: dict[str, Contract], **fakes: ToolImpl) -> Toolbox:
    registry = load_contracts()[1]
    return Toolbox(None, contracts, registry, {**IMPLEMENTATIONS, **fakes}, timeout_s=0.05)  # type: ignore[arg-type]


async def test_calls_go_through_the_toolbox(
    contracts: dict[str, Contract], shared: dict[str, Any]
) -> None:
    """Normalised arguments reach the tool; its time limit and errors come back as
    results with ``isError``; missing arguments are ``{}``."""
    seen: list[dict[str, Any]] = []

    async def details(catalog: Any, args: dict[str, Any]) -> dict[str, Any]:
        seen.append(args)
        return DETAILS

    async def slow(catalog: Any, args: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(5)
        return DETAILS

    box = _toolbox(contracts, get_part_details=details, get_installation_instructions=slow)
    async with Client(build_server(lambda: box, shared)) as client:
        await client.list_tools()
        ok = await client.call_tool("get_part_details", {"partNumber": " ps3406971 "})
        late = await client.call_tool("get_installation_instructions", {"partNumber": "PS1"})
        bare = await client.call_tool("search_parts")
    assert seen == [{"partNumber": "PS3406971"}]
    assert ok.is_error is False and ok.structured_content == DETAILS
    assert late.is_error is True and late.structured_content["error"]["code"] == "timeout"
    assert bare.is_error is True
    assert bare.structured_content == await box.call("search_parts", {})
    assert bare.structured_content["error"]["errors"][0]["path"] == "/query"
