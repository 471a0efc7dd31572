"""``FastChatOpenAI``: ``ChatOpenAI`` with a lean streaming path.

Why: profiling one streamed turn showed about a third of the CPU in the openai SDK
building a pydantic object per SSE chunk (``openai._models.construct_type``) that
LangChain immediately dumps back to a dict, plus an ``asyncio.wait_for`` task per chunk
for the chunk timeout. This class keeps everything LangChain does around the request
(payload building, message conversion, ``bind_tools``, callbacks, usage metadata) and
replaces only the wire part of ``_astream``: one shared ``aiohttp.ClientSession`` per
event loop, SSE split by hand, each ``data:`` line parsed once with orjson and turned
straight into an ``AIMessageChunk``.

Why aiohttp for the wire: reading a streamed response through httpx (httpcore, h11 and an
anyio cancel scope and timeout per read) cost ~2.1 ms of CPU per 60-token response on the
bench machine, aiohttp (C HTTP parser, plain asyncio) ~0.3 ms: the biggest remaining item
of a streamed turn's profile. The stock path (and the errors' ``request``/``response``
objects, which the SDK types as httpx's) still use httpx. aiohttp verifies TLS with the
system's CA store and honours ``HTTP(S)_PROXY``/``NO_PROXY`` from the environment, as httpx
does; the proxy is resolved once per URL, not per request (aiohttp's ``trust_env`` re-reads
the environment and ``~/.netrc`` in a thread on every request: 6 % of a turn's CPU).

Behaviour matches the stock path: the same chunks (text, tool-call chunks, usage,
``finish_reason``/``model_name`` metadata), the same exception classes (the SDK's
``openai.*Error`` through LangChain's mapping), the SDK's retry policy for failures
before the first chunk. Anything unusual (Responses API, ``response_format``, custom
http clients, proxies, callable API keys, response headers, the LangSmith gateway)
and ``fast_path=False`` go through the stock code unchanged.
"""

from __future__ import annotations

import asyncio
import contextvars
import email.utils
import functools
import math
import random
import re
import time
import weakref
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import aiohttp
import httpx
import openai
import orjson
import yarl
from aiohttp.helpers import get_env_proxy_for_url
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.language_models.chat_models import agenerate_from_stream
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    message_chunk_to_message,
)
from langchain_core.messages.tool import ToolCallChunk
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.utils._merge import merge_lists
from langchain_openai import ChatOpenAI
from langchain_openai.chat_models._client_utils import StreamChunkTimeoutError
from langchain_openai.chat_models._compat import _convert_from_v1_to_chat_completions
from langchain_openai.chat_models.base import (
    _convert_message_to_dict,
    _create_usage_metadata,
    _handle_openai_api_error,
    _handle_openai_bad_request,
)
from pydantic import PrivateAttr, SecretStr

__all__ = ["FastChatOpenAI", "LLMStreamError"]

_INITIAL_RETRY_DELAY = 0.5
_MAX_RETRY_DELAY = 8.0
_RETRY_AFTER_CAP = 10.0
"""Longest server-requested wait honoured: a shopper is waiting on the other end."""
_MAX_CONNECTIONS = 1000
_KEEPALIVE_S = 5.0
_RETRY_STATUS = frozenset({408, 409, 429})
_TEXT_ONLY_KEYS = frozenset({"content", "role", "refusal"})
_TOOL_DELTA_KEYS = frozenset({"content", "role", "tool_calls"})
# Yielded by ``_fast_objects`` after the chunks of one socket read (never a chunk: the
# consumers compare it by identity and skip it).
_READ_END: dict[str, Any] = {}


class LLMStreamError(openai.APIError):
    """The LLM server sent an SSE stream that cannot be parsed (bad JSON, early end)."""


