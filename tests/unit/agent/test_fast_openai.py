"""FastChatOpenAI streams exactly what stock ChatOpenAI streams, and fails the same way.

Every parity test runs one scripted reply through stock ``ChatOpenAI.astream`` and the
same reply through ``FastChatOpenAI.astream`` against the fake OpenAI server and
compares chunks, the merged message, and the request body sent.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import time
import weakref
from collections.abc import Callable
from typing import Any

import openai
import orjson
import pytest
import uvloop
from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_openai import ChatOpenAI

from partchat.agent.llm.openai_fast import FastChatOpenAI, LLMStreamError
from partchat.agent.llm.openai_fast.transport import env_proxy
from tests.support.fake_llm import FakeLLM, Reply
from tests.unit.agent.conftest import FakeFactory

pytestmark = pytest.mark.timeout(10)

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} tool",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}, "partNumber": {"type": "string"}},
            },
        },
    }
    for name in ("search_parts", "check_compatibility", "get_part_details")
]

SCRIPTS: dict[str, Callable[[], Reply]] = {
    "text": lambda: Reply.say(
        "The water inlet valve is the usual reason an ice maker stops making ice."
    ),
    "split_tool_args": lambda: Reply.call(
        "check_compatibility", {"partNumber": "PS11752778", "model": "WRS325SDHZ"}, arg_chunks=6
    ),
    "parallel_tool_calls": lambda: Reply.calls(
        ("search_parts", {"query": "ice maker"}),
        ("get_part_details", {"partNumber": "PS11752778"}),
        ("check_compatibility", {"partNumber": "PS11752778", "model": "WRS325SDHZ"}),
    ),
    "text_and_tool_call": lambda: Reply.calls(
        ("search_parts", {"query": "door gasket"}), text="Let me look that up for you."
    ),
    "args_not_json": lambda: Reply.call("search_parts", "query = ice maker (not json)"),
    "unknown_tool": lambda: Reply.call("order_pizza", {"size": "large"}),
    "finish_length": lambda: Reply.say("This answer was cut off at the", finish_reason="length"),
    "empty_text": lambda: Reply.say(""),
    # Deltas as some servers send them: text and a call in one delta, ``tool_calls:
    # null``, an empty list, two calls' arguments interleaved, text between calls.
    "interleaved_raw_deltas": lambda: Reply.of_deltas(
        {"content": "Checking", "tool_calls": None},
        {"content": None, "tool_calls": []},
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "search_parts", "arguments": ""},
                }
            ]
        },
        {
            "tool_calls": [
                {
                    "index": 1,
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "get_part_details", "arguments": '{"part'},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"query": "ice'}}]},
        {"content": " both.", "tool_calls": [{"index": 1, "function": {"arguments": 'Number"'}}]},
        {"role": "assistant", "tool_calls": [{"index": 0, "function": {"arguments": ' maker"}'}}]},
        {"tool_calls": [{"index": 1, "function": {"arguments": ': "PS11752778"}'}}]},
        {
            "tool_calls": [
                {
                    "index": 2,
                    "id": "call_c",
                    "type": "function",
                    "function": {"name": "check_compatibility", "arguments": "{}"},
                }
            ]
        },
        finish_reason="tool_calls",
    ),
}


def make(cls: type[ChatOpenAI], fake: FakeLLM, **kw: Any) -> ChatOpenAI:
    options: dict[str, Any] = {
        "model": "gpt-4o-mini",
        "base_url": fake.base_url,
        "api_key": "sk-test",
        "streaming": True,
        "stream_usage": True,
        "timeout": 5,
        "max_retries": 2,
        **kw,
    }
    return cls(**options)


async def collect(model: Any, messages: Any = "hi") -> tuple[list[AIMessageChunk], AIMessageChunk]:
    chunks: list[AIMessageChunk] = []
    async for chunk in model.astream(messages):
        chunks.append(chunk)
    merged = chunks[0]
    for c in chunks[1:]:
        merged = merged + c
    return chunks, merged


def view(chunk: AIMessageChunk) -> dict[str, Any]:
    """Everything about a chunk except the run id LangChain assigns."""
    d = chunk.model_dump()
    d.pop("id")
    return d


async def run_both(
    fake_llm: FakeFactory, reply: Callable[[], Reply], messages: Any = "hi", **kw: Any
) -> tuple[Any, Any, FakeLLM, FakeLLM]:
    out = []
    fakes = []
    for cls in (ChatOpenAI, FastChatOpenAI):
        fake = await fake_llm([reply()])
        model: Any = make(cls, fake, **kw)
        out.append(await collect(model, messages))
        fakes.append(fake)
    return out[0], out[1], fakes[0], fakes[1]


# -- parity on recorded streams ------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(SCRIPTS))
@pytest.mark.parametrize("stream_usage", [True, False])
async def test_same_chunks_as_stock(fake_llm: FakeFactory, name: str, stream_usage: bool) -> None:
    (stock_chunks, stock), (fast_chunks, fast), _, _ = await run_both(
        fake_llm, SCRIPTS[name], stream_usage=stream_usage
    )
    assert [view(c) for c in fast_chunks] == [view(c) for c in stock_chunks]
    assert view(fast) == view(stock)
    assert fast.tool_calls == stock.tool_calls
    assert fast.invalid_tool_calls == stock.invalid_tool_calls
    assert fast.usage_metadata == stock.usage_metadata
    assert fast.response_metadata["finish_reason"] == stock.response_metadata["finish_reason"]
    assert fast.response_metadata["model_name"] == "gpt-4o-mini"
    assert (fast.usage_metadata is not None) is stream_usage
    # every chunk of one stream carries the same message id
    assert len({c.id for c in fast_chunks}) == 1


async def test_tool_calls_come_out_whole(fake_llm: FakeFactory) -> None:
    _, (_, fast), _, _ = await run_both(fake_llm, SCRIPTS["parallel_tool_calls"])
    assert [(t["name"], t["args"]) for t in fast.tool_calls] == [
        ("search_parts", {"query": "ice maker"}),
        ("get_part_details", {"partNumber": "PS11752778"}),
        ("check_compatibility", {"partNumber": "PS11752778", "model": "WRS325SDHZ"}),
    ]
    assert all(t["id"] for t in fast.tool_calls)
    assert fast.response_metadata["finish_reason"] == "tool_calls"


async def test_arguments_that_are_not_json_become_invalid_tool_calls(
    fake_llm: FakeFactory,
) -> None:
    _, (_, fast), _, _ = await run_both(fake_llm, SCRIPTS["args_not_json"])
    assert fast.tool_calls == []
    assert [(t["name"], t["args"]) for t in fast.invalid_tool_calls] == [
        ("search_parts", "query = ice maker (not json)")
    ]


async def test_text_streams_token_by_token(fake_llm: FakeFactory) -> None:
    _, (chunks, fast), _, _ = await run_both(fake_llm, SCRIPTS["text"])
    texts = [c.content for c in chunks if c.content]
    assert len(texts) == 14  # one chunk per word
    assert fast.content == "".join(texts)


async def test_same_request_body_as_stock_with_bound_tools(fake_llm: FakeFactory) -> None:
    history: list[BaseMessage] = [
        SystemMessage("You sell fridge parts."),
        HumanMessage("Does PS11752778 fit WRS325SDHZ?"),
        AIMessage(
            "",
            tool_calls=[
                {
                    "name": "check_compatibility",
                    "args": {"partNumber": "PS11752778"},
                    "id": "call_1",
                }
            ],
        ),
        ToolMessage('{"ok": true, "fits": true}', tool_call_id="call_1"),
    ]
    bodies = []
    for cls in (ChatOpenAI, FastChatOpenAI):
        fake = await fake_llm([Reply.say("Yes, it fits.")])
        model = make(cls, fake, temperature=0.2).bind_tools(TOOLS, tool_choice="auto")
        await collect(model, history)
        bodies.append(fake.requests[0].body)
    assert bodies[1] == bodies[0]
    assert bodies[1] is not None
    assert bodies[1]["stream"] is True
    assert bodies[1]["stream_options"] == {"include_usage": True}
    assert [t["function"]["name"] for t in bodies[1]["tools"]] == [
        "search_parts",
        "check_compatibility",
        "get_part_details",
    ]


CONVERSATION: list[BaseMessage] = [
    SystemMessage("You help shoppers find parts."),
    HumanMessage("My ice maker stopped.", id="h0"),
    AIMessage("Which model is it? " * 30, id="h1"),
    HumanMessage("WRS325SDHZ"),
    AIMessage("", tool_calls=[{"name": "search_parts", "args": {"query": "ice"}, "id": "c1"}]),
    ToolMessage('{"ok":true}', tool_call_id="c1"),
    AIMessage("Found it.", name="helper"),
    HumanMessage([{"type": "text", "text": "A list of blocks"}]),
    AIMessage("With extras", additional_kwargs={"refusal": None}),
    SystemMessage("Be brief.", additional_kwargs={"__openai_role__": "developer"}),
]


@pytest.mark.parametrize("model", ["gpt-4o-mini", "o3-mini"])
@pytest.mark.parametrize(
    "messages",
    [CONVERSATION[:4], CONVERSATION, CONVERSATION[:1] + CONVERSATION[-1:], []],
    ids=["plain", "mixed", "system_role_kwarg", "empty"],
)
def test_request_payload_equals_stock(model: str, messages: list[BaseMessage]) -> None:
    """Plain messages are converted by FastChatOpenAI itself: the payload must not change."""
    kw: dict[str, Any] = {"model": model, "api_key": "sk-test", "streaming": True}
    stock = ChatOpenAI(**kw).bind_tools(TOOLS)
    fast = FastChatOpenAI(**kw).bind_tools(TOOLS)
    expected = stock.bound._get_request_payload(messages, stop=["END"], **stock.kwargs)  # type: ignore[attr-defined]
    got = fast.bound._get_request_payload(messages, stop=["END"], **fast.kwargs)  # type: ignore[attr-defined]
    assert got == expected
    assert orjson.dumps(got) == orjson.dumps(expected)  # same key order too


async def test_headers(fake_llm: FakeFactory) -> None:
    fake = await fake_llm([Reply.say("ok")])
    model = make(FastChatOpenAI, fake, organization="org-7", default_headers={"X-Shop": "demo"})
    await collect(model)
    headers = fake.requests[0].headers
    assert headers["authorization"] == "Bearer sk-test"
    assert headers["openai-organization"] == "org-7"
    assert headers["x-shop"] == "demo"
    assert headers["content-type"] == "application/json"


async def test_environment_proxy_is_used(
    fake_llm: FakeFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``HTTP_PROXY`` is honoured (as httpx does); the fake answers absolute-form targets
    like a proxy, and the model's own host does not resolve, so only the proxy can work."""
    fake = await fake_llm([Reply.say("via the proxy")])
    for var in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy", "http_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HTTP_PROXY", fake.base_url.removesuffix("/v1"))
    env_proxy.cache_clear()
    try:
        model = make(FastChatOpenAI, fake, base_url="http://llm.invalid/v1", max_retries=0)
        _, merged = await collect(model)
    finally:
        env_proxy.cache_clear()
    assert merged.content == "via the proxy"
    assert fake.requests[0].headers["host"] == "llm.invalid"


