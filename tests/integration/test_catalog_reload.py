"""A served server picks up a replaced catalog.db without a restart; a turn in flight
finishes on the old catalog."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.servers import ServerProcess, prepare_data_dir
from tests.support.wsclient import WsClient, text_of

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(120)]

RELOADED = "serving the replaced catalog"


@pytest.fixture
async def server(tmp_path: Path, catalog_db: Path) -> AsyncIterator[ServerProcess]:
    data = prepare_data_dir(tmp_path / "srv", catalog_db)
    env = {"PARTCHAT_CATALOG_CHECK_S": "0.2", "PARTCHAT_OFFLINE_DELAY_MS": "40"}
    srv = ServerProcess(data_dir=data, env=env).start()
    try:
        yield srv
    finally:
        srv.stop()


def replace_catalog(data_dir: Path, new: Path) -> None:
    """What an import ends with: a finished file moved over catalog.db."""
    tmp = data_dir / ".catalog.db.new"
    shutil.copy(new, tmp)
    os.replace(tmp, data_dir / "catalog.db")


async def until_logged(server: ServerProcess, line: str, timeout: float = 20.0) -> float:
    deadline = time.monotonic() + timeout
    while line not in server.log():
        assert time.monotonic() < deadline, f"{line!r} never logged:\n{server.log()}"
        await asyncio.sleep(0.05)
    return time.monotonic()


async def test_the_next_turn_answers_from_the_new_catalog(
    server: ServerProcess, imported_catalog_db: Path
) -> None:
    client = await WsClient.open(server.ws_url)
    try:
        await client.hello()
        before = text_of(await client.turn("tell me about AB-10234"))
        assert "Brightwash" not in before and "$64.50" not in before

        # a long answer streaming from the shipped catalog while the file is replaced
        await client.message("How can I install part number PS11752778?")
        await client.until(lambda e: e["type"] == "text-delta")
        replace_catalog(server.data_dir, imported_catalog_db)
        reloaded_at = await until_logged(server, RELOADED)
        rest = await client.until(lambda e: e["type"] == "finish", timeout=60)
        finished_at = time.monotonic()
        assert rest[-1]["finishReason"] == "stop"
        assert finished_at > reloaded_at  # it was still streaming when the swap happened
        in_flight = [e for e in client.events if e.get("turnId") == rest[-1]["turnId"]]
        answer = text_of(in_flight)
        assert "Refrigerator Door Shelf Bin" in answer and "PS11752778" in answer
        assert "**Steps**" in answer  # finished whole, on the old catalog

        after = text_of(await client.turn("tell me about AB-10234"))
        assert "Brightwash Drain Pump Assembly" in after and "$64.50" in after
        gone = text_of(await client.turn("tell me about PS11752778"))
        assert "couldn't find part" in gone
    finally:
        await client.close()


async def test_a_broken_replacement_keeps_the_old_catalog(server: ServerProcess) -> None:
    (server.data_dir / "broken.db").write_bytes(b"not a database")
    os.replace(server.data_dir / "broken.db", server.data_dir / "catalog.db")
    await until_logged(server, "cannot be opened")
    client = await WsClient.open(server.ws_url)
    try:
        await client.hello()
        answer = text_of(await client.turn("tell me about PS11752778"))
        assert "Refrigerator Door Shelf Bin" in answer
    finally:
        await client.close()