class _ContextFreeConnector(aiohttp.TCPConnector):
    """A connection pool that keeps no caller's ``contextvars`` context.

    Callbacks keep the context they were scheduled in: a transport's (uvloop runs the
    protocol's callbacks in the context the connection was made in) and the pool's
    keep-alive cleanup timer (scheduled when a connection is released, and rescheduling
    itself from there for as long as the pool holds connections). Both outlive the turn
    that made them, and that turn's context holds its whole LangGraph run (the config in
    LangChain's context variable: callbacks, channels, messages): hundreds of finished
    turns stayed alive under load. So both happen in an empty context. They are
    aiohttp's private methods; a test checks that no turn is pinned, on both loops.
    """

    async def _create_connection(self, *args: Any, **kwargs: Any) -> Any:
        make = super()._create_connection(*args, **kwargs)
        return await asyncio.create_task(make, context=contextvars.Context())

    def _release(self, *args: Any, **kwargs: Any) -> None:
        contextvars.Context().run(super()._release, *args, **kwargs)


class FastChatOpenAI(ChatOpenAI):
    """``ChatOpenAI`` whose async streaming skips the openai SDK's per-chunk objects."""

    fast_path: bool = True
    """Use the lean streaming path; ``False`` runs stock ``ChatOpenAI`` code."""

    _clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, aiohttp.ClientSession] = (
        PrivateAttr(default_factory=weakref.WeakKeyDictionary)
    )
    _static_headers: dict[str, str] | None = PrivateAttr(default=None)

    # -- LangChain entry points -------------------------------------------------------
    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        plan = self._fast_plan(messages, stop, kwargs) if self.fast_path else None
        if plan is None:
            async for chunk in super()._astream(
                messages, stop=stop, run_manager=run_manager, **kwargs
            ):
                yield chunk
            return
        to_chunk = self._to_chunk
        try:
            async for obj in self._fast_objects(plan):
                if obj is _READ_END:
                    continue
                maybe = to_chunk(obj)
                if maybe is None:
                    continue
                chunk = maybe
                if run_manager:
                    await run_manager.on_llm_new_token(
                        chunk.text,
                        chunk=chunk,
                        logprobs=(chunk.generation_info or {}).get("logprobs"),
                    )
                yield chunk
        except openai.BadRequestError as e:
            _handle_openai_bad_request(e)
        except openai.APIError as e:
            _handle_openai_api_error(e)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """LangChain core already routes ``streaming=True`` calls to ``_astream``; this
        covers direct ``_agenerate`` calls the way older ChatOpenAI did."""
        if self.fast_path and self.streaming and not self._streaming_disabled(**kwargs):
            return await agenerate_from_stream(
                self._astream(messages, stop=stop, run_manager=run_manager, **kwargs)
            )
        return await super()._agenerate(messages, stop=stop, run_manager=run_manager, **kwargs)

    async def astream_text(
        self,
        messages: list[BaseMessage],
        on_text: Callable[[str], object],
        **kwargs: Any,
    ) -> AIMessage | None:
        """Stream one reply straight to ``on_text`` and return it whole, or None when the
        call needs the stock path (then nothing was sent).

        The leanest path from the wire to a socket: a chunk that only carries text costs
        one orjson parse, with no LangChain chunk object, no callback chain and no
        per-token message merge. ``on_text`` gets the text of one socket read at once
        (the chunks of a read arrive together, so none waits for another): one call, one
        ``text-delta`` downstream, where one call per chunk published two (the sink sends
        a pass's first piece at once and holds the rest to the end of the pass). Chunks
        with anything else (tool calls, usage, the finish reason) go through
        ``_to_chunk`` and are merged as ``agenerate_from_stream`` would, so the returned
        message equals the stock one. No LangChain callbacks run for this call: tracing
        sees the graph node, not the model run. ``kwargs`` are the model kwargs
        (``bind_tools`` puts ``tools`` here).
        """
        if not self.fast_path:
            return None
        plan = self._fast_plan(messages, None, kwargs)
        if plan is None:
            return None
        texts: list[str] = []
        others: list[AIMessageChunk] = []
        info: dict[str, Any] = {}
        # Tool-call deltas (a call's arguments arrive a few characters at a time) are
        # merged as plain dicts, exactly as AIMessageChunk addition merges them, and
        # become one chunk: no message object and no partial-JSON parse per delta.
        calls: list[Any] | None = None
        pending: list[str] = []  # text of the current read, not yet handed to on_text

        def flush() -> None:
            if pending:
                text = pending[0] if len(pending) == 1 else "".join(pending)
                pending.clear()
                on_text(text)

        try:
            async for obj in self._fast_objects(plan):
                if obj is _READ_END:
                    flush()
                    continue
                choices = obj.get("choices")
                if choices:
                    choice = choices[0]
                    delta = choice.get("delta")
                    if (
                        delta is not None
                        and not choice.get("finish_reason")
                        and not choice.get("logprobs")
                        and not obj.get("usage")
                    ):
                        keys = delta.keys()
                        if keys <= _TEXT_ONLY_KEYS:
                            text = delta.get("content")
                            if text:
                                texts.append(text)
                                pending.append(text)
                            continue
                        if keys <= _TOOL_DELTA_KEYS and not delta.get("content"):
                            raw = delta.get("tool_calls") or []
                            calls = merge_lists(calls, _tool_call_chunks(raw))
                            continue
                if calls is not None:
                    others.append(self._calls_chunk(calls))
                    calls = None
                chunk = self._to_chunk(obj)
                if chunk is None:
                    continue
                if chunk.generation_info:
                    info.update(chunk.generation_info)
                if chunk.text:
                    texts.append(chunk.text)
                    pending.append(chunk.text)
                message = chunk.message
                assert isinstance(message, AIMessageChunk)
                others.append(message.model_copy(update={"content": ""}))
        except openai.BadRequestError as e:
            _handle_openai_bad_request(e)
        except openai.APIError as e:
            _handle_openai_api_error(e)
        finally:
            flush()  # what arrived reaches the sink, also when the stream failed
        if calls is not None:
            others.append(self._calls_chunk(calls))
        merged = others[0] + others[1:] if others else AIMessageChunk(content="")
        assert isinstance(merged, AIMessageChunk)
        info.pop("logprobs", None)
        merged = merged.model_copy(
            update={
                "content": "".join(texts),
                "response_metadata": {
                    "model_provider": "openai",
                    **merged.response_metadata,
                    **info,
                },
            }
        )
        reply = message_chunk_to_message(merged)
        assert isinstance(reply, AIMessage)
        return reply

    async def aclose(self) -> None:
        """Close this model's HTTP client for the running event loop (app shutdown)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    # -- request ------------------------------------------------------------------------
    def _fast_plan(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> _Plan | None:
        """Build the request, or None when the stock path must serve this call."""
        if (
            self.include_response_headers
            or self.http_async_client is not None
            or self.openai_proxy
            or self._uses_gateway
            or self._use_responses_api({**kwargs, **self.model_kwargs})
        ):
            return None
        headers = self._headers()
        if headers is None:
            return None
        kw = dict(kwargs)
        kw["stream"] = True
        stream_usage = self._should_stream_usage(kw.pop("stream_usage", None), **kw)
        if stream_usage:
            kw["stream_options"] = {"include_usage": stream_usage}
        payload = self._get_request_payload(messages, stop=stop, **kw)
        if "messages" not in payload or "response_format" in payload:
            return None
        extra_headers = payload.pop("extra_headers", None)
        extra_query = payload.pop("extra_query", None)
        extra_body = payload.pop("extra_body", None)
        timeout = payload.pop("timeout", None)
        if extra_body:
            payload.update(extra_body)
        try:
            body = orjson.dumps(payload)
        except TypeError:
            return None
        client = self.root_async_client
        url = str(client.base_url).rstrip("/") + "/chat/completions"
        return _Plan(
            url=url,
            headers={**headers, **extra_headers} if extra_headers else headers,
            params={**(self.default_query or {}), **(extra_query or {})} or None,
            body=body,
            timeout=_to_client_timeout(client.timeout if timeout is None else timeout),
            max_retries=int(client.max_retries),
            proxy=env_proxy(url),
        )

    def _get_request_payload(
        self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """The stock payload, with plain text messages converted here.

        Why: ``_convert_message_to_dict`` walks an assistant message's string content one
        character at a time looking for audio blocks, so a turn's history (ten earlier
        answers, sent twice per turn) cost ~0.2 ms per request. A system, user or
        assistant message with string content and nothing else (no name, tool calls or
        extra kwargs) becomes ``{"content", "role"}`` directly, any other message goes
        through the stock conversion, and a Responses API request is all stock code.
        """
        messages = self._convert_input(input_).to_messages()
        payload = super()._get_request_payload([], stop=stop, **kwargs)
        if payload.get("messages") != []:  # the Responses API: stock code does it all
            return super()._get_request_payload(messages, stop=stop, **kwargs)
        converted = [_plain_message_dict(m) or _stock_message_dict(m) for m in messages]
        if self.model_name and re.match(r"^o\d", self.model_name):  # as ChatOpenAI does
            for d in converted:
                if d["role"] == "system":
                    d["role"] = "developer"
        payload["messages"] = converted
        return payload

    def _headers(self) -> dict[str, str] | None:
        """Auth and default headers, built once; None for callable (refreshing) keys."""
        if self._static_headers is not None:
            return self._static_headers
        key = self.openai_api_key
        if isinstance(key, SecretStr):
            api_key = key.get_secret_value()
        elif key is None:
            api_key = str(self.root_async_client.api_key or "")
        else:
            return None
        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream, application/json",
            "User-Agent": f"AsyncOpenAI/Python {openai.__version__}",
        }
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        if self.openai_organization:
            headers["OpenAI-Organization"] = self.openai_organization
        project = getattr(self.root_async_client, "project", None)
        if isinstance(project, str) and project:
            headers["OpenAI-Project"] = project
        headers.update(self.default_headers or {})
        self._static_headers = headers
        return headers

    def _client(self) -> aiohttp.ClientSession:
        """One pooled session per event loop: its connections are bound to a loop."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None or client.closed:
            connector = _ContextFreeConnector(
                limit=_MAX_CONNECTIONS, limit_per_host=0, keepalive_timeout=_KEEPALIVE_S
            )
            client = aiohttp.ClientSession(connector=connector)
            self._clients[loop] = client
        return client

    # -- the hot path ---------------------------------------------------------------------
    async def _fast_objects(self, plan: _Plan) -> AsyncIterator[dict[str, Any]]:
        """The stream's ``chat.completion.chunk`` objects as dicts, with the SDK's retry
        policy before the first one and the chunk-gap timeout after."""
        client = self._client()
        gap_limit = self.stream_chunk_timeout or 0.0
        monotonic = time.monotonic
        loads = orjson.loads
        attempt = 0
        yielded = 0
        while True:
            response: aiohttp.ClientResponse | None = None
            try:
                try:
                    response = await client.post(
                        plan.url,
                        data=plan.body,
                        headers=plan.headers,
                        params=plan.params,
                        timeout=plan.timeout,
                        allow_redirects=False,
                        proxy=plan.proxy,
                        proxy_auth=plan.proxy_auth,
                    )
                except TimeoutError as e:
                    raise openai.APITimeoutError(request=_sdk(plan.request())) from e
                except aiohttp.ClientError as e:
                    raise openai.APIConnectionError(request=_sdk(plan.request())) from e
                if response.status >= 300:
                    try:
                        content = await response.read()
                    except (TimeoutError, aiohttp.ClientError):
                        content = b""
                    raise _status_error(
                        httpx.Response(
                            response.status,
                            headers=list(response.headers.items()),
                            content=content,
                            request=plan.request(),
                        )
                    )

                done = finished = False
                buf = b""
                data: list[bytes] = []
                last = monotonic()
                try:
                    async for raw in response.content.iter_any():
                        if gap_limit and monotonic() - last > gap_limit:
                            raise StreamChunkTimeoutError(
                                gap_limit, model_name=self.model_name, chunks_received=yielded
                            )
                        if done:
                            continue  # drain so the connection is reused
                        lines = (buf + raw if buf else raw).split(b"\n")
                        buf = lines.pop()
                        for line in lines:
                            if line[-1:] == b"\r":
                                line = line[:-1]
                            if line:
                                if line[:5] == b"data:":
                                    data.append(line[6:] if line[5:6] == b" " else line[5:])
                                continue  # comments, event:, id:, retry: are ignored
                            if not data:
                                continue
                            payload = data[0] if len(data) == 1 else b"\n".join(data)
                            data = []
                            if payload[:6] == b"[DONE]":
                                done = True
                                break
                            try:
                                obj = loads(payload)
                            except orjson.JSONDecodeError:
                                raise _malformed(plan.request(), payload) from None
                            if not isinstance(obj, dict):
                                raise _malformed(plan.request(), payload)
                            if obj.get("error"):
                                raise _stream_error(plan.request(), obj["error"])
                            choices = obj.get("choices")
                            if choices and choices[0].get("finish_reason"):
                                finished = True
                            yielded += 1
                            yield obj
                            last = monotonic()
                        yield _READ_END
                except TimeoutError as e:
                    raise openai.APITimeoutError(request=_sdk(plan.request())) from e
                except aiohttp.ClientError as e:
                    raise openai.APIConnectionError(
                        message=f"Connection to the LLM lost mid-stream: {e!r}",
                        request=_sdk(plan.request()),
                    ) from e
                if not done and not finished:
                    raise openai.APIConnectionError(
                        message="The LLM stream ended before it was complete.",
                        request=_sdk(plan.request()),
                    )
                return
            except (openai.APIConnectionError, openai.APIStatusError) as e:
                if yielded or attempt >= plan.max_retries or not _should_retry(e):
                    raise
                delay = _retry_delay(e, attempt)
            finally:
                if response is not None:
                    response.release()
            attempt += 1
            await asyncio.sleep(delay)

    def _calls_chunk(self, calls: list[Any]) -> AIMessageChunk:
        """The chunk the tool-call deltas merged in ``calls`` add up to (see ``_to_chunk``)."""
        return AIMessageChunk(
            content="", response_metadata=self._chunk_metadata(), tool_call_chunks=calls
        )

    def _chunk_metadata(self) -> dict[str, Any]:
        """``response_metadata`` of a chunk with a delta, as ChatOpenAI sets it."""
        metadata: dict[str, Any] = {"model_provider": "openai"}
        if self.output_version == "v1":
            metadata["output_version"] = "v1"
        return metadata

    def _to_chunk(self, obj: dict[str, Any]) -> ChatGenerationChunk | None:
        """One ``chat.completion.chunk`` dict → a LangChain chunk, as ChatOpenAI builds it
        (``_convert_chunk_to_generation_chunk``), minus the SDK round trip."""
        usage = obj.get("usage")
        usage_metadata = _create_usage_metadata(usage, obj.get("service_tier")) if usage else None
        choices = obj.get("choices")
        if not choices:
            msg = AIMessageChunk(content="", usage_metadata=usage_metadata)
            if self.output_version == "v1":
                msg.response_metadata["output_version"] = "v1"
            return ChatGenerationChunk(message=msg, generation_info={})
        choice = choices[0]
        delta = choice.get("delta")
        if delta is None:
            return None
        raw_calls = delta.get("tool_calls")
        tool_call_chunks = _tool_call_chunks(raw_calls) if raw_calls else []
        additional_kwargs: dict[str, Any] = {}
        if function_call := delta.get("function_call"):
            function_call = dict(function_call)
            if function_call.get("name", "") is None:
                function_call["name"] = ""
            additional_kwargs["function_call"] = function_call
        message = AIMessageChunk(
            content=delta.get("content") or "",
            additional_kwargs=additional_kwargs,
            response_metadata=self._chunk_metadata(),
            tool_call_chunks=tool_call_chunks,
            usage_metadata=usage_metadata,
            id=delta.get("id"),
        )
        generation_info: dict[str, Any] = {}
        if finish_reason := choice.get("finish_reason"):
            generation_info["finish_reason"] = finish_reason
            if model_name := obj.get("model"):
                generation_info["model_name"] = model_name
            if system_fingerprint := obj.get("system_fingerprint"):
                generation_info["system_fingerprint"] = system_fingerprint
            if service_tier := obj.get("service_tier"):
                generation_info["service_tier"] = service_tier
        if logprobs := choice.get("logprobs"):
            generation_info["logprobs"] = logprobs
        return ChatGenerationChunk(message=message, generation_info=generation_info or None)


