"""Several servers with the Redis live log: a turn resumes and stops from any server.

Two ``partchat serve`` processes share the sessions (one PostgreSQL database with a data
directory each, as two machines; or one SQLite database on one machine) and one real
redis-server. A client cut off from the server streaming its turn reconnects
to the other and gets the rest of the turn exactly once; ``stop`` sent to the other stops
it; the owner killed with ``kill -9`` has its turn marked interrupted by the other, with
the user message and the partial answer kept.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.redis_server import RedisServer
from tests.support.servers import ServerProcess, prepare_data_dir
from tests.support.stores import create_database, drop_database
from tests.support.wsclient import WsClient, text_of

pytestmark = pytest.mark.timeout(120)

HEARTBEAT_S = "0.5"
SLOW_MS = "60"  # per word: the long answer streams for several seconds
LONG_Q = "The ice maker on my Whirlpool WRS325SDHZ stopped making ice"

Event = dict[str, Any]
Start = Callable[..., ServerProcess]


@pytest.fixture(params=["postgres", "sqlite"])
async def cluster(
    request: pytest.FixtureRequest, tmp_path: Path, catalog_db: Path, redis_url: str
) -> AsyncIterator[Start]:
    """``start()`` a server of the cluster; all are stopped afterwards.

    ``postgres``: each server has a data directory of its own (two machines: nothing on a
    shared disk), sessions in one PostgreSQL database. ``sqlite``: the servers share one
    data directory (several processes on one machine)."""
    database = None
    if request.param == "postgres":
        server_dsn = request.getfixturevalue("postgres_dsn")
        database = await create_database(server_dsn)
    started: list[ServerProcess] = []

    def start(**env: str) -> ServerProcess:
        own = database is not None
        data_dir = tmp_path / (f"machine-{len(started)}" if own else "shared")
        if not data_dir.exists():
            prepare_data_dir(data_dir, catalog_db)
        server = ServerProcess(
            data_dir=data_dir,
            env={
                "PARTCHAT_OFFLINE_DELAY_MS": SLOW_MS,
                "PARTCHAT_WORKER_HEARTBEAT_S": HEARTBEAT_S,
                "PARTCHAT_REDIS_URL": redis_url,
                **({"PARTCHAT_DATABASE_URL": database} if database else {}),
                **env,
            },
        )
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()
    if database is not None:
        await drop_database(request.getfixturevalue("postgres_dsn"), database)


@pytest.fixture
async def clients() -> AsyncIterator[list[WsClient]]:
    opened: list[WsClient] = []
    yield opened
    for client in opened:
        await client.close()


async def connect(
    server: ServerProcess, opened: list[WsClient], session_id: str | None = None, **kw: Any
) -> WsClient:
    client = await WsClient.open(server.ws_url)
    opened.append(client)
    await client.hello(session_id, kw.get("last_seq"))
    return client


async def streaming(server: ServerProcess, opened: list[WsClient]) -> tuple[WsClient, str]:
    """A client on ``server`` whose long answer has begun to stream; its message id."""
    client = await connect(server, opened)
    message_id = await client.message(LONG_Q)
    await client.until(lambda e: e["type"] == "text-delta")
    return client, message_id


async def stored(server: ServerProcess, session_id: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10.0) as http:
        response = await http.get(f"/api/sessions/{session_id}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def seqs(events: list[Event]) -> list[int]:
    """The seqs of the turn events (``ready`` carries the session's seq, not its own)."""
    return [e["seq"] for e in events if "seq" in e and e["type"] != "ready"]


async def test_a_client_cut_off_resumes_the_turn_on_another_server_exactly_once(
    cluster: Start, clients: list[WsClient]
) -> None:
    a, b = cluster(), cluster()
    on_a = await connect(a, clients)
    await on_a.message(LONG_Q)
    before = await on_a.until(lambda e: e["type"] == "text-delta")
    before += await on_a.until(lambda e: e["type"] == "text-delta")
    start = before[0]
    assert start["type"] == "start"
    await on_a.abort()

    on_b = await connect(b, clients, on_a.session_id, last_seq=before[-1]["seq"])
    ready = on_b.ready
    assert ready is not None and ready["resumed"] is True
    assert ready["inflight"] == {"turnId": start["turnId"], "messageId": start["messageId"]}
    assert ready["seq"] >= before[-1]["seq"]
    after = await on_b.until(lambda e: e["type"] == "finish", timeout=60)
    assert not [e for e in on_b.events if e["type"] == "error"]

    # Exactly once, no gap: the seqs run on from where the client was cut off.
    got = seqs(before) + seqs(after)
    assert got == list(range(got[0], got[0] + len(got)))
    finish = after[-1]
    assert finish["finishReason"] == "stop" and finish["turnId"] == start["turnId"]
    assert text_of(before) + text_of(after) == finish["text"]

    # The session goes on on B after A's turn, its seqs after A's.
    events = await on_b.turn("Is PS3406971 compatible with my WDT780SAEM1?", timeout=60)
    assert events[0]["type"] == "start" and events[0]["seq"] == finish["seq"] + 1
    assert events[-1]["finishReason"] == "stop"


async def test_a_resume_without_last_seq_replays_the_turn_from_its_start(
    cluster: Start, clients: list[WsClient]
) -> None:
    a, b = cluster(), cluster()
    on_a, message_id = await streaming(a, clients)
    # A second tab on B opens the session with nothing: it sees the turn from its start.
    on_b = await connect(b, clients, on_a.session_id)
    assert on_b.ready is not None and on_b.ready["inflight"]["messageId"] == message_id
    events = await on_b.until(lambda e: e["type"] == "finish", timeout=60)
    assert events[0]["type"] == "start"
    assert text_of(events) == events[-1]["text"]
    # Both clients saw the same frames.
    a_events = await on_a.until(lambda e: e["type"] == "finish", timeout=60)
    assert seqs(events) == seqs(on_a.events)
    assert a_events[-1] == events[-1]


async def test_stop_sent_to_another_server_stops_the_turn(
    cluster: Start, clients: list[WsClient]
) -> None:
    a, b = cluster(), cluster()
    on_a, _ = await streaming(a, clients)
    on_b = await connect(b, clients, on_a.session_id)
    await on_b.until(lambda e: e["type"] == "text-delta")
    await on_b.send({"type": "stop"})

    finish_b = (await on_b.until(lambda e: e["type"] == "finish", timeout=30))[-1]
    finish_a = (await on_a.until(lambda e: e["type"] == "finish", timeout=30))[-1]
    assert finish_a["finishReason"] == finish_b["finishReason"] == "aborted"
    history = (await stored(b, on_a.session_id))["history"]
    assert [m["role"] for m in history] == ["user", "assistant"]
    assert history[-1]["status"] == "partial" and history[-1]["text"] == finish_a["text"]


async def test_a_message_sent_to_another_server_while_a_turn_runs_is_busy_and_idempotent(
    cluster: Start, clients: list[WsClient]
) -> None:
    a, b = cluster(), cluster()
    on_a, first = await streaming(a, clients)
    on_b = await connect(b, clients, on_a.session_id)
    # The same message again (a client retrying on another server): no second turn.
    await on_b.message(LONG_Q, first)
    second = await on_b.message("and the water filter?")
    refused = (await on_b.until(lambda e: e["type"] == "error"))[-1]
    assert refused["code"] == "busy" and refused["messageId"] == second
    await on_b.until(lambda e: e["type"] == "finish", timeout=60)
    history = (await stored(b, on_a.session_id))["history"]
    assert [m["role"] for m in history] == ["user", "assistant"]
    assert [e["type"] for e in on_b.events].count("start") == 1


async def test_the_owner_killed_mid_turn_is_interrupted_by_the_other_server(
    cluster: Start, clients: list[WsClient]
) -> None:
    a, b = cluster(), cluster()
    on_a, message_id = await streaming(a, clients)
    on_b = await connect(b, clients, on_a.session_id)
    streamed = await on_b.until(lambda e: e["type"] == "text-delta")
    streamed += await on_b.until(lambda e: e["type"] == "text-delta")
    a.kill()

    # B notices (the owner's pid is gone; across machines: its heartbeat goes stale)
    # and sends the stored state again: the question, the answer so far, interrupted.
    resync = (await on_b.until(lambda e: e["type"] == "ready", timeout=15))[-1]
    assert resync["inflight"] is None
    history = resync["history"]
    assert [m["role"] for m in history] == ["user", "assistant"]
    assert history[0]["id"] == message_id
    assert history[1]["status"] == "interrupted"
    partial = history[1]["text"]
    assert partial.startswith(text_of(streamed)) and partial
    assert (await stored(b, on_a.session_id))["history"][1]["text"] == partial

    # The session goes on on B.
    events = await on_b.turn("Is PS3406971 compatible with my WDT780SAEM1?", timeout=60)
    assert events[-1]["finishReason"] == "stop"
    assert events[0]["seq"] > max(seqs(on_b.events[: -len(events)]))


SESSIONS = 200
TURNS = 5
AT_ONCE = 40  # sessions in flight together (the machine has two cores for everything)
QUESTIONS = [
    "Is PS3406971 compatible with my WDT780SAEM1?",
    "how do I install PS3406971",
    "my dishwasher WDT780SAEM1 is not draining",
    "need a crisper drawer for my fridge",
    "thanks!",
]


@pytest.mark.load
@pytest.mark.timeout(300)
async def test_sessions_spread_over_two_servers_with_random_reconnects_lose_nothing(
    cluster: Start,
) -> None:
    """200 sessions × 5 turns, alternately on each server, each turn cut off at a random
    point a third of the time and resumed on the other server: zero errors, every turn's
    text received exactly once, stored = sent."""
    servers = [cluster(PARTCHAT_OFFLINE_DELAY_MS="2", PARTCHAT_MESSAGES_PER_10S="1000")]
    servers.append(cluster(PARTCHAT_OFFLINE_DELAY_MS="2", PARTCHAT_MESSAGES_PER_10S="1000"))
    rng = random.Random(17)
    plans = [[rng.random() < 1 / 3 for _ in range(TURNS)] for _ in range(SESSIONS)]
    gate = asyncio.Semaphore(AT_ONCE)
    sessions: list[tuple[str, list[str]]] = []
    resumed = 0

    async def session(index: int) -> None:
        nonlocal resumed
        async with gate:
            at = index % 2
            client = await WsClient.open(servers[at].ws_url)
            try:
                await client.hello()
                sid, sent = client.session_id, []
                for turn, cut in enumerate(plans[index]):
                    message_id = await client.message(QUESTIONS[turn], f"m-{index}-{turn}-xxxxxxxx")
                    sent.append(message_id)
                    got = await client.until(lambda e: e["type"] in ("text-delta", "finish"))
                    if cut and got[-1]["type"] != "finish":
                        await client.abort()
                        at = 1 - at
                        client = await WsClient.open(servers[at].ws_url)
                        await client.hello(sid, got[-1]["seq"])
                        resumed += 1
                        got += await client.until(lambda e: e["type"] == "finish", timeout=60)
                    elif got[-1]["type"] != "finish":
                        got += await client.until(lambda e: e["type"] == "finish", timeout=60)
                    assert not [e for e in got if e["type"] == "error"], got
                    numbers = seqs(got)
                    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
                    assert text_of(got) == got[-1]["text"] and got[-1]["finishReason"] == "stop"
                sessions.append((sid, sent))
            finally:
                await client.close()

    await asyncio.gather(*(session(i) for i in range(SESSIONS)))
    assert len(sessions) == SESSIONS and resumed > 0
    async with httpx.AsyncClient(timeout=30.0) as http:
        for n, (sid, sent) in enumerate(sessions):
            response = await http.get(f"{servers[n % 2].base_url}/api/sessions/{sid}")
            history = response.json()["history"]
            assert [m["id"] for m in history if m["role"] == "user"] == sent
            assert [m["status"] for m in history if m["role"] == "assistant"] == (
                ["complete"] * TURNS
            )


async def test_a_redis_restart_mid_turn_loses_nothing_a_client_keeps(
    tmp_path: Path,
    catalog_db: Path,
    redis_factory: Callable[[], RedisServer],
    clients: list[WsClient],
) -> None:
    """Redis restarted (empty) while a turn streams on A and a client follows it on B: the
    streams reconnect, and B's client ends with A's whole answer, from the events written
    after the restart and the turn's ``finish`` (which carries the whole text)."""
    redis = redis_factory()
    data_dir = prepare_data_dir(tmp_path / "shared", catalog_db)
    env = {
        "PARTCHAT_OFFLINE_DELAY_MS": SLOW_MS,
        "PARTCHAT_WORKER_HEARTBEAT_S": HEARTBEAT_S,
        "PARTCHAT_REDIS_URL": redis.url,
    }
    a = ServerProcess(data_dir=data_dir, env=env).start()
    b = ServerProcess(data_dir=data_dir, env=env).start()
    try:
        on_a, _ = await streaming(a, clients)
        on_b = await connect(b, clients, on_a.session_id)
        await on_b.until(lambda e: e["type"] == "text-delta")
        await asyncio.to_thread(redis.restart)

        finish_a = (await on_a.until(lambda e: e["type"] == "finish", timeout=60))[-1]
        last = (await on_b.until(lambda e: e["type"] in ("finish", "ready"), timeout=60))[-1]
        if last["type"] == "finish":
            assert last["text"] == finish_a["text"]
        else:  # the relay gave up on Redis and sent the stored state
            assert last["history"][-1]["text"] == finish_a["text"]
        history = (await stored(b, on_a.session_id))["history"]
        assert history[-1]["text"] == finish_a["text"] and history[-1]["status"] == "complete"
        # The session goes on from B, over the restarted Redis.
        events = await on_b.turn("Is PS3406971 compatible with my WDT780SAEM1?", timeout=60)
        assert events[-1]["finishReason"] == "stop"
    finally:
        a.stop()
        b.stop()
