"""The wire protocol against the real server: a subprocess on a free port, a real client.

One server for the module (each test opens its own sessions). Every event any client here
receives is validated against ``$defs/ServerEvent`` (tests/support/wsclient.py).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest

from tests.integration.conftest import ALLOWED_ORIGIN
from tests.support.protocol import check_seq_stream
from tests.support.servers import ServerProcess
from tests.support.wsclient import Event, WsClient, of_turn, text_of

pytestmark = pytest.mark.timeout(60)

COMPAT_Q = "Is PS3406971 compatible with my WDT780SAEM1?"
LONG_Q = "The ice maker on my Whirlpool WRS325SDHZ stopped making ice"  # ~180 deltas

OpenClient = Callable[..., Awaitable[WsClient]]


@pytest.fixture
async def open_client(module_server: ServerProcess) -> AsyncIterator[OpenClient]:
    """``await open_client(session_id, last_seq)``: a connected client that said hello."""
    clients: list[WsClient] = []

    async def open_(
        session_id: str | None = None,
        last_seq: int | None = None,
        *,
        hello: bool = True,
        origin: str | None = None,
    ) -> WsClient:
        client = await WsClient.open(module_server.ws_url, origin=origin)
        clients.append(client)
        if hello:
            await client.hello(session_id, last_seq)
        return client

    yield open_
    for client in clients:
        await client.close()


@pytest.fixture
async def http(module_server: ServerProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=module_server.base_url, timeout=30.0) as client:
        yield client


_reference: dict[str, str] = {}


async def reference_answer(open_client: OpenClient, question: str) -> str:
    """The answer an uninterrupted run gives (a fresh session; the model is deterministic)."""
    if question not in _reference:
        client = await open_client()
        events = await client.turn(question)
        finish = events[-1]
        assert finish["finishReason"] == "stop"
        assert text_of(events) == finish["text"]
        _reference[question] = finish["text"]
    return _reference[question]


async def until_deltas(client: WsClient, n: int) -> list[Event]:
    count = 0

    def enough(event: Event) -> bool:
        nonlocal count
        count += event["type"] == "text-delta"
        return count >= n

    return await client.until(enough)


async def session(http: httpx.AsyncClient, session_id: str) -> dict[str, Any]:
    response = await http.get(f"/api/sessions/{session_id}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


async def nothing_more(client: WsClient) -> list[Event]:
    """Everything the server sends before it answers a ping (the connection is in order)."""
    await client.send({"type": "ping"})
    return (await client.until(lambda e: e["type"] == "pong", timeout=10))[:-1]


# --------------------------------------------------------------------------- one turn


async def test_turn_stream_contract(open_client: OpenClient) -> None:
    client = await open_client()
    ready = client.ready
    assert ready is not None
    assert ready["resumed"] is False
    assert (ready["history"], ready["inflight"], ready["seq"]) == ([], None, 0)

    message_id = str(uuid.uuid4())
    events = await client.turn(COMPAT_Q, message_id)
    start, finish = events[0], events[-1]
    assert start["type"] == "start" and start["messageId"] == message_id
    turn_id = start["turnId"]
    assert all(e.get("turnId") == turn_id for e in events)
    assert finish["finishReason"] == "stop"
    assert finish["text"] and text_of(events) == finish["text"]

    # Tool events: each output follows its input (same call id and tool name).
    inputs: dict[str, Event] = {}
    outputs = 0
    for e in events:
        if e["type"] == "tool-input-available":
            assert e["toolCallId"] not in inputs
            inputs[e["toolCallId"]] = e
        elif e["type"] in ("tool-output-available", "tool-output-error"):
            assert e["toolCallId"] in inputs, "tool output before its input"
            assert inputs[e["toolCallId"]]["toolName"] == e["toolName"]
            outputs += 1
    assert inputs and outputs == len(inputs)
    compat = next(e for e in events if e["type"] == "tool-output-available")
    assert compat["toolName"] == "check_compatibility"
    assert compat["output"]["status"] == "fits"

    # data-context follows the extraction.
    contexts = [e["context"] for e in events if e["type"] == "data-context"]
    assert contexts
    assert contexts[-1]["productModel"] == "WDT780SAEM1"
    assert contexts[-1]["partNumber"] == "PS3406971"
    assert contexts[-1]["applianceType"] == "dishwasher"

    # A second turn in the same session uses the context ("it" = the part).
    events2 = await client.turn("How do I install it?")
    assert events2[-1]["finishReason"] == "stop"
    assert text_of(events2) == events2[-1]["text"]
    tool_inputs = [e["input"] for e in events2 if e["type"] == "tool-input-available"]
    assert any(i.get("partNumber") == "PS3406971" for i in tool_inputs), tool_inputs

    # The whole session stream: 1, 2, 3, ... no gap, no repeat.
    seqs = check_seq_stream(client.events, start_after=0)
    assert seqs[0] == 1

    # A reload (lastSeq null) gets both turns from history, nothing replayed.
    again = await open_client(client.session_id, None)
    ready2 = again.ready
    assert ready2 is not None
    assert ready2["resumed"] is True and ready2["sessionId"] == client.session_id
    assert ready2["seq"] == seqs[-1] and ready2["inflight"] is None
    assert ready2["context"]["partNumber"] == "PS3406971"
    history = ready2["history"]
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]
    assert history[0]["id"] == message_id and history[0]["text"] == COMPAT_Q
    assert history[1]["text"] == finish["text"] and history[1]["status"] == "complete"
    assert history[1]["toolOutputs"][0]["toolName"] == "check_compatibility"
    assert await nothing_more(again) == []


# --------------------------------------------------------------------------- resume


async def test_cut_mid_stream_and_resume_gives_the_same_text(open_client: OpenClient) -> None:
    expected = await reference_answer(open_client, LONG_Q)

    client = await open_client()
    await client.message(LONG_Q)
    await until_deltas(client, 5)
    await client.abort()  # the network goes away: no closing handshake
    last_seq = client.events[-1]["seq"]
    turn_id = client.events[1]["turnId"]
    await asyncio.sleep(0.2)  # the turn keeps running meanwhile

    resumed = await open_client(client.session_id, last_seq)
    ready = resumed.ready
    assert ready is not None
    assert ready["resumed"] is True
    assert ready["inflight"] is not None and ready["inflight"]["turnId"] == turn_id
    assert all(m["role"] == "user" for m in ready["history"])  # the answer is in the stream
    await resumed.until(lambda e: e["type"] == "finish")

    stream = client.events[1:] + resumed.events[1:]  # without the two ready events
    check_seq_stream(stream, start_after=0)
    turn = of_turn(stream, turn_id)
    assert [e["type"] for e in turn].count("start") == 1
    assert turn[-1]["text"] == expected
    assert text_of(turn) == expected


async def test_reload_mid_stream_replays_the_turn_from_its_start(open_client: OpenClient) -> None:
    expected = await reference_answer(open_client, LONG_Q)
    client = await open_client()
    message_id = await client.message(LONG_Q)
    await until_deltas(client, 3)
    await client.close()
    turn_id = client.events[1]["turnId"]

    reloaded = await open_client(client.session_id, None)
    ready = reloaded.ready
    assert ready is not None
    assert ready["inflight"] == {"turnId": turn_id, "messageId": message_id}
    # The in-flight turn's user message is in history (the client shows it), its answer not.
    assert [(m["role"], m["id"], m["turnId"]) for m in ready["history"]] == [
        ("user", message_id, turn_id)
    ]
    events = await reloaded.until(lambda e: e["type"] == "finish")
    assert events[0]["type"] == "start" and events[0]["seq"] == 1
    check_seq_stream(events, start_after=0)
    assert text_of(events) == events[-1]["text"] == expected


# --------------------------------------------------------------------------- stop, busy, idempotency


async def test_stop_keeps_the_partial_answer(
    open_client: OpenClient, http: httpx.AsyncClient
) -> None:
    expected = await reference_answer(open_client, LONG_Q)
    client = await open_client()
    message_id = await client.message(LONG_Q)
    await until_deltas(client, 3)
    await client.send({"type": "stop"})
    events = await client.until(lambda e: e["type"] == "finish")
    finish = events[-1]
    assert finish["finishReason"] == "aborted"
    partial = finish["text"]
    assert partial and text_of(client.events) == partial
    assert expected.startswith(partial) and len(partial) < len(expected)

    data = await session(http, client.session_id)
    history = data["history"]
    assert [(m["role"], m["status"]) for m in history] == [
        ("user", "complete"),
        ("assistant", "partial"),
    ]
    assert history[0]["id"] == message_id and history[1]["text"] == partial

    # stop with nothing running is ignored; the next message works.
    await client.send({"type": "stop"})
    events = await client.turn(COMPAT_Q)
    assert events[0]["type"] == "start" and events[-1]["finishReason"] == "stop"
    check_seq_stream(client.events, start_after=0)


async def test_second_message_mid_turn_is_busy_and_not_stored(
    open_client: OpenClient, http: httpx.AsyncClient
) -> None:
    client = await open_client()
    first = await client.message(LONG_Q)
    await until_deltas(client, 1)
    second = await client.message("And what about the water filter?")
    events = await client.until(lambda e: e["type"] == "error")
    busy = events[-1]
    assert busy["code"] == "busy" and busy.get("messageId") == second
    assert "seq" not in busy  # connection-level: not part of the stream
    await client.until(lambda e: e["type"] == "finish")
    starts = [e for e in client.events if e["type"] == "start"]
    assert [s["messageId"] for s in starts] == [first]

    data = await session(http, client.session_id)
    assert [m["id"] for m in data["history"] if m["role"] == "user"] == [first]

    # Not stored, so sending it again later (same id) runs it.
    events = await client.turn("And what about the water filter?", second)
    assert events[0]["messageId"] == second and events[-1]["finishReason"] == "stop"
    check_seq_stream(client.events, start_after=0)


async def test_resent_message_id_runs_no_second_turn(
    open_client: OpenClient, http: httpx.AsyncClient
) -> None:
    expected = await reference_answer(open_client, LONG_Q)
    client = await open_client()
    message_id = await client.message(LONG_Q)
    await until_deltas(client, 3)
    await client.abort()
    last_seq = client.events[-1]["seq"]
    turn_id = client.events[1]["turnId"]

    # The client did not see the end: it reconnects and sends the message again.
    again = await open_client(client.session_id, last_seq)
    await again.message(LONG_Q, message_id)
    await again.until(lambda e: e["type"] == "finish")
    assert [e for e in again.events if e["type"] in ("start", "error")] == [], [
        (e["type"], e.get("seq")) for e in again.events
    ][:20]
    stream = client.events[1:] + again.events[1:]
    check_seq_stream(stream, start_after=0)
    assert text_of(of_turn(stream, turn_id)) == expected

    # Once the turn is over, the same id again: nothing new.
    await again.message(LONG_Q, message_id)
    assert await nothing_more(again) == []

    # A client that reloaded (no log) re-sends it: it gets that turn's events, no new turn.
    fresh = await open_client(client.session_id, None)
    await fresh.message(LONG_Q, message_id)
    replayed = await fresh.until(lambda e: e["type"] == "finish")
    assert {e["turnId"] for e in replayed} == {turn_id}
    assert replayed[0]["type"] == "start" and text_of(replayed) == expected

    data = await session(http, client.session_id)
    users = [m for m in data["history"] if m["role"] == "user"]
    assert [m["id"] for m in users] == [message_id]
    assert len(data["history"]) == 2


async def test_two_connections_on_one_session_see_the_whole_stream(
    open_client: OpenClient,
) -> None:
    one = await open_client()
    two = await open_client(one.session_id, 0)
    await one.message(COMPAT_Q)
    a = await one.until(lambda e: e["type"] == "finish")
    b = await two.until(lambda e: e["type"] == "finish")
    assert a == b
    assert a[0]["type"] == "start" and len(a) > 5
    check_seq_stream(b, start_after=0)


# --------------------------------------------------------------------------- HTTP


async def test_post_api_chat_then_websocket(
    open_client: OpenClient, http: httpx.AsyncClient
) -> None:
    response = await http.post("/api/chat", json={"message": COMPAT_Q})
    assert response.status_code == 200, response.text
    body = response.json()
    assert {"message", "sessionId", "toolData"} <= body.keys()
    assert "PS3406971" in body["message"]
    assert any(t.get("status") == "fits" for t in body["toolData"])

    client = await open_client(body["sessionId"], None)
    ready = client.ready
    assert ready is not None
    assert ready["resumed"] is True and ready["sessionId"] == body["sessionId"]
    assert [(m["role"], m["text"]) for m in ready["history"]] == [
        ("user", COMPAT_Q),
        ("assistant", body["message"]),
    ]
    assert ready["context"]["productModel"] == "WDT780SAEM1"
    events = await client.turn("How do I install it?")
    assert events[0]["seq"] == ready["seq"] + 1
    assert events[-1]["finishReason"] == "stop"
    inputs = [e["input"] for e in events if e["type"] == "tool-input-available"]
    assert any(i.get("partNumber") == "PS3406971" for i in inputs), inputs

    # The Node body with a sessionId continues that session.
    response = await http.post(
        "/api/chat", json={"message": "Is it in stock?", "sessionId": body["sessionId"]}
    )
    assert response.status_code == 200 and response.json()["sessionId"] == body["sessionId"]


async def test_http_errors_and_metrics(http: httpx.AsyncClient) -> None:
    assert (await http.get("/api/sessions/" + "x" * 22)).status_code == 404
    assert (await http.get("/api/sessions/not-an-id")).status_code == 404
    assert (await http.post("/api/chat", content=b"nope")).status_code == 400
    assert (await http.post("/api/chat", json={"message": "x" * 4001})).status_code == 413
    health = await http.get("/health")
    assert health.status_code == 200 and health.json()["status"] == "ok"

    response = await http.post("/api/chat", json={"message": "hello"})
    assert response.status_code == 200
    metrics = (await http.get("/metrics")).text
    for name in (
        "partchat_turns_finished_total",
        "partchat_turns_started_total",
        "partchat_open_connections",
        "partchat_turn_seconds",
        "partchat_first_token_seconds",
    ):
        assert name in metrics
    assert 'partchat_turns_finished_total{finish_reason="stop"}' in metrics


# --------------------------------------------------------------------------- refusals


async def test_frames_before_hello_and_bad_frames(open_client: OpenClient) -> None:
    client = await open_client(hello=False)
    await client.send({"type": "message", "id": "m1", "text": "hi"})
    assert (await client.recv())["code"] == "not_ready"
    await client.send({"type": "stop"})
    assert (await client.recv())["code"] == "not_ready"
    await client.send({"type": "subscribe"})
    assert (await client.recv())["code"] == "unknown_type"
    await client.send("{not json")
    assert (await client.recv())["code"] == "bad_frame"
    await client.send({"type": "hello", "sessionId": None})  # lastSeq missing
    assert (await client.recv())["code"] == "bad_frame"
    await client.send({"type": "ping"})
    assert (await client.recv()) == {"type": "pong"}
    assert all("seq" not in e for e in client.events)

    await client.hello()
    await client.send({"type": "frobnicate"})
    assert (await client.recv())["code"] == "unknown_type"
    await client.send({"type": "message", "id": "long-1", "text": "x" * 4001})
    too_long = await client.recv()
    assert too_long["code"] == "message_too_long" and too_long.get("messageId") == "long-1"
    assert "seq" not in too_long
    # Exactly 4000 characters is allowed.
    events = await client.turn("y" * 4000)
    assert events[0]["type"] == "start"


async def test_rate_limit(open_client: OpenClient, http: httpx.AsyncClient) -> None:
    client = await open_client()
    ids = [f"rate-{i}" for i in range(11)]
    for i, message_id in enumerate(ids):
        await client.message(f"hello number {i}", message_id)
    events = await client.until(lambda e: e["type"] == "error" and e["code"] == "rate_limited")
    assert events[-1].get("messageId") == ids[10]
    refused = {e.get("messageId") for e in client.events if e["type"] == "error"}
    started = {e["messageId"] for e in client.events if e["type"] == "start"}
    assert ids[10] in refused and ids[10] not in started
    while sum(e["type"] == "finish" for e in client.events) < len(started):
        await client.until(lambda e: e["type"] == "finish")  # let the turns be stored
    data = await session(http, client.session_id)
    stored = {m["id"] for m in data["history"] if m["role"] == "user"}
    assert stored == started


async def test_unknown_session_starts_a_new_one(open_client: OpenClient) -> None:
    unknown = "u" * 22
    client = await open_client(unknown, 12)
    ready = client.ready
    assert ready is not None
    assert ready["resumed"] is False and ready["sessionId"] != unknown
    assert (ready["history"], ready["inflight"], ready["seq"]) == ([], None, 0)
    assert await nothing_more(client) == []


async def test_origin_check(open_client: OpenClient, module_server: ServerProcess) -> None:
    foreign = await open_client(hello=False, origin="https://evil.example")
    closed = await foreign.expect_closed()
    assert closed.code == 1008

    for origin in (f"http://127.0.0.1:{module_server.port}", ALLOWED_ORIGIN, None):
        client = await open_client(origin=origin)
        assert client.ready is not None and client.ready["type"] == "ready"


def test_schema_helper_rejects_bad_events() -> None:
    from tests.support.protocol import InvalidEvent, validate_server_event

    validate_server_event({"type": "pong"})
    for bad in (
        {"type": "text-delta", "turnId": "t", "delta": "x"},  # no seq
        {"type": "finish", "turnId": "t", "text": "", "finishReason": "done", "seq": 1},
        {"type": "error", "code": "nope", "message": "x"},
        {"type": "start", "turnId": "t", "messageId": "m", "seq": 1, "extra": True},
    ):
        with pytest.raises(InvalidEvent):
            validate_server_event(json.loads(json.dumps(bad)))