class _Plan:
    """Everything one fast-path request needs, computed once before the retry loop."""

    __slots__ = (
        "body",
        "headers",
        "max_retries",
        "params",
        "proxy",
        "proxy_auth",
        "timeout",
        "url",
    )

    def __init__(
        self,
        *,
        url: str,
        headers: dict[str, str],
        params: dict[str, Any] | None,
        body: bytes,
        timeout: aiohttp.ClientTimeout,
        max_retries: int,
        proxy: tuple[yarl.URL, aiohttp.BasicAuth | None] | None = None,
    ) -> None:
        self.url = url
        self.proxy: yarl.URL | None = proxy[0] if proxy else None
        self.proxy_auth: aiohttp.BasicAuth | None = proxy[1] if proxy else None
        self.headers = headers
        self.params = params
        self.body = body
        self.timeout = timeout
        self.max_retries = max_retries

    def request(self) -> httpx.Request:
        """The request as the SDK's errors carry it: built only when one is raised."""
        return httpx.Request("POST", self.url, params=self.params)


_PLAIN_ROLES: dict[type[BaseMessage], str] = {
    HumanMessage: "user",
    AIMessage: "assistant",
    SystemMessage: "system",
}


def _plain_message_dict(m: BaseMessage) -> dict[str, Any] | None:
    """``_convert_message_to_dict(m)`` for a message that is only role and text, else
    None (tool calls, names, content blocks, extra kwargs: the stock conversion)."""
    role = _PLAIN_ROLES.get(type(m))
    if role is None or type(m.content) is not str or m.name is not None or m.additional_kwargs:
        return None
    if isinstance(m, AIMessage) and (m.tool_calls or m.invalid_tool_calls):
        return None
    return {"content": m.content, "role": role}


