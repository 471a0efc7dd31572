"""The LLM provider fails at the worst moment: bounded retries, then an ``error`` event and
``finish`` with ``error``; the partial answer is kept; the next turn works."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from partchat.settings import Settings
from partchat.transport.app import create_app
from tests.support.fake_llm import FakeLLM, FakeLLMThread, Reply


@pytest.fixture
def chat(tmp_path, catalog_db):  # type: ignore[no-untyped-def]
    """``chat(script, **env)`` → (TestClient, FakeLLM) with the app pointed at the fake."""
    stack: list[Any] = []

    def make(script: Any, **env: str) -> tuple[TestClient, FakeLLM]:
        shutil.copy2(catalog_db, tmp_path / "catalog.db")
        thread = FakeLLMThread(script)
        fake = thread.__enter__()
        stack.append(thread)
        settings = Settings.from_env(
            {
                "PARTCHAT_DATA_DIR": str(tmp_path),
                "PARTCHAT_LLM": "openai",
                "OPENAI_API_KEY": "sk-test",
                "OPENAI_BASE_URL": fake.base_url,
                "PARTCHAT_LLM_RETRIES": "2",
                "PARTCHAT_LLM_TIMEOUT": "2",
                **env,
            }
        )
        client = TestClient(create_app(settings))
        client.__enter__()
        stack.append(client)
        return client, fake

    yield make
    for item in reversed(stack):
        item.__exit__(None, None, None)


def turn(ws, text: str, mid: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:  # type: ignore[no-untyped-def]
    ws.send_json({"type": "message", "id": mid, "text": text})
    events = []
    while True:
        event = ws.receive_json()
        events.append(event)
        if event["type"] == "finish":
            return event, events


def open_session(client: TestClient) -> Iterator[Any]:
    return client.websocket_connect("/ws")  # type: ignore[return-value]


def hello(ws) -> str:  # type: ignore[no-untyped-def]
    ws.send_json({"type": "hello", "sessionId": None, "lastSeq": None})
    ready = ws.receive_json()
    return str(ready["sessionId"])


def test_429_with_retry_after_is_retried(chat) -> None:  # type: ignore[no-untyped-def]
    client, fake = chat(
        [Reply.error(429, "slow down", retry_after=0.2), Reply.say("Hello from the model.")]
    )
    with open_session(client) as ws:
        hello(ws)
        finish, _ = turn(ws, "Hi", "a")
    assert finish["finishReason"] == "stop" and finish["text"] == "Hello from the model."
    assert len(fake.requests) == 2


@pytest.mark.parametrize(
    "fault",
    [
        [Reply.error(500), Reply.error(500), Reply.error(500)],
        [Reply.error(503), Reply.error(502), Reply.error(500)],
        [Reply.hang(10), Reply.hang(10), Reply.hang(10)],
        [Reply.malformed(after_chunks=0)],
    ],
    ids=["500", "5xx-mix", "timeout", "malformed-sse"],
)
def test_llm_down_gives_error_then_next_turn_works(chat, fault) -> None:  # type: ignore[no-untyped-def]
    client, fake = chat([*fault, Reply.say("Back again.")], PARTCHAT_LLM_TIMEOUT="1")
    with open_session(client) as ws:
        sid = hello(ws)
        finish, events = turn(ws, "Hi", "a")
        errors = [e for e in events if e["type"] == "error"]
        assert finish["finishReason"] == "error"
        assert errors and errors[0]["code"] == "llm_unavailable"
        assert "Traceback" not in errors[0]["message"]
        assert len(fake.requests) <= 3  # one try and at most two retries
        finish, _ = turn(ws, "Hi again", "b")
        assert finish["finishReason"] == "stop" and finish["text"] == "Back again."
    history = client.get(f"/api/sessions/{sid}").json()["history"]
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]
    assert history[1]["status"] == "failed"


def test_reset_mid_stream_keeps_the_partial_answer(chat) -> None:  # type: ignore[no-untyped-def]
    text = "The drain pump is the usual cause of a dishwasher that will not drain at all."
    client, _ = chat([Reply.reset(after_chunks=4, text=text), Reply.say("Fine now.")])
    with open_session(client) as ws:
        sid = hello(ws)
        finish, events = turn(ws, "Hi", "a")
        partial = "".join(e["delta"] for e in events if e["type"] == "text-delta")
        assert finish["finishReason"] == "error" and finish["text"] == partial
        assert partial and text.startswith(partial) and partial != text
        assert turn(ws, "Hi", "b")[0]["finishReason"] == "stop"
    history = client.get(f"/api/sessions/{sid}").json()["history"]
    assert history[1]["status"] == "partial" and history[1]["text"] == partial


def test_tool_arguments_that_are_not_json_go_back_to_the_model(chat) -> None:  # type: ignore[no-untyped-def]
    client, fake = chat(
        [
            Reply.call("check_compatibility", '{"partNumber": PS3406971 model'),
            Reply.call("check_compatibility", {"partNumber": "PS3406971", "model": "WDT780SAEM1"}),
            Reply.say("It fits."),
        ]
    )
    with open_session(client) as ws:
        hello(ws)
        finish, events = turn(ws, "Does PS3406971 fit WDT780SAEM1?", "a")
    kinds = [e["type"] for e in events]
    assert "tool-output-error" in kinds and "tool-output-available" in kinds
    assert finish["finishReason"] == "stop" and finish["text"] == "It fits."
    second = fake.requests[1].body["messages"]
    assert any(m["role"] == "tool" and "invalid_input" in m["content"] for m in second)


def test_unknown_tool_name_is_an_error_result(chat) -> None:  # type: ignore[no-untyped-def]
    client, _fake = chat(
        [Reply.call("order_pizza", {"size": "large"}), Reply.say("Sorry, I can't.")]
    )
    with open_session(client) as ws:
        hello(ws)
        finish, events = turn(ws, "Hi", "a")
    error = next(e for e in events if e["type"] == "tool-output-error")
    assert error["toolName"] == "order_pizza" and "no tool named" in error["errorText"]
    assert finish["finishReason"] == "stop"


def test_a_model_that_calls_tools_forever_is_capped(chat) -> None:  # type: ignore[no-untyped-def]
    def script(body: dict[str, Any]) -> Reply:
        if body.get("tools"):
            return Reply.call("search_parts", {"query": "ice maker"})
        return Reply.say("Here is what I found so far.")

    client, fake = chat(script)
    with open_session(client) as ws:
        hello(ws)
        finish, events = turn(ws, "Find me an ice maker", "a")
        assert (
            finish["finishReason"] == "length" and finish["text"] == "Here is what I found so far."
        )
        assert sum(e["type"] == "tool-input-available" for e in events) == 6
        assert len(fake.requests) == 7