def test_environment_proxy_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("NO_PROXY", "no_proxy", "HTTP_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://user:pw@proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "internal.example")
    env_proxy.cache_clear()
    try:
        found = env_proxy("https://api.openai.com/v1/chat/completions")
        assert found is not None
        assert str(found[0]) == "http://proxy.example:3128"
        assert found[1] is not None and found[1].login == "user"
        assert env_proxy("https://internal.example/v1/chat/completions") is None
        assert env_proxy("http://api.openai.com/v1/chat/completions") is None  # no HTTP_PROXY
    finally:
        env_proxy.cache_clear()


# -- callbacks and LangGraph ---------------------------------------------------------------
class TokenRecorder(AsyncCallbackHandler):
    def __init__(self) -> None:
        self.tokens: list[str] = []

    async def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        assert kwargs["chunk"] is not None
        self.tokens.append(token)


async def test_on_llm_new_token_like_stock(fake_llm: FakeFactory) -> None:
    seen = []
    for cls in (ChatOpenAI, FastChatOpenAI):
        fake = await fake_llm([SCRIPTS["text_and_tool_call"]()])
        recorder = TokenRecorder()
        result = await make(cls, fake).ainvoke("hi", config={"callbacks": [recorder]})
        assert result.tool_calls[0]["name"] == "search_parts"
        seen.append(recorder.tokens)
    assert seen[1] == seen[0]
    assert "".join(seen[1]) == "Let me look that up for you."


@pytest.mark.parametrize("cls", [ChatOpenAI, FastChatOpenAI])
async def test_langgraph_messages_stream_mode(fake_llm: FakeFactory, cls: type) -> None:
    from langgraph.graph import START, MessagesState, StateGraph

    fake = await fake_llm([SCRIPTS["text_and_tool_call"](), SCRIPTS["text"]()])
    model = make(cls, fake).bind_tools(TOOLS)

    async def llm(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    graph_builder = StateGraph(MessagesState)
    graph_builder.add_node("llm", llm)
    graph_builder.add_edge(START, "llm")
    graph = graph_builder.compile()

    tokens: list[str] = []
    tool_chunks = 0
    stream = graph.astream({"messages": [HumanMessage("hi")]}, stream_mode="messages")
    async for msg, meta in stream:
        assert meta["langgraph_node"] == "llm"
        assert isinstance(msg, AIMessageChunk)
        if msg.content:
            tokens.append(str(msg.content))
        tool_chunks += len(msg.tool_call_chunks)
    assert tokens == ["Let", " me", " look", " that", " up", " for", " you."]
    assert tool_chunks >= 2  # the call's id+name chunk, then its argument pieces
    final = await graph.ainvoke({"messages": [HumanMessage("hi")]})
    assert final["messages"][-1].content.startswith("The water inlet valve")


# -- faults --------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [ChatOpenAI, FastChatOpenAI])
async def test_500_is_retried_then_raises(fake_llm: FakeFactory, cls: type) -> None:
    fake = await fake_llm([Reply.error(500), Reply.error(503), Reply.say("recovered")])
    _, merged = await collect(make(cls, fake, max_retries=2))
    assert merged.content == "recovered"
    assert len(fake.requests) == 3

    fake = await fake_llm([Reply.error(500), Reply.error(500)])
    with pytest.raises(openai.InternalServerError) as info:
        await collect(make(cls, fake, max_retries=1))
    assert info.value.status_code == 500
    assert "fake_llm error 500" in str(info.value)
    assert len(fake.requests) == 2


@pytest.mark.parametrize("cls", [ChatOpenAI, FastChatOpenAI])
async def test_429_honours_retry_after(fake_llm: FakeFactory, cls: type) -> None:
    fake = await fake_llm([Reply.error(429, "slow down", retry_after=0.4), Reply.say("ok")])
    start = time.monotonic()
    _, merged = await collect(make(cls, fake, max_retries=1))
    assert merged.content == "ok"
    assert time.monotonic() - start >= 0.38

    fake = await fake_llm([Reply.error(429, "slow down", retry_after=0.1)])
    with pytest.raises(openai.RateLimitError, match="slow down"):
        await collect(make(cls, fake, max_retries=0))


async def test_retry_after_is_capped() -> None:
    import httpx

    from partchat.agent.llm.openai_fast import errors

    response = httpx.Response(
        429, headers={"retry-after": "3600"}, request=httpx.Request("POST", "http://x")
    )
    error = errors.status_error(response)
    assert isinstance(error, openai.RateLimitError)
    assert errors.retry_delay(error, 0) == errors.RETRY_AFTER_CAP


@pytest.mark.parametrize("cls", [ChatOpenAI, FastChatOpenAI])
async def test_timeout(fake_llm: FakeFactory, cls: type) -> None:
    fake = await fake_llm([Reply.hang()])
    with pytest.raises(openai.APITimeoutError):
        await collect(make(cls, fake, timeout=0.3, max_retries=0))

    fake = await fake_llm([Reply.hang(), Reply.say("second try")])
    _, merged = await collect(make(cls, fake, timeout=0.3, max_retries=1))
    assert merged.content == "second try"


@pytest.mark.parametrize("cls", [ChatOpenAI, FastChatOpenAI])
async def test_reset_mid_stream_raises_without_retry(fake_llm: FakeFactory, cls: type) -> None:
    fake = await fake_llm([Reply.reset(after_chunks=3), Reply.say("must not be used")])
    got: list[AIMessageChunk] = []
    with pytest.raises(openai.APIConnectionError):
        async for chunk in make(cls, fake, max_retries=2).astream("hi"):
            got.append(chunk)
    assert len(got) == 3
    assert len(fake.requests) == 1


async def test_failure_before_first_chunk_is_retried(fake_llm: FakeFactory) -> None:
    fake = await fake_llm([Reply.reset(after_chunks=0), Reply.say("recovered")])
    _, merged = await collect(make(FastChatOpenAI, fake, max_retries=1))
    assert merged.content == "recovered"
    assert len(fake.requests) == 2


@pytest.mark.parametrize("cls", [ChatOpenAI, FastChatOpenAI])
async def test_malformed_sse_raises(fake_llm: FakeFactory, cls: type) -> None:
    fake = await fake_llm([Reply.malformed(after_chunks=2)])
    with pytest.raises(Exception) as info:
        await collect(make(cls, fake))
    if cls is FastChatOpenAI:
        assert isinstance(info.value, LLMStreamError)
        assert isinstance(info.value, openai.APIError)
        assert "not a JSON object" in str(info.value)
    assert len(fake.requests) == 1


async def test_truncated_stream_raises(fake_llm: FakeFactory) -> None:
    """No finish_reason and no [DONE]: the fast path says so (stock ends silently)."""
    fake = await fake_llm([Reply(text="one two three four", end_after_chunks=3)])
    with pytest.raises(openai.APIConnectionError, match="ended before"):
        await collect(make(FastChatOpenAI, fake, max_retries=0))


async def test_error_status_4xx_not_retried(fake_llm: FakeFactory) -> None:
    fake = await fake_llm([Reply.error(400, "bad tools"), Reply.say("unused")])
    with pytest.raises(openai.BadRequestError, match="bad tools"):
        await collect(make(FastChatOpenAI, fake, max_retries=2))
    assert len(fake.requests) == 1


# -- plumbing ------------------------------------------------------------------------------
async def test_consumer_stopping_early_releases_the_stream(fake_llm: FakeFactory) -> None:
    fake = await fake_llm([Reply.say("one two three four five six", token_ms=20), Reply.say("ok")])
    model = make(FastChatOpenAI, fake)
    stream = model.astream("hi")
    async for chunk in stream:
        if chunk.content:
            break
    await stream.aclose()  # type: ignore[attr-defined]
    _, merged = await collect(model)
    assert merged.content == "ok"


async def test_client_per_event_loop(fake_llm: FakeFactory) -> None:
    fake = await fake_llm([Reply.say("here"), Reply.say("other loop"), Reply.say("here again")])
    model = make(FastChatOpenAI, fake)
    assert (await model.ainvoke("hi")).content == "here"
    other = await asyncio.to_thread(lambda: asyncio.run(model.ainvoke("hi")))
    assert other.content == "other loop"
    assert (await model.ainvoke("hi")).content == "here again"
    await model.aclose()


async def test_fast_path_off_uses_stock_code(
    fake_llm: FakeFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("fast path used")

    monkeypatch.setattr(FastChatOpenAI, "_fast_objects", boom)
    fake = await fake_llm([Reply.say("stock path"), Reply.say("headers")])
    _, merged = await collect(make(FastChatOpenAI, fake, fast_path=False))
    assert merged.content == "stock path"
    # options only the stock path supports fall back to it automatically
    _, merged = await collect(make(FastChatOpenAI, fake, include_response_headers=True))
    assert merged.response_metadata["headers"]["x-fake-request-id"] == "2"


async def test_non_streaming_calls(fake_llm: FakeFactory) -> None:
    fake = await fake_llm([Reply.say("not streamed"), Reply.say("via _agenerate")])
    model = make(FastChatOpenAI, fake, streaming=False)
    assert (await model.ainvoke("hi")).content == "not streamed"
    assert fake.requests[0].body is not None and not fake.requests[0].body.get("stream")
    streaming = make(FastChatOpenAI, fake)
    result = await streaming._agenerate([HumanMessage("hi")])
    assert result.generations[0].message.content == "via _agenerate"


async def test_bound_model_is_still_a_fast_model(fake_llm: FakeFactory) -> None:
    fake = await fake_llm([SCRIPTS["split_tool_args"]()])
    bound = make(FastChatOpenAI, fake).bind_tools(TOOLS)
    assert isinstance(bound.bound, FastChatOpenAI)  # type: ignore[attr-defined]
    result = await bound.ainvoke("hi")
    assert result.tool_calls[0]["args"] == {"partNumber": "PS11752778", "model": "WRS325SDHZ"}


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
async def test_pooled_connections_do_not_pin_the_turns_that_used_them(
    fake_llm: FakeFactory, loop: str
) -> None:
    """A keep-alive connection outlives its turn; it must not keep that turn's context
    (LangGraph's config lives in a context variable) and everything it reaches alive."""
    fake = await fake_llm([Reply.say("one"), Reply.say("two"), Reply.say("three")])
    model = make(FastChatOpenAI, fake)
    var: contextvars.ContextVar[object] = contextvars.ContextVar("turn_state")

    class TurnState:
        pass

    async def turn() -> weakref.ref[TurnState]:
        state = TurnState()
        var.set(state)
        _, merged = await collect(model)
        assert merged.content
        return weakref.ref(state)

    async def three_turns() -> tuple[list[TurnState | None], int]:
        first = await asyncio.create_task(turn())
        second = await asyncio.create_task(turn())
        third = await asyncio.create_task(turn())
        refs = [first, second, third]  # one pooled connection served all three
        for _ in range(3):  # let the loop drop its last handle on the finished task
            await asyncio.sleep(0)
        gc.collect()
        client = model._pool.get()  # type: ignore[attr-defined]
        pooled = sum(len(c) for c in client.connector._conns.values())
        alive = [r() for r in refs]  # before closing the pool, which would free them all
        await model.aclose()  # type: ignore[attr-defined]
        return alive, pooled

    if loop == "uvloop":
        alive, pooled = await asyncio.to_thread(uvloop.run, three_turns())
    else:
        alive, pooled = await three_turns()
    assert pooled == 1  # the connection was still in the pool when the turns were checked
    assert alive == [None, None, None]
