"""Anything a stranger can send over the socket gets an error event or a close, never a
traceback, and the server keeps serving everyone else."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import websockets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.chat_client import ChatClient

FORBIDDEN = ("Traceback", 'File "', "sqlite", "Error:", "partchat/", ".py")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=50),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=20,
)
frames = st.one_of(
    st.text(max_size=200),  # not JSON, or JSON of the wrong shape
    json_values.map(json.dumps),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["hello", "message", "stop", "ping", "pong", "HELLO", ""])},
        optional={
            "sessionId": json_values,
            "lastSeq": json_values,
            "id": json_values,
            "text": json_values,
        },
    ).map(json.dumps),
)


def assert_safe(event: dict) -> None:
    assert event["type"] in {
        "error",
        "pong",
        "ready",
        "start",
        "text-delta",
        "finish",
        "data-context",
        "tool-input-available",
        "tool-output-available",
        "tool-output-error",
    }
    if event["type"] == "error":
        assert event["code"] in {
            "bad_frame",
            "not_ready",
            "unknown_type",
            "message_too_long",
            "rate_limited",
            "busy",
            "storage_unavailable",
            "server_restarting",
            "internal",
            "llm_unavailable",
        }
        for word in FORBIDDEN:
            assert word not in event["message"], event


async def _still_serves(server) -> None:  # type: ignore[no-untyped-def]
    client = ChatClient(server.ws_url)
    await client.connect()
    finish, _ = await client.ask("Hi")
    assert finish["finishReason"] == "stop" and "parts" in finish["text"]
    await client.close()


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(frames, min_size=1, max_size=4))
def test_arbitrary_frames_before_and_after_hello(module_server, batch) -> None:  # type: ignore[no-untyped-def]
    async def run() -> None:
        async with websockets.connect(module_server.ws_url) as ws:
            for frame in batch:
                await ws.send(frame)
                try:
                    raw = await asyncio.wait_for(ws.recv(), 5)
                except websockets.ConnectionClosed as closed:
                    assert closed.rcvd is not None and closed.rcvd.code in (1008, 1009, 1003)
                    return
                assert_safe(json.loads(raw))

    asyncio.run(run())


async def test_frames_before_hello_get_not_ready(module_server) -> None:  # type: ignore[no-untyped-def]
    async with websockets.connect(module_server.ws_url) as ws:
        await ws.send(json.dumps({"type": "message", "id": "m1", "text": "hi"}))
        event = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert event["type"] == "error" and event["code"] == "not_ready"


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (b"\x00\x01binary", "bad_frame"),
        ("\x00\x00\x00", "bad_frame"),
        ('{"type":"message","id":"x","text":"\\ud800"}', "bad_frame"),
        ("[" * 100_000 + "]" * 100_000, "bad_frame"),
        ('{"type": 7}', "bad_frame"),
        ('{"type": "launch_missiles"}', "unknown_type"),
        ('{"type":"hello","sessionId":{"$gt":""},"lastSeq":null}', "bad_frame"),
        ('{"type":"hello","sessionId":null,"lastSeq":"0; DROP TABLE sessions"}', "bad_frame"),
    ],
)
async def test_hostile_frames_get_a_clear_error(module_server, payload, code) -> None:  # type: ignore[no-untyped-def]
    async with websockets.connect(module_server.ws_url, max_size=2**22) as ws:
        if not isinstance(payload, bytes) and len(payload) > 65536:
            # over the 64 KiB frame limit: the server closes with 1009
            await ws.send(payload)
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
            return
        await ws.send(payload)
        event = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert event["type"] == "error" and event["code"] == code
        assert_safe(event)
    await _still_serves(module_server)


async def test_one_mebibyte_frame_is_closed_with_1009(module_server) -> None:  # type: ignore[no-untyped-def]
    async with websockets.connect(module_server.ws_url, max_size=2**22) as ws:
        with pytest.raises(websockets.ConnectionClosed) as closed:
            # The server may close before the client has written the whole frame: then the
            # close (1009 received, a broken pipe after it) surfaces from send, not recv.
            await ws.send("x" * (1 << 20))
            await asyncio.wait_for(ws.recv(), 5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    await _still_serves(module_server)


async def test_a_flood_of_bad_frames_is_cut_off(module_server) -> None:  # type: ignore[no-untyped-def]
    async with websockets.connect(module_server.ws_url) as ws:
        errors = 0
        with pytest.raises(websockets.ConnectionClosed) as closed:
            for _ in range(500):
                await ws.send("not json")
            while True:
                event = json.loads(await asyncio.wait_for(ws.recv(), 5))
                assert event["code"] == "bad_frame"
                errors += 1
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        assert errors <= 25
    await _still_serves(module_server)


async def test_message_flood_is_rate_limited_and_nothing_extra_is_stored(module_server) -> None:  # type: ignore[no-untyped-def]
    client = ChatClient(module_server.ws_url)
    await client.connect()
    for i in range(15):
        await client.send({"type": "message", "id": f"flood-{i}", "text": "Hi"})
    codes: list[str] = []
    starts = finishes = 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while len(codes) + starts < 15 or finishes < starts:
        event = await client.recv(max(0.1, deadline - loop.time()))
        if event["type"] == "error":
            codes.append(event["code"])
        elif event["type"] == "start":
            starts += 1
        elif event["type"] == "finish":
            finishes += 1
    assert set(codes) <= {"busy", "rate_limited"}
    assert codes.count("rate_limited") >= 5  # at most 10 messages per 10 s get through
    history = httpx.get(f"{module_server.base_url}/api/sessions/{client.session_id}").json()[
        "history"
    ]
    assert sum(1 for m in history if m["role"] == "user") == starts
    await client.close()
