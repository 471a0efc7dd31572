"""Sessions across server restarts: clean (SIGTERM, between turns and mid-turn) and crash.

One server process for the module; the tests restart it one after the other and each uses
its own session.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.conftest import STREAM_DELAY_MS
from tests.support.protocol import check_seq_stream
from tests.support.servers import ServerProcess, prepare_data_dir
from tests.support.wsclient import WsClient, text_of

pytestmark = pytest.mark.timeout(90)

COMPAT_Q = "Is PS3406971 compatible with my WDT780SAEM1?"
LONG_Q = "The ice maker on my Whirlpool WRS325SDHZ stopped making ice"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, catalog_db: Path) -> Iterator[ServerProcess]:
    data = prepare_data_dir(tmp_path_factory.mktemp("restart-server"), catalog_db)
    proc = ServerProcess(data_dir=data, env={"PARTCHAT_OFFLINE_DELAY_MS": STREAM_DELAY_MS})
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture
async def clients() -> AsyncIterator[list[WsClient]]:
    opened: list[WsClient] = []
    yield opened
    for client in opened:
        await client.close()


async def connect(
    server: ServerProcess, opened: list[WsClient], session_id: str | None, last_seq: int | None
) -> WsClient:
    client = await WsClient.open(server.ws_url)
    opened.append(client)
    await client.hello(session_id, last_seq)
    return client


async def stored_session(server: ServerProcess, session_id: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10.0) as http:
        response = await http.get(f"/api/sessions/{session_id}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


async def test_restart_between_turns(server: ServerProcess, clients: list[WsClient]) -> None:
    client = await connect(server, clients, None, None)
    message_id = await client.message(COMPAT_Q)
    first = await client.until(lambda e: e["type"] == "finish")
    last = check_seq_stream(client.events)[-1]
    await client.close()

    await asyncio.to_thread(server.restart)

    again = await connect(server, clients, client.session_id, last)
    ready = again.ready
    assert ready is not None
    assert ready["resumed"] is True and ready["sessionId"] == client.session_id
    assert ready["inflight"] is None
    assert ready["context"]["productModel"] == "WDT780SAEM1"
    assert ready["context"]["partNumber"] == "PS3406971"
    assert [
        (m["role"], m["id"] if m["role"] == "user" else m["status"]) for m in ready["history"]
    ] == [
        ("user", message_id),
        ("assistant", "complete"),
    ]
    assert ready["history"][1]["text"] == first[-1]["text"]
    # A clean restart continues the stream where it ended: the client's lastSeq still fits.
    assert ready["seq"] == last

    events = await again.turn("How do I install it?")
    assert events[-1]["finishReason"] == "stop"
    seqs = check_seq_stream(events, start_after=ready["seq"])
    assert min(seqs) > last
    inputs = [e["input"] for e in events if e["type"] == "tool-input-available"]
    assert any(i.get("partNumber") == "PS3406971" for i in inputs), inputs


async def test_sigterm_during_a_turn_stores_it(
    server: ServerProcess, clients: list[WsClient]
) -> None:
    reference = await connect(server, clients, None, None)
    expected = (await reference.turn(LONG_Q))[-1]["text"]

    client = await connect(server, clients, None, None)
    message_id = await client.message(LONG_Q)
    deltas = 0

    def five_deltas(event: dict[str, Any]) -> bool:
        nonlocal deltas
        deltas += event["type"] == "text-delta"
        return deltas >= 5

    await client.until(five_deltas)
    stopping = asyncio.create_task(asyncio.to_thread(server.stop, signal.SIGTERM, 30.0))
    closed = await client.expect_closed(timeout=20)
    assert closed.code in (1001, 1012), closed  # uvicorn closes sockets itself (1012)
    code = await asyncio.wait_for(stopping, 40)
    # uvicorn re-raises the signal once its shutdown is complete: -SIGTERM is a clean exit.
    log = server.log().rsplit("Started server process", 1)[-1]  # this run's log
    assert code in (0, -signal.SIGTERM), log[-3000:]
    assert "Application shutdown complete" in log and "Finished server process" in log, log
    assert "Traceback" not in log and "ERROR" not in log, log
    seen = [e for e in client.events if e["type"] != "ready"]
    last = check_seq_stream(seen, start_after=0)[-1]

    await asyncio.to_thread(server.start)
    data = await stored_session(server, client.session_id)
    user, answer = data["history"]
    assert user["id"] == message_id and user["text"] == LONG_Q
    # Finished within the grace period, or aborted with what was written kept.
    if answer["status"] == "complete":
        assert answer["text"] == expected
    else:
        assert answer["status"] == "partial", answer
        assert expected.startswith(answer["text"])
    assert answer["text"].startswith(text_of(seen))

    again = await connect(server, clients, client.session_id, last)
    ready = again.ready
    assert ready is not None
    assert ready["resumed"] is True and ready["inflight"] is None
    assert ready["seq"] >= last
    assert ready["history"][-1]["text"] == answer["text"]
    events = await again.turn(COMPAT_Q)
    assert events[-1]["finishReason"] == "stop"
    assert min(check_seq_stream(events, start_after=ready["seq"])) > last


async def test_crash_during_a_turn(server: ServerProcess, clients: list[WsClient]) -> None:
    client = await connect(server, clients, None, None)
    message_id = await client.message(LONG_Q)
    await client.until(lambda e: e["type"] == "text-delta")
    await asyncio.to_thread(server.kill)
    closed = await client.expect_closed(timeout=10)
    assert closed.code in (None, 1006), closed  # no closing handshake: the process died
    seen = [e for e in client.events if e["type"] != "ready"]
    last = check_seq_stream(seen, start_after=0)[-1]

    await asyncio.to_thread(server.start)
    again = await connect(server, clients, client.session_id, last)
    ready = again.ready
    assert ready is not None
    assert ready["resumed"] is True and ready["inflight"] is None
    assert [(m["role"], m.get("status")) for m in ready["history"]] == [
        ("user", "complete"),
        ("assistant", "interrupted"),
    ]
    assert ready["history"][0]["id"] == message_id
    # Events sent before the crash were never recorded: the stream jumps past all of them.
    assert ready["seq"] > last
    events = await again.turn(COMPAT_Q)
    assert events[-1]["finishReason"] == "stop"
    check_seq_stream(events, start_after=ready["seq"])
