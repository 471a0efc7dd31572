"""``/mcp``: the tools over Streamable HTTP on a real served app, with the SDK's client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.support.mcp_calls import CHECKS
from tests.support.servers import ServerProcess, prepare_data_dir

TOKEN = "test-token-8f1c2d"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}
JSON_RPC_HEADERS = {"accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def mcp_server(
    tmp_path_factory: pytest.TempPathFactory, catalog_db: Path
) -> Iterator[ServerProcess]:
    data = prepare_data_dir(tmp_path_factory.mktemp("mcp-server"), catalog_db)
    server = ServerProcess(data_dir=data, env={"PARTCHAT_MCP": "on", "PARTCHAT_MCP_TOKEN": TOKEN})
    server.start()
    yield server
    server.stop()


@asynccontextmanager
async def http_client(server: ServerProcess, mode: str) -> AsyncIterator[Client]:
    """The SDK client on ``/mcp`` with the bearer token (in the task that uses it)."""
    headers = {"authorization": f"Bearer {TOKEN}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(server.base_url + "/mcp", http_client=http)
        async with Client(transport, mode=mode) as client:
            yield client


# "auto" speaks the current protocol (per-request, discover); "legacy" the initialize
# handshake of 2025 clients, served by the stateless session manager.
MODES = ["auto", "legacy"]


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("mode", MODES)
async def test_tools_over_http(
    mcp_server: ServerProcess, catalog_db: Path, mode: str, check: str
) -> None:
    """The listing equals tools/*.json; the six tools answer as the Toolbox does; bad
    input is the agent's error result."""
    async with http_client(mcp_server, mode) as client:
        await CHECKS[check](client, catalog_db)


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token", f"Basic {TOKEN}", f"Bearer {TOKEN}x", "Bearer", TOKEN],
)
def test_a_missing_or_wrong_token_is_refused(
    mcp_server: ServerProcess, authorization: str | None
) -> None:
    headers = dict(JSON_RPC_HEADERS)
    if authorization is not None:
        headers["authorization"] = authorization
    r = httpx.post(mcp_server.base_url + "/mcp", json=INITIALIZE, headers=headers, timeout=10)
    assert r.status_code == 401
    assert r.headers["www-authenticate"].startswith("Bearer")
    assert TOKEN not in mcp_server.log()


def test_stateless_json_answers(mcp_server: ServerProcess) -> None:
    """A JSON body, no session id: any server behind a balancer answers the next call."""
    headers = {**JSON_RPC_HEADERS, "authorization": f"Bearer {TOKEN}"}
    r = httpx.post(mcp_server.base_url + "/mcp", json=INITIALIZE, headers=headers, timeout=10)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/json")
    assert "mcp-session-id" not in r.headers
    assert r.json()["result"]["serverInfo"]["name"] == "partchat"


def test_absent_when_off(live_server: ServerProcess) -> None:
    """Off by default: 404 for a client's POST (and any other method), with the reason."""
    url = live_server.base_url + "/mcp"
    r = httpx.post(url, json=INITIALIZE, headers=JSON_RPC_HEADERS)
    assert r.status_code == 404
    assert "PARTCHAT_MCP=on" in r.json()["message"]
    assert httpx.get(url).status_code == 404
    assert httpx.delete(url).status_code == 404
