"""``partchat mcp``: the six tools over stdio, driven by the MCP SDK's own client."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.support.mcp_calls import CHECKS, PART
from tests.support.servers import prepare_data_dir


@asynccontextmanager
async def stdio_client(data_dir: Path, timeout: float = 60) -> AsyncIterator[Client]:
    """``python -m partchat.cli mcp`` as the client's subprocess, over ``data_dir``.

    A context manager, not a fixture: the client's task group must close in the task
    that opened it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARTCHAT_")}
    env["PARTCHAT_DATA_DIR"] = str(data_dir)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "partchat.cli", "mcp"], env=env, cwd=str(data_dir)
    )
    async with Client(params, read_timeout_seconds=timeout) as client:
        yield client


@pytest.fixture
def data_dir(tmp_path: Path, catalog_db: Path) -> Path:
    return prepare_data_dir(tmp_path / "var", catalog_db)


@pytest.mark.parametrize("check", CHECKS)
async def test_tools_over_stdio(data_dir: Path, catalog_db: Path, check: str) -> None:
    """The listing equals tools/*.json; the six tools answer as the Toolbox does; bad
    input is the agent's error result."""
    async with stdio_client(data_dir) as client:
        await CHECKS[check](client, catalog_db)


@pytest.mark.slow
async def test_builds_a_missing_catalog_first(tmp_path: Path) -> None:
    """Like ``serve``: an empty data directory gets its catalog built, then served."""
    data = tmp_path / "empty"
    data.mkdir()
    async with stdio_client(data, timeout=120) as client:
        result = await client.call_tool("get_part_details", {"partNumber": PART.lower() + " "})
    assert result.is_error is False
    assert result.structured_content["part"]["partNumber"] == PART
    assert (data / "catalog.db").is_file()
