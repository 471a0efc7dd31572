"""What the MCP tests check over either transport: the listing equals ``tools/*.json``,
each of the six tools answers with real catalog data, bad input is the agent's error."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import Client

from partchat.catalog import Catalog
from partchat.toolbox.dispatch import Toolbox
from tests.support.servers import REPO

# A Whirlpool dishwasher, and a part the catalog lists for it.
MODEL = "WDT780SAEM1"
PART = "PS3406971"
CALLS: dict[str, dict[str, Any]] = {
    "search_parts": {"query": "dishrack wheel", "model": MODEL, "limit": 3},
    "get_part_details": {"partNumber": PART},
    "check_compatibility": {"partNumber": PART, "model": MODEL},
    "diagnose_repair": {"symptoms": ["leaking"], "appliance": "dishwasher", "model": MODEL},
    "get_installation_instructions": {"partNumber": PART},
    "extract_information": {"text": f"My {MODEL} dishwasher is leaking, is {PART} right?"},
}
BAD_CALLS: dict[str, Any] = {
    "get_part_details": {"partNumber": 5},
    "check_compatibility": {"partNumber": PART, "model": "a", "colour": "red"},
    "search_parts": {},
}


def contract_files() -> dict[str, dict[str, Any]]:
    """``tools/<name>.json`` as written, by tool name."""
    out = {}
    for path in sorted((REPO / "tools").glob("*.json")):
        if not path.name.startswith("_"):
            data = json.loads(path.read_text(encoding="utf-8"))
            out[data["name"]] = data
    return out


async def toolbox_results(catalog_db: Path, calls: dict[str, Any]) -> dict[str, Any]:
    """The results the agent's own ``Toolbox`` gives for ``calls`` over ``catalog_db``."""
    catalog = await Catalog.open(catalog_db)
    try:
        box = Toolbox.load(catalog)
        return {name: await box.call(name, args) for name, args in calls.items()}
    finally:
        await catalog.close()


async def check_listing(client: Client, catalog_db: Path) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    contracts = contract_files()
    assert sorted(tools) == sorted(contracts) and len(tools) == 6
    for name, contract in contracts.items():
        assert tools[name].description == contract["description"]
        assert tools[name].input_schema == contract["input_schema"]
        assert "shared.json" not in json.dumps(tools[name].output_schema)  # bundled


def check_answers(results: dict[str, Any]) -> None:
    """Facts about the catalog's answers (beyond equalling the Toolbox's own)."""
    assert all(r["ok"] is True for r in results.values())
    found = results["search_parts"]["parts"]
    assert found[0]["partNumber"] == PART and all(p["fit"] == "fits" for p in found[:1])
    assert results["get_part_details"]["part"]["name"] == "Lower Dishrack Wheel"
    assert results["check_compatibility"]["status"] == "fits"
    assert results["diagnose_repair"]["symptoms"] == ["Leaking"]
    assert results["diagnose_repair"]["candidates"]
    assert results["get_installation_instructions"]["guide"]["steps"]
    extracted = results["extract_information"]
    assert extracted["partNumbers"] == [PART]
    assert [m["model"] for m in extracted["models"]] == [MODEL]


async def check_calls(client: Client, catalog_db: Path) -> None:
    """Each tool over MCP: structured content equals the Toolbox's result, the text block
    holds the same JSON, and the SDK client's own check against the listed output schema
    passed (it raises otherwise)."""
    await client.list_tools()  # the client learns the output schemas it checks against
    expected = await toolbox_results(catalog_db, CALLS)
    got = {}
    for name, args in CALLS.items():
        result = await client.call_tool(name, args)
        assert result.is_error is False, result
        assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
        got[name] = result.structured_content
    assert got == expected
    check_answers(got)


async def check_bad_input(client: Client, catalog_db: Path) -> None:
    """Bad arguments and an unknown tool: the agent's error result, flagged ``isError``."""
    calls = {**BAD_CALLS, "no_such_tool": {}}
    expected = await toolbox_results(catalog_db, calls)
    for name, args in calls.items():
        result = await client.call_tool(name, args)
        assert result.is_error is True
        assert result.structured_content == expected[name]
        assert json.loads(result.content[0].text) == expected[name]  # type: ignore[union-attr]
    assert expected["get_part_details"]["error"]["code"] == "invalid_input"
    assert expected["get_part_details"]["error"]["errors"][0]["path"] == "/partNumber"
    assert expected["no_such_tool"]["error"]["code"] == "unknown_tool"


# Each check over one client: the listing, the six tools, bad input.
CHECKS: dict[str, Callable[[Client, Path], Awaitable[None]]] = {
    "listing": check_listing,
    "calls": check_calls,
    "bad_input": check_bad_input,
}
