"""Fixtures for the tool tests: the real catalog, the real contracts, fakes to inject."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from referencing import Registry

from partchat.catalog import Catalog
from partchat.toolbox.contracts import Contract, load_contracts
from partchat.toolbox.dispatch import Toolbox

TOOLS_DIR = Path(__file__).resolve().parents[3] / "tools"
ERROR_CODES = {"invalid_input", "unknown_tool", "unknown_part", "timeout", "internal"}
_POINTER = re.compile(r"^(/([^~]|~[01])*)*$")


@pytest.fixture(scope="session")
def contracts() -> tuple[dict[str, Contract], Registry]:
    return load_contracts()


@pytest.fixture
async def catalog(catalog_db: Path) -> AsyncIterator[Catalog]:
    cat = await Catalog.open(catalog_db)
    try:
        yield cat
    finally:
        await cat.close()


@pytest.fixture
async def toolbox(catalog: Catalog) -> Toolbox:
    return Toolbox.load(catalog)


class LoopToolbox:
    """A toolbox over the real catalog on a private event loop, for sync (hypothesis) tests."""

    def __init__(self, catalog_db: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.catalog = self.loop.run_until_complete(Catalog.open(catalog_db))
        self.toolbox = Toolbox.load(self.catalog, validate_output=True)

    def call(self, name: str, args: Any) -> dict[str, Any]:
        return self.loop.run_until_complete(self.toolbox.call(name, args))

    def close(self) -> None:
        self.loop.run_until_complete(self.catalog.close())
        self.loop.close()


@pytest.fixture(scope="module")
def loop_toolbox(catalog_db: Path) -> Iterator[LoopToolbox]:
    box = LoopToolbox(catalog_db)
    try:
        yield box
    finally:
        box.close()


def assert_result_shape(toolbox: Toolbox, name: str, result: Any) -> None:
    """Every result: a JSON-encodable dict with ok true (valid output) or the error shape."""
    assert isinstance(result, dict), result
    assert result.get("ok") in (True, False), result
    json.dumps(result, ensure_ascii=False).encode("utf-8")  # no lone surrogates leak out
    if result["ok"]:
        assert toolbox.output_errors(name, result) == [], (name, result)
        return
    assert set(result) == {"ok", "error"}, result
    error = result["error"]
    assert set(error) == {"code", "message", "errors"}, error
    assert error["code"] in ERROR_CODES, error
    assert isinstance(error["message"], str) and error["message"], error
    assert isinstance(error["errors"], list)
    for item in error["errors"]:
        assert set(item) == {"path", "message"}, item
        assert isinstance(item["path"], str) and _POINTER.match(item["path"]), item
        assert isinstance(item["message"], str) and item["message"], item
    if error["code"] == "invalid_input":
        assert error["errors"], result
