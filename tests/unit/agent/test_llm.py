"""make_chat_model picks the model Settings asks for; classify_llm_error spots outages."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import httpx
import openai
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from partchat.agent.llm import (
    DEFAULT_OPENAI_BASE_URL,
    classify_llm_error,
    make_chat_model,
)
from partchat.agent.llm.openai_fast import FastChatOpenAI, LLMStreamError
from partchat.settings import Settings
from tests.support.fake_llm import Reply
from tests.unit.agent.conftest import FakeFactory

pytestmark = pytest.mark.timeout(10)


def offline_model() -> BaseChatModel:
    return FakeListChatModel(responses=["offline answer"])


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- make_chat_model -----------------------------------------------------------------------
def test_offline_uses_the_factory() -> None:
    model = make_chat_model(Settings(llm="offline"), offline_factory=offline_model)
    assert isinstance(model, FakeListChatModel)


def test_auto_without_key_is_offline() -> None:
    model = make_chat_model(Settings(llm="auto"), offline_factory=offline_model)
    assert isinstance(model, FakeListChatModel)


def test_auto_with_key_is_openai_and_builds_without_network() -> None:
    settings = Settings(
        llm="auto",
        openai_api_key="sk-test",
        openai_base_url=f"http://127.0.0.1:{closed_port()}/v1",
        model="gpt-4.1-mini",
        llm_timeout_s=12.5,
        llm_max_retries=4,
    )
    model = make_chat_model(settings, offline_factory=offline_model)
    assert isinstance(model, FastChatOpenAI)
    assert model.fast_path
    assert model.model_name == "gpt-4.1-mini"
    assert model.openai_api_base == settings.openai_base_url
    assert model.request_timeout == 12.5
    assert model.max_retries == 4
    assert model.streaming is True
    assert model.stream_usage is True
    assert model.openai_api_key is not None
    assert model.openai_api_key.get_secret_value() == "sk-test"  # type: ignore[union-attr]


def test_openai_defaults_base_url_and_key() -> None:
    model = make_chat_model(Settings(llm="openai"))
    assert isinstance(model, FastChatOpenAI)
    assert model.openai_api_base == DEFAULT_OPENAI_BASE_URL
    assert model.openai_api_key is not None  # placeholder for keyless local servers


async def test_openai_model_talks_to_the_configured_server(fake_llm: FakeFactory) -> None:
    fake = await fake_llm([Reply.say("Check the water inlet valve first.")])
    settings = Settings(
        llm="openai",
        openai_api_key="sk-test",
        openai_base_url=fake.base_url,
        model="my-local-model",
    )
    model = make_chat_model(settings)
    chunks = [c async for c in model.astream("my ice maker stopped")]
    assert "".join(str(c.content) for c in chunks) == "Check the water inlet valve first."
    body = fake.requests[0].body
    assert body is not None
    assert body["model"] == "my-local-model"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


# -- classify_llm_error --------------------------------------------------------------------
async def raised_by(model: Any) -> BaseException:
    try:
        async for _ in model.astream("hi"):
            pass
    except Exception as e:
        return e
    raise AssertionError("no error raised")


@pytest.mark.parametrize(
    "reply",
    [
        Reply.error(500),
        Reply.error(503),
        Reply.error(429, retry_after=0.01),
        Reply.hang(),
        Reply.reset(after_chunks=2),
        Reply.malformed(after_chunks=1),
    ],
    ids=["500", "503", "429", "timeout", "reset", "malformed"],
)
@pytest.mark.parametrize("fast_path", [True, False], ids=["fast", "stock"])
async def test_outages_are_llm_unavailable(
    fake_llm: FakeFactory, reply: Reply, fast_path: bool
) -> None:
    fake = await fake_llm([reply])
    model = FastChatOpenAI(
        base_url=fake.base_url,
        api_key="sk-test",
        streaming=True,
        timeout=0.3,
        max_retries=0,
        fast_path=fast_path,
    )
    error = await raised_by(model)
    if not fast_path and reply.malformed_after_chunks is not None:
        # the stock SDK lets json.JSONDecodeError escape: not recognisable as an outage
        assert classify_llm_error(error) is None
        return
    assert classify_llm_error(error) == "llm_unavailable", repr(error)


async def test_connection_refused_is_llm_unavailable() -> None:
    model = FastChatOpenAI(
        base_url=f"http://127.0.0.1:{closed_port()}/v1",
        api_key="sk",
        streaming=True,
        max_retries=0,
    )
    error = await raised_by(model)
    assert isinstance(error, openai.APIConnectionError)
    assert classify_llm_error(error) == "llm_unavailable"


async def test_client_errors_are_not_outages(fake_llm: FakeFactory) -> None:
    fake = await fake_llm([Reply.error(400, "bad schema"), Reply.error(401)])
    model = FastChatOpenAI(base_url=fake.base_url, api_key="sk", streaming=True, max_retries=0)
    assert classify_llm_error(await raised_by(model)) is None
    assert classify_llm_error(await raised_by(model)) is None


def test_classify_plain_exceptions() -> None:
    request = httpx.Request("POST", "http://llm/v1/chat/completions")
    assert classify_llm_error(httpx.ConnectError("refused", request=request)) == "llm_unavailable"
    assert classify_llm_error(httpx.ReadTimeout("slow", request=request)) == "llm_unavailable"
    assert (
        classify_llm_error(LLMStreamError("bad line", request, body=None))  # type: ignore[arg-type]
        == "llm_unavailable"
    )
    assert classify_llm_error(ValueError("bug")) is None
    assert classify_llm_error(KeyError("bug")) is None
    assert classify_llm_error(asyncio.CancelledError()) is None


def test_classify_httpx2_and_chunk_timeout() -> None:
    httpx2 = pytest.importorskip("httpx2")
    from langchain_openai.chat_models._client_utils import StreamChunkTimeoutError

    assert classify_llm_error(httpx2.ReadError("gone")) == "llm_unavailable"
    assert classify_llm_error(StreamChunkTimeoutError(1.0)) == "llm_unavailable"
    assert classify_llm_error(TimeoutError()) is None
