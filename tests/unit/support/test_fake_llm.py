"""The fake OpenAI server speaks the real wire format and does what its script says."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import openai
import orjson
import pytest
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from tests.support.fake_llm import FakeLLM, FakeLLMThread, Reply, ToolCall, split_words

pytestmark = pytest.mark.timeout(10)
ROOT = Path(__file__).resolve().parents[3]
MESSAGES = [{"role": "user", "content": "my ice maker stopped making ice"}]


def sse_events(text: str) -> list[str]:
    events = [block for block in text.split("\n\n") if block]
    assert all(e.startswith("data: ") for e in events), events
    return [e[len("data: ") :] for e in events]


async def post(fake: FakeLLM, **body: Any) -> httpx.Response:
    async with httpx.AsyncClient(timeout=5) as client:
        return await client.post(
            f"{fake.base_url}/chat/completions",
            json={"model": "m", "messages": MESSAGES, **body},
        )


def chunks_of(response: httpx.Response) -> list[dict[str, Any]]:
    events = sse_events(response.text)
    assert events[-1] == "[DONE]"
    return [orjson.loads(e) for e in events[:-1]]


async def test_streamed_text_is_valid_openai_chunks() -> None:
    async with FakeLLM([Reply.say("Replace the water inlet valve.")]) as fake:
        response = await post(fake, stream=True)
    assert response.headers["content-type"].startswith("text/event-stream")
    chunks = chunks_of(response)
    for c in chunks:
        ChatCompletionChunk.model_validate(c)  # strict: the exact OpenAI schema
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    texts = [c["choices"][0]["delta"].get("content") for c in chunks[1:-1]]
    assert texts == ["Replace", " the", " water", " inlet", " valve."]
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert len({c["id"] for c in chunks}) == 1
    assert "usage" not in chunks[0]


async def test_usage_chunk_when_asked() -> None:
    async with FakeLLM([Reply.say("one two three")]) as fake:
        response = await post(fake, stream=True, stream_options={"include_usage": True})
    chunks = chunks_of(response)
    assert all(c["usage"] is None for c in chunks[:-1])
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"]["completion_tokens"] == 3
    ChatCompletionChunk.model_validate(chunks[-1])


async def test_tool_call_arguments_are_split_across_chunks() -> None:
    reply = Reply.calls(
        ("search_parts", {"query": "ice maker"}),
        ToolCall("check_compatibility", {"partNumber": "PS1", "model": "M1"}, id="call_x"),
        text="Looking.",
        arg_chunks=4,
    )
    async with FakeLLM([reply]) as fake:
        chunks = chunks_of(await post(fake, stream=True))
    calls: dict[int, dict[str, str]] = {}
    for c in chunks:
        ChatCompletionChunk.model_validate(c)
        for tc in c["choices"][0]["delta"].get("tool_calls") or []:
            slot = calls.setdefault(tc["index"], {"id": "", "name": "", "args": "", "pieces": ""})
            if "id" in tc:
                assert slot["id"] == "", "only the first chunk of a call carries its id"
                slot["id"], slot["name"] = tc["id"], tc["function"]["name"]
            slot["args"] += tc["function"]["arguments"]
            slot["pieces"] += "x"
    assert calls[0]["name"] == "search_parts"
    assert orjson.loads(calls[0]["args"]) == {"query": "ice maker"}
    assert calls[1]["id"] == "call_x"
    assert orjson.loads(calls[1]["args"]) == {"partNumber": "PS1", "model": "M1"}
    assert len(calls[0]["pieces"]) == 5  # the id+name chunk, then 4 argument pieces
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


async def test_the_openai_sdk_reads_it() -> None:
    script = [Reply.say("streamed words here"), Reply.call("search_parts", {"q": 1})]
    async with FakeLLM(script) as f:
        client = openai.AsyncOpenAI(base_url=f.base_url, api_key="sk", max_retries=0)
        stream = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
        text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
        assert text == "streamed words here"
        completion = await client.chat.completions.create(model="m", messages=MESSAGES)
        assert completion.choices[0].message.tool_calls is not None
        assert completion.choices[0].finish_reason == "tool_calls"
        models = await client.models.list()
        assert [m.id for m in models.data] == ["gpt-4o-mini"]
        await client.close()


async def test_non_streaming_completion() -> None:
    async with FakeLLM([Reply.say("whole answer")]) as fake:
        response = await post(fake)
    body = response.json()
    ChatCompletion.model_validate(body)
    assert body["choices"][0]["message"]["content"] == "whole answer"
    assert body["usage"]["completion_tokens"] == 2


async def test_script_order_recording_and_exhaustion() -> None:
    async with FakeLLM([Reply.say("first"), Reply.say("second")]) as fake:
        a = (await post(fake)).json()
        b = (await post(fake, temperature=0.5)).json()
        c = await post(fake)
        assert fake.remaining == 0
    assert a["choices"][0]["message"]["content"] == "first"
    assert b["choices"][0]["message"]["content"] == "second"
    assert c.status_code == 400 and "script exhausted" in c.text
    assert [r.body["messages"] for r in fake.requests if r.body] == [MESSAGES] * 3
    assert fake.chat_requests[1]["temperature"] == 0.5


async def test_callable_script() -> None:
    def script(body: dict[str, Any]) -> Reply:
        return Reply.say(f"you said {body['messages'][-1]['content']}")

    async with FakeLLM(script) as fake:
        response = await post(fake)
    assert response.json()["choices"][0]["message"]["content"] == (
        "you said my ice maker stopped making ice"
    )


async def test_error_statuses() -> None:
    async with FakeLLM([Reply.error(429, "slow down", retry_after=2), Reply.error(503)]) as fake:
        r429 = await post(fake, stream=True)
        r503 = await post(fake, stream=True)
    assert r429.status_code == 429
    assert r429.headers["retry-after"] == "2"
    assert r429.json()["error"]["message"] == "slow down"
    assert r503.status_code == 503


async def test_faults() -> None:
    script = [Reply.hang(), Reply.reset(after_chunks=2), Reply.malformed(after_chunks=1)]
    async with FakeLLM(script) as fake, httpx.AsyncClient(timeout=0.3) as client:
        url = f"{fake.base_url}/chat/completions"
        body = {"model": "m", "messages": MESSAGES, "stream": True}
        with pytest.raises(httpx.ReadTimeout):
            await client.post(url, json=body)
        with pytest.raises(httpx.RemoteProtocolError):
            await client.post(url, json=body)
        response = await client.post(url, json=body)
        events = sse_events(response.text)
        assert len(events) == 2
        with pytest.raises(orjson.JSONDecodeError):
            orjson.loads(events[1])


async def test_delays_and_first_token_log() -> None:
    async with FakeLLM([Reply.say("a b c", first_token_ms=80, token_ms=10)]) as fake:
        start = time.monotonic()
        await post(fake, stream=True)
        elapsed = time.monotonic() - start
        async with httpx.AsyncClient() as client:
            log = (await client.get(f"http://127.0.0.1:{fake.port}/_fake/log")).json()
            assert (await client.post(f"http://127.0.0.1:{fake.port}/_fake/reset")).is_success
        assert len(fake.log) == 0
    assert elapsed >= 0.1
    [entry] = log
    assert entry["request_id"] == 1
    assert entry["first_token_ns"] - entry["received_ns"] >= 80_000_000
    assert entry["done_ns"] - entry["first_token_ns"] >= 20_000_000


async def test_bench_mode() -> None:
    tools = [{"type": "function", "function": {"name": "search_parts", "parameters": {}}}]
    async with FakeLLM(tokens=60) as fake:
        first = (await post(fake, tools=tools)).json()["choices"][0]
        [call] = first["message"]["tool_calls"]
        assert call["function"]["name"] == "search_parts"
        assert orjson.loads(call["function"]["arguments"])["query"].startswith("my ice maker")
        after_tool = [
            *MESSAGES,
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": "{}"},
        ]
        async with httpx.AsyncClient() as client:
            response = await client.post(
                f"{fake.base_url}/chat/completions",
                json={"model": "m", "messages": after_tool, "tools": tools, "stream": True},
            )
            again = await client.post(
                f"{fake.base_url}/chat/completions",
                json={"model": "m", "messages": MESSAGES, "stream": True},
            )
    words = [c["choices"][0]["delta"].get("content") for c in chunks_of(response)[1:-1]]
    assert len(words) == 60
    assert [c["choices"][0]["delta"].get("content") for c in chunks_of(again)[1:-1]] == words


def test_split_words_roundtrip() -> None:
    for text in ["", "one", " lead", "a  b\nc ", "Price: $12.99 — in stock."]:
        assert "".join(split_words(text)) == text


def test_thread_runner_for_sync_code() -> None:
    with FakeLLMThread([Reply.say("from a thread")]) as fake:
        response = httpx.post(
            f"{fake.base_url}/chat/completions",
            json={"model": "m", "messages": MESSAGES},
            timeout=5,
        )
    assert response.json()["choices"][0]["message"]["content"] == "from a thread"


def test_cli() -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "support" / "fake_llm.py"),
            "--port",
            "0",
            "--tokens",
            "5",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("FAKE_LLM_READY http://127.0.0.1:")
        base_url = line.split()[1]
        assert httpx.get(f"{base_url}/models", timeout=5).json()["data"][0]["id"] == "gpt-4o-mini"
        response = httpx.post(
            f"{base_url}/chat/completions",
            json={"model": "m", "messages": MESSAGES, "stream": True},
            timeout=5,
        )
        assert len(chunks_of(response)) == 7
    finally:
        proc.terminate()
        assert proc.wait(5) == 0