def _stock_message_dict(m: BaseMessage) -> dict[str, Any]:
    """What ``BaseChatOpenAI._get_request_payload`` makes of one message."""
    if isinstance(m, AIMessage):
        m = _convert_from_v1_to_chat_completions(m)
    return _convert_message_to_dict(m)


def _tool_call_chunks(raw_calls: list[dict[str, Any]]) -> list[ToolCallChunk]:
    """A delta's ``tool_calls`` as LangChain's chunks (``_convert_delta_to_message_chunk``)."""
    chunks: list[ToolCallChunk] = []
    for i, rtc in enumerate(raw_calls):
        fn = rtc.get("function")
        if fn is None:
            continue
        chunks.append(
            ToolCallChunk(
                name=fn.get("name"),
                args=fn.get("arguments"),
                id=rtc.get("id"),
                index=rtc.get("index", i),
                type="tool_call_chunk",
            )
        )
    return chunks


@functools.lru_cache(maxsize=32)
def env_proxy(url: str) -> tuple[yarl.URL, aiohttp.BasicAuth | None] | None:
    """The proxy the environment (``HTTP(S)_PROXY``, ``NO_PROXY``, proxy credentials in
    ``~/.netrc``) sets for ``url``, or None; read once per URL for the process."""
    try:
        return get_env_proxy_for_url(yarl.URL(url))
    except LookupError:
        return None


