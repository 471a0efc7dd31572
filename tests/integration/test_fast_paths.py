"""Every fast path off (``PARTCHAT_FAST_PATHS=off``): the public APIs serve the same turns.

Two servers on the OpenAI path against one fake LLM process: one with the fast paths on
(the default: ``FastChatOpenAI``, frames written in the publisher's step), one with them
off (stock ``ChatOpenAI``, every frame through the connection's send task). A shopper sees
the same frames (text deltas joined: how text splits into frames depends on reads) and a
reload shows the same stored history. The ``workers`` fallback is in test_multiworker.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.servers import FakeLLMProcess, ServerProcess, prepare_data_dir
from tests.support.wsclient import Event, WsClient, text_of

pytestmark = pytest.mark.timeout(90)

QUESTIONS = ["Is PS3406971 compatible with my WDT780SAEM1?", "How do I install it?"]


@pytest.fixture(scope="module")
def fake_llm_process() -> Iterator[FakeLLMProcess]:
    fake = FakeLLMProcess(tokens=40, token_ms=1).start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def servers(
    tmp_path_factory: pytest.TempPathFactory, catalog_db: Path, fake_llm_process: FakeLLMProcess
) -> Iterator[dict[str, ServerProcess]]:
    started: dict[str, ServerProcess] = {}
    try:
        for setting in ("on", "off"):
            data = prepare_data_dir(tmp_path_factory.mktemp(f"fast-{setting}"), catalog_db)
            started[setting] = ServerProcess(
                data_dir=data,
                env={"PARTCHAT_FAST_PATHS": setting},
                llm_base_url=fake_llm_process.base_url,
            ).start()
        yield started
    finally:
        for server in started.values():
            server.stop()


def seen(events: list[Event]) -> list[tuple[Any, ...]]:
    """The frames as the shopper sees them: consecutive text deltas as one, no ids."""
    out: list[tuple[Any, ...]] = []
    for e in events:
        kind = e["type"]
        if kind == "text-delta":
            if out and out[-1][0] == kind:
                out[-1] = (kind, out[-1][1] + e["delta"])
            else:
                out.append((kind, e["delta"]))
        elif kind.startswith("tool-"):
            out.append((kind, e["toolName"], e.get("input"), e.get("output")))
        elif kind == "finish":
            out.append((kind, e["finishReason"], e["text"]))
        elif kind == "data-context":
            out.append((kind, e["context"]))
        else:
            out.append((kind,))
    return out


def without_ids(value: Any) -> Any:
    """``value`` without generated ids and times (the fake numbers its tool calls)."""
    if isinstance(value, list):
        return [without_ids(v) for v in value]
    if isinstance(value, dict):
        drop = ("id", "turnId", "createdAt", "toolCallId")
        return {k: without_ids(v) for k, v in value.items() if k not in drop}
    return value


async def conversation(server: ServerProcess) -> tuple[list[list[tuple[Any, ...]]], Any]:
    client = await WsClient.open(server.ws_url)
    try:
        await client.hello(None, None)
        turns = []
        for question in QUESTIONS:
            events = await client.turn(question)
            assert events[-1]["finishReason"] == "stop"
            assert text_of(events) == events[-1]["text"]
            turns.append(seen(events))
    finally:
        await client.close()
    again = await WsClient.open(server.ws_url)
    try:
        await again.hello(client.session_id, None)
        assert again.ready is not None
        return turns, without_ids(again.ready["history"])
    finally:
        await again.close()


async def test_with_every_fast_path_off_the_turns_are_the_same(
    servers: dict[str, ServerProcess],
) -> None:
    fast_turns, fast_history = await conversation(servers["on"])
    public_turns, public_history = await conversation(servers["off"])
    assert public_turns == fast_turns
    assert public_history == fast_history
    assert [m["role"] for m in public_history] == ["user", "assistant"] * 2
    tools = [t[1] for t in public_turns[0] if t[0] == "tool-output-available"]
    assert tools, public_turns[0]
    assert "fast paths on: openai, ws, workers" in servers["on"].log()
    assert "fast paths on: none" in servers["off"].log()
