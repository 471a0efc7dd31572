"""Several server processes on one data directory (what ``--workers N`` runs).

Two (or three) separate ``partchat serve`` processes on their own ports share one
``PARTCHAT_DATA_DIR``: the same as N workers behind one socket, but the test chooses which
process each connection reaches. The rule under test (docs/architecture.md, "Where the
state lives"): a reconnect on another process finds the session and its history; a turn
still streaming in another process is not streamed there, the client is told so plainly
(``error turn_elsewhere`` after ``ready``) and a new message is refused with ``busy``; a
process starting never interrupts a live sibling's turn; a dead process's turn is marked
interrupted by a live one.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from tests.support.servers import ServerProcess, prepare_data_dir
from tests.support.wsclient import WsClient, text_of

pytestmark = pytest.mark.timeout(120)

HEARTBEAT_S = "0.5"  # so a dead process is noticed in about a second
SLOW_MS = "40"  # per word: the long answer streams for several seconds
COMPAT_Q = "Is PS3406971 compatible with my WDT780SAEM1?"
LONG_Q = "The ice maker on my Whirlpool WRS325SDHZ stopped making ice"


@pytest.fixture
def data_dir(tmp_path: Path, catalog_db: Path) -> Path:
    return prepare_data_dir(tmp_path / "shared", catalog_db)


@pytest.fixture
def servers(data_dir: Path) -> Iterator[list[ServerProcess]]:
    """Start processes on the shared data directory with ``start(**env)``; all are stopped."""
    started: list[ServerProcess] = []
    yield started
    for server in started:
        server.stop()


def start(started: list[ServerProcess], data_dir: Path, *args: str, **env: str) -> ServerProcess:
    server = ServerProcess(
        data_dir=data_dir,
        env={
            "PARTCHAT_OFFLINE_DELAY_MS": SLOW_MS,
            "PARTCHAT_WORKER_HEARTBEAT_S": HEARTBEAT_S,
            **env,
        },
        args=args,
    )
    started.append(server)
    return server.start()


@pytest.fixture
async def clients() -> AsyncIterator[list[WsClient]]:
    opened: list[WsClient] = []
    yield opened
    for client in opened:
        await client.close()


async def connect(
    server: ServerProcess,
    opened: list[WsClient],
    session_id: str | None = None,
    last_seq: int | None = None,
) -> WsClient:
    client = await WsClient.open(server.ws_url)
    opened.append(client)
    await client.hello(session_id, last_seq)
    return client


async def after_ready(client: WsClient) -> list[dict[str, Any]]:
    """Every event the server sent after ``ready`` up to now (a ping's pong marks the end)."""
    await client.send({"type": "ping"})
    return (await client.until(lambda e: e["type"] == "pong"))[:-1]


async def stored(server: ServerProcess, session_id: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10.0) as http:
        response = await http.get(f"/api/sessions/{session_id}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


async def registered_workers(data_dir: Path, want: int, timeout: float = 30.0) -> dict[str, int]:
    """Boot id → pid of the workers registered in sessions.db, once ``want`` are (each
    registers as its app starts, just before it listens), or whatever is at the timeout."""
    deadline = time.monotonic() + timeout
    while True:
        with sqlite3.connect(data_dir / "sessions.db") as conn:
            workers = {row[0]: row[1] for row in conn.execute("SELECT boot_id, pid FROM workers")}
        if len(workers) >= want or time.monotonic() > deadline:
            return workers
        await asyncio.sleep(0.2)


def turn_statuses(data_dir: Path) -> list[str]:
    with sqlite3.connect(data_dir / "sessions.db") as conn:
        return [row[0] for row in conn.execute("SELECT status FROM turns ORDER BY started_at")]


def roles_and_status(history: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    return [(m["role"], m.get("status") if m["role"] == "assistant" else None) for m in history]


async def test_a_reconnect_on_another_process_finds_the_session(
    servers: list[ServerProcess], data_dir: Path, clients: list[WsClient]
) -> None:
    a = start(servers, data_dir)
    b = start(servers, data_dir)
    on_a = await connect(a, clients)
    message_id = await on_a.message(COMPAT_Q)
    finish = (await on_a.until(lambda e: e["type"] == "finish"))[-1]
    assert finish["finishReason"] == "stop"

    on_b = await connect(b, clients, on_a.session_id, finish["seq"])
    ready = on_b.ready
    assert ready is not None
    assert ready["resumed"] is True and ready["sessionId"] == on_a.session_id
    assert ready["inflight"] is None and ready["seq"] == finish["seq"]
    assert ready["context"]["productModel"] == "WDT780SAEM1"
    assert [m["id"] for m in ready["history"] if m["role"] == "user"] == [message_id]
    assert ready["history"][-1]["text"] == finish["text"]
    assert await after_ready(on_b) == []  # nothing running anywhere: no notice

    # The session goes on on B, its seqs after A's.
    events = await on_b.turn("Do you have the installation steps?")
    assert events[0]["type"] == "start" and events[0]["seq"] == finish["seq"] + 1
    assert events[-1]["finishReason"] == "stop"


async def test_a_turn_streaming_in_another_process_is_reported_plainly(
    servers: list[ServerProcess], data_dir: Path, clients: list[WsClient]
) -> None:
    a = start(servers, data_dir)
    b = start(servers, data_dir)
    on_a = await connect(a, clients)
    first_id = await on_a.message(LONG_Q)
    start_event = (await on_a.until(lambda e: e["type"] == "start"))[-1]
    await on_a.until(lambda e: e["type"] == "text-delta")
    turn_id = start_event["turnId"]

    # B: the session and the question are there; the streaming answer is not, and B says why.
    on_b = await connect(b, clients, on_a.session_id, start_event["seq"])
    ready = on_b.ready
    assert ready is not None and ready["resumed"] is True
    assert ready["inflight"] is None
    assert [(m["role"], m["id"]) for m in ready["history"]] == [("user", first_id)]
    assert ready["seq"] < start_event["seq"]  # resuming on A from here replays the whole turn
    notices = await after_ready(on_b)
    assert len(notices) == 1
    notice = notices[0]
    assert notice["type"] == "error" and notice["code"] == "turn_elsewhere"
    assert notice["turnId"] == turn_id and "seq" not in notice
    assert "another server" in notice["message"] and "reconnect" in notice["message"]

    # A message on B is refused with busy (not lost silently, not run beside A's turn).
    second_id = await on_b.message("Is PS3406971 compatible with my WDT780SAEM1?")
    refused = (await on_b.until(lambda e: e["type"] == "error"))[-1]
    assert refused["code"] == "busy" and refused["messageId"] == second_id
    assert "another server" in refused["message"]
    assert not [e for e in on_b.events if e["type"] == "start"]
    # The HTTP API refuses too, and B's view of the stored session has one question only.
    async with httpx.AsyncClient(base_url=b.base_url, timeout=10.0) as http:
        response = await http.post(
            "/api/chat", json={"message": "hello?", "sessionId": on_a.session_id}
        )
    assert response.status_code == 409 and response.json()["error"]["code"] == "busy"
    assert roles_and_status((await stored(b, on_a.session_id))["history"]) == [("user", None)]

    # A streams on undisturbed and finishes.
    events = await on_a.until(lambda e: e["type"] == "finish", timeout=60)
    finish = events[-1]
    assert finish["finishReason"] == "stop" and finish["text"]
    assert [e["type"] for e in on_a.events].count("error") == 0

    # Reconnecting on B now shows the finished answer, with no notice.
    again = await connect(b, clients, on_a.session_id, ready["seq"])
    assert again.ready is not None and again.ready["inflight"] is None
    history = again.ready["history"]
    assert roles_and_status(history) == [("user", None), ("assistant", "complete")]
    assert history[-1]["turnId"] == turn_id and history[-1]["text"] == finish["text"]
    assert again.ready["seq"] == finish["seq"]
    assert await after_ready(again) == []
    # … and the refused message, sent again, runs on B.
    retried = await again.turn("Is PS3406971 compatible with my WDT780SAEM1?", second_id)
    assert retried[0]["type"] == "start" and retried[0]["seq"] == finish["seq"] + 1
    assert retried[-1]["finishReason"] == "stop" and "WDT780SAEM1" in retried[-1]["text"]

    # A, whose copy of the session is now behind, shows B's turn on a reconnect.
    back_on_a = await connect(a, clients, on_a.session_id, retried[-1]["seq"])
    assert back_on_a.ready is not None
    assert [m["id"] for m in back_on_a.ready["history"] if m["role"] == "user"] == [
        first_id,
        second_id,
    ]
    assert back_on_a.ready["seq"] == retried[-1]["seq"]


async def test_a_process_starting_leaves_a_live_siblings_turn_running(
    servers: list[ServerProcess], data_dir: Path, clients: list[WsClient]
) -> None:
    # A streams slowly enough (~15 s) to outlast a third process's start-up and B's
    # restart on a loaded machine (each takes up to ~3 s, more under load).
    a = start(servers, data_dir, PARTCHAT_OFFLINE_DELAY_MS="100")
    b = start(servers, data_dir)
    on_a = await connect(a, clients)
    await on_a.message(LONG_Q)
    await on_a.until(lambda e: e["type"] == "text-delta")

    # A third process starts, and B restarts, while A's answer streams.
    c = await asyncio.to_thread(start, servers, data_dir)
    await asyncio.to_thread(b.restart)
    assert turn_statuses(data_dir) == ["running"]  # still streaming: the start-ups saw it
    assert "turns of stopped server processes interrupted" not in c.log() + b.log()

    finish = (await on_a.until(lambda e: e["type"] == "finish", timeout=60))[-1]
    assert finish["finishReason"] == "stop"
    assert finish["text"] == text_of(on_a.events)
    for server in (a, b, c):
        history = (await stored(server, on_a.session_id))["history"]
        assert roles_and_status(history) == [("user", None), ("assistant", "complete")]
        assert history[-1]["text"] == finish["text"]


async def test_a_killed_processs_turn_is_marked_interrupted_by_a_live_one(
    servers: list[ServerProcess], data_dir: Path, clients: list[WsClient]
) -> None:
    a = start(servers, data_dir)
    b = start(servers, data_dir)
    on_a = await connect(a, clients)
    question_id = await on_a.message(LONG_Q)
    for _ in range(3):
        await on_a.until(lambda e: e["type"] == "text-delta")
    await asyncio.to_thread(a.kill)

    # B notices on its own (heartbeat loop), without anyone opening the session there.
    # Its log line is written just after the commit the status shows, so wait for both.
    said = "marked 1 turns of a dead server process interrupted"
    deadline = time.monotonic() + 10
    while True:
        statuses = turn_statuses(data_dir)
        if (statuses == ["interrupted"] and said in b.log()) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.1)
    assert statuses == ["interrupted"]
    assert said in b.log()

    on_b = await connect(b, clients, on_a.session_id, None)
    assert on_b.ready is not None and on_b.ready["inflight"] is None
    history = on_b.ready["history"]
    assert roles_and_status(history) == [("user", None), ("assistant", "interrupted")]
    assert history[0]["id"] == question_id
    assert await after_ready(on_b) == []
    events = await on_b.turn(COMPAT_Q)
    assert events[-1]["finishReason"] == "stop"


async def listening_pids(port: int, pids: set[int], want: set[int]) -> set[int]:
    """Which of ``pids`` hold a socket listening on ``port``, once they are ``want`` (a
    worker listens just after it registers) or after a few seconds."""
    deadline = time.monotonic() + 10.0
    while True:
        found = {
            pid
            for pid in pids
            if any(
                c.status == psutil.CONN_LISTEN and c.laddr.port == port
                for c in psutil.Process(pid).net_connections(kind="tcp")
            )
        }
        if found == want or time.monotonic() > deadline:
            return found
        await asyncio.sleep(0.1)


@pytest.mark.parametrize("fast_paths", ["on", "off"])
async def test_serve_with_two_workers(
    servers: list[ServerProcess], data_dir: Path, clients: list[WsClient], fast_paths: str
) -> None:
    """With the ``workers`` fast path each worker listens on its own socket and the
    supervisor on none; with it off (``PARTCHAT_FAST_PATHS=off``: uvicorn's public
    multi-worker path) the supervisor holds the one socket the workers share. Either way
    both workers start and serve."""
    server = start(
        servers,
        data_dir,
        "--workers",
        "2",
        PARTCHAT_OFFLINE_DELAY_MS="0",
        PARTCHAT_FAST_PATHS=fast_paths,
    )
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10.0) as http:
        health = await http.get("/health")
    assert health.status_code == 200 and health.json()["status"] == "ok"

    workers = await registered_workers(data_dir, 2)
    assert len(workers) == 2 and len(set(workers.values())) == 2
    assert server.pid is not None
    pids = set(workers.values())
    if fast_paths == "on":
        assert await listening_pids(server.port, pids, pids) == pids
        assert await listening_pids(server.port, {server.pid}, set()) == set()
        assert "a socket each, SO_REUSEPORT" in server.log()
    else:
        assert await listening_pids(server.port, {server.pid}, {server.pid}) == {server.pid}
        assert "SO_REUSEPORT" not in server.log()

    first = await connect(server, clients)
    events = await first.turn(COMPAT_Q)
    finish = events[-1]
    assert finish["finishReason"] == "stop" and "WDT780SAEM1" in finish["text"]
    # Whichever worker a reconnect reaches, the session and its answer are there.
    for _ in range(6):
        again = await connect(server, clients, first.session_id, finish["seq"])
        assert again.ready is not None and again.ready["resumed"] is True
        assert again.ready["history"][-1]["text"] == finish["text"]
        await again.close()


async def test_two_workers_share_a_burst_of_connections(
    servers: list[ServerProcess], data_dir: Path, clients: list[WsClient]
) -> None:
    """Each worker listens on its own SO_REUSEPORT socket and the kernel spreads new
    connections over them: both workers listen, and both get a share of a burst. (This
    burst, opened from one client loop, also spread over uvicorn's one shared socket; the
    benchmark's pattern did not, see docs/performance.md.)"""
    server = start(servers, data_dir, "--workers", "2", PARTCHAT_OFFLINE_DELAY_MS="0")
    assert len(await registered_workers(data_dir, 2)) == 2
    await asyncio.sleep(1.0)  # each listens right after registering
    sessions = 40
    opened = await asyncio.gather(*(connect(server, clients) for _ in range(sessions)))
    finishes = await asyncio.gather(*(c.turn(COMPAT_Q) for c in opened))
    assert all(events[-1]["finishReason"] == "stop" for events in finishes)
    with sqlite3.connect(data_dir / "sessions.db") as conn:
        owners = [row[0] for row in conn.execute("SELECT owner FROM turns")]
    per_worker = sorted(owners.count(o) for o in set(owners))
    assert len(owners) == sessions and len(per_worker) == 2, per_worker
    # By the 4-tuple hash, fewer than 8 of 40 on one worker has odds of ~1 in 24,000.
    assert per_worker[0] >= 8, per_worker


def test_workers_on_a_taken_port_stop_with_one_clear_error(data_dir: Path) -> None:
    """Not a restart loop of workers that cannot listen: the parent checks first."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "PARTCHAT_DATA_DIR": str(data_dir), "PARTCHAT_LLM": "offline"}
        done = subprocess.run(
            [sys.executable, "-m", "partchat.cli", "serve", "--workers", "2", "--port", str(port)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 3  # uvicorn's STARTUP_FAILURE
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Address already in use" in done.stderr