def _sdk(obj: httpx.Request | httpx.Response) -> Any:
    """openai>=3 types its errors against httpx2; the httpx objects quack the same."""
    return obj


def _to_client_timeout(t: Any) -> aiohttp.ClientTimeout:
    """The SDK's timeout (seconds, ``(connect, read)`` or an ``httpx.Timeout``) as
    aiohttp's: connecting and each read bounded as httpx bounds them, no total (a
    stream may run long; ``stream_chunk_timeout`` bounds its gaps)."""
    if t is None or isinstance(t, int | float):
        return aiohttp.ClientTimeout(total=None, sock_connect=t, sock_read=t)
    if isinstance(t, tuple):
        return aiohttp.ClientTimeout(total=None, sock_connect=t[0], sock_read=t[1])
    return aiohttp.ClientTimeout(
        total=None,
        connect=getattr(t, "pool", None),
        sock_connect=getattr(t, "connect", None),
        sock_read=getattr(t, "read", None),
    )


def _status_error(response: httpx.Response) -> openai.APIStatusError:
    """The exception the SDK raises for this status, with the same message and body."""
    status = response.status_code
    err_msg = f"Error code: {status}"
    text = response.text.strip()
    body: object = text
    try:
        body = orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    else:
        err = body.get("error", body) if isinstance(body, dict) else None
        message = err.get("message") if isinstance(err, dict) else None
        if isinstance(message, str) and message:
            err_msg += f" - {message}"
    data = body.get("error", body) if isinstance(body, dict) else body
    cls: type[openai.APIStatusError] = {
        400: openai.BadRequestError,
        401: openai.AuthenticationError,
        403: openai.PermissionDeniedError,
        404: openai.NotFoundError,
        409: openai.ConflictError,
        422: openai.UnprocessableEntityError,
        429: openai.RateLimitError,
    }.get(status, openai.InternalServerError if status >= 500 else openai.APIStatusError)
    return cls(err_msg, response=_sdk(response), body=data)


