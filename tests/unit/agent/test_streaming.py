"""The lean token path (``stream_reply`` → ``FastChatOpenAI.astream_text``) returns the
message the stock path builds and hands the sink exactly the streamed text (a socket
read's chunks as one piece)."""

from __future__ import annotations

from typing import Any

import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_openai import ChatOpenAI

from partchat.agent.llm.openai_fast import FastChatOpenAI
from partchat.agent.streaming import stream_reply, text_sink, with_text_sink
from tests.support.fake_llm import Reply
from tests.unit.agent.conftest import FakeFactory
from tests.unit.agent.test_fast_openai import SCRIPTS, TOOLS, collect, make

pytestmark = pytest.mark.timeout(10)


def essentials(message: AIMessage) -> dict[str, Any]:
    return {
        "content": message.content,
        "tool_calls": message.tool_calls,
        "invalid_tool_calls": message.invalid_tool_calls,
        "usage_metadata": message.usage_metadata,
        "finish_reason": message.response_metadata.get("finish_reason"),
        "model_name": message.response_metadata.get("model_name"),
    }


def boundaries(pieces: list[Any]) -> set[int]:
    """Where the pieces of a text end, as offsets into the whole."""
    ends, at = set(), 0
    for piece in pieces:
        at += len(piece)
        ends.add(at)
    return ends


@pytest.mark.parametrize("name", sorted(SCRIPTS))
@pytest.mark.parametrize("stream_usage", [True, False])
async def test_same_message_as_stock(fake_llm: FakeFactory, name: str, stream_usage: bool) -> None:
    stock_fake = await fake_llm([SCRIPTS[name]()])
    stock_model: Any = make(ChatOpenAI, stock_fake, stream_usage=stream_usage).bind_tools(TOOLS)
    stock_chunks, stock = await collect(stock_model)
    expected = AIMessage(
        content=stock.content,
        tool_calls=stock.tool_calls,
        invalid_tool_calls=stock.invalid_tool_calls,
        usage_metadata=stock.usage_metadata,
        response_metadata=stock.response_metadata,
    )

    fake = await fake_llm([SCRIPTS[name]()])
    model = make(FastChatOpenAI, fake, stream_usage=stream_usage).bind_tools(TOOLS)
    pieces: list[str] = []
    reply = await stream_reply(model, [HumanMessage("hi")], {}, pieces.append)

    assert essentials(reply) == essentials(expected)
    # The sink gets a socket read's chunks as one piece: the same text, cut only where
    # the stock chunks are cut.
    assert all(pieces)
    assert boundaries(pieces) <= boundaries([c.content for c in stock_chunks if c.content])
    assert "".join(pieces) == "".join(c.content for c in stock_chunks if c.content)
    assert fake.requests[0].body == stock_fake.requests[0].body  # tools bound the same way


async def test_errors_are_the_sdk_classes_and_partial_text_was_streamed(
    fake_llm: FakeFactory,
) -> None:
    fake = await fake_llm([Reply.error(500)])
    with pytest.raises(openai.InternalServerError):
        await stream_reply(
            make(FastChatOpenAI, fake, max_retries=0), [HumanMessage("hi")], {}, print
        )
    fake = await fake_llm([Reply.reset(after_chunks=3)])
    pieces: list[str] = []
    with pytest.raises(openai.APIConnectionError):
        await stream_reply(make(FastChatOpenAI, fake), [HumanMessage("hi")], {}, pieces.append)
    assert pieces  # what arrived before the reset reached the sink


async def test_other_models_stream_through_astream(fake_llm: FakeFactory) -> None:
    """A model without the lean path (here stock ChatOpenAI) still feeds the sink."""
    fake = await fake_llm([SCRIPTS["text"]()])
    pieces: list[str] = []
    reply = await stream_reply(make(ChatOpenAI, fake), [HumanMessage("hi")], {}, pieces.append)
    assert len(pieces) == 14
    assert reply.content == "".join(pieces)


async def test_fast_path_off_falls_back(fake_llm: FakeFactory) -> None:
    fake = await fake_llm([SCRIPTS["text"]()])
    model = make(FastChatOpenAI, fake, fast_path=False)
    pieces: list[str] = []
    reply = await stream_reply(model, [HumanMessage("hi")], {}, pieces.append)
    assert reply.content == "".join(pieces) and len(pieces) == 14


def test_sink_travels_in_the_config() -> None:
    base: RunnableConfig = {"configurable": {"thread_id": "t"}, "tags": ["x"]}
    config = with_text_sink(base, print)
    assert text_sink(config) is print
    assert config["configurable"]["thread_id"] == "t" and config["tags"] == ["x"]
    assert text_sink(base) is None and text_sink(None) is None