def _stream_error(request: httpx.Request, error: object) -> openai.APIError:
    """An ``{"error": ...}`` event mid-stream, raised as the SDK does."""
    message = error.get("message") if isinstance(error, dict) else None
    if not isinstance(message, str) or not message:
        message = "An error occurred during streaming"
    return openai.APIError(message, _sdk(request), body=error)


def _malformed(request: httpx.Request, payload: bytes) -> LLMStreamError:
    snippet = payload[:200].decode("utf-8", "replace")
    return LLMStreamError(
        f"The LLM sent an SSE data line that is not a JSON object: {snippet!r}",
        _sdk(request),
        body=None,
    )


def _should_retry(e: openai.APIConnectionError | openai.APIStatusError) -> bool:
    if isinstance(e, openai.APIConnectionError):
        return True
    flag = e.response.headers.get("x-should-retry")
    if flag == "true":
        return True
    if flag == "false":
        return False
    return e.status_code in _RETRY_STATUS or e.status_code >= 500


def _retry_delay(e: openai.APIError, attempt: int) -> float:
    """Retry-After(-ms) when the server gives one (capped), else the SDK's backoff."""
    if isinstance(e, openai.APIStatusError):
        after = _retry_after(e.response.headers)
        if after is not None and after > 0:
            return min(after, _RETRY_AFTER_CAP)
    delay = min(_INITIAL_RETRY_DELAY * 2.0**attempt, _MAX_RETRY_DELAY)
    return delay * (1 - 0.25 * random.random())  # jitter


def _retry_after(headers: Mapping[str, str]) -> float | None:
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            delay = float(value)
        except ValueError:
            continue
        return delay / divisor if math.isfinite(delay) else _RETRY_AFTER_CAP
    value = headers.get("retry-after")
    if value:
        try:
            parsed = email.utils.parsedate_tz(value)
            if parsed is not None:
                return float(email.utils.mktime_tz(parsed) - time.time())
        except (TypeError, ValueError, OverflowError):
            return None
    return None
