"""``FastChatOpenAI``: ``ChatOpenAI`` with a lean streaming path.

With ``convert`` (the message and chunk conversions), the only module of the package
that touches LangChain's internals: it overrides ``ChatOpenAI``'s private
``_astream``/``_agenerate``/``_get_request_payload``, reads its private helpers
(``_use_responses_api``, ``_should_stream_usage``, ``_streaming_disabled``,
``_convert_input``) and raises through langchain-openai's private error mappings and
``StreamChunkTimeoutError``, so that everything LangChain does around a request
(payload, ``bind_tools``, callbacks, usage metadata, error mapping) stays LangChain's
while the wire is the package's own (``transport``, ``sse``).

Why: a streamed turn spent about a third of its CPU in the openai SDK building a pydantic
object per SSE chunk that LangChain turned straight back into a dict; the wire through
aiohttp costs 0.29 ms of CPU per 60-token response against httpx's 2.15 ms
(docs/performance.md#d-aiohttp); plain text messages converted by ``convert``, tool-call
deltas merged as dicts: request build 0.07 vs 0.25 ms, 0.86 vs 2.20 ms per 24-delta tool
call (docs/performance.md#d-llm-hot-spots). With every fast path off a saturating turn
costs 4× the CPU, nearly all of it this one (docs/performance.md#d-fast-paths). ``astream_text`` is the served token path
(docs/performance.md#d-token-path). Tested against the minor versions in
``partchat.fast_paths``; outside them (or with ``PARTCHAT_FAST_PATHS`` leaving ``openai``
out) the server builds stock ``ChatOpenAI`` instead.

Behaviour matches the stock path: the same chunks (text, tool-call chunks, usage,
``finish_reason``/``model_name`` metadata), the same exception classes (the SDK's
``openai.*Error`` through LangChain's mapping), the SDK's retry policy for failures
before the first chunk. Anything unusual (Responses API, ``response_format``, custom
http clients, proxies, callable API keys, response headers, the LangSmith gateway)
and ``fast_path=False`` go through the stock code unchanged.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import openai
import orjson
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.language_models.chat_models import agenerate_from_stream
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, message_chunk_to_message
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_openai import ChatOpenAI
from langchain_openai.chat_models._client_utils import StreamChunkTimeoutError
from langchain_openai.chat_models.base import _handle_openai_api_error, _handle_openai_bad_request
from pydantic import PrivateAttr, SecretStr

from partchat.agent.llm.openai_fast.convert import (
    calls_chunk,
    merge_tool_deltas,
    message_dict,
    to_chunk,
)
from partchat.agent.llm.openai_fast.transport import READ_END, ClientPool, Plan, stream_objects

__all__ = ["FastChatOpenAI"]

_TEXT_ONLY_KEYS = frozenset({"content", "role", "refusal"})
_TOOL_DELTA_KEYS = frozenset({"content", "role", "tool_calls"})


class FastChatOpenAI(ChatOpenAI):
    """``ChatOpenAI`` whose async streaming skips the openai SDK's per-chunk objects."""

    fast_path: bool = True
    """Use the lean streaming path; ``False`` runs stock ``ChatOpenAI`` code."""

    _pool: ClientPool = PrivateAttr(default_factory=ClientPool)
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
        v1 = self.output_version == "v1"
        try:
            async for obj in self._fast_objects(plan):
                if obj is READ_END:
                    continue
                maybe = to_chunk(obj, v1)
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
        ``to_chunk`` and are merged as ``agenerate_from_stream`` would, so the returned
        message equals the stock one. No LangChain callbacks run for this call: tracing
        sees the graph node, not the model run. ``kwargs`` are the model kwargs
        (``bind_tools`` puts ``tools`` here).
        """
        if not self.fast_path:
            return None
        plan = self._fast_plan(messages, None, kwargs)
        if plan is None:
            return None
        v1 = self.output_version == "v1"
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
                if obj is READ_END:
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
                            calls = merge_tool_deltas(calls, raw)
                            continue
                if calls is not None:
                    others.append(calls_chunk(calls, v1))
                    calls = None
                chunk = to_chunk(obj, v1)
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
            others.append(calls_chunk(calls, v1))
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
        await self._pool.aclose()

    # -- request ------------------------------------------------------------------------
    def _fast_plan(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> Plan | None:
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
        gap_limit = self.stream_chunk_timeout or 0.0
        model_name = self.model_name

        def gap_error(received: int) -> BaseException:
            return StreamChunkTimeoutError(
                gap_limit, model_name=model_name, chunks_received=received
            )

        return Plan(
            url=url,
            headers={**headers, **extra_headers} if extra_headers else headers,
            params={**(self.default_query or {}), **(extra_query or {})} or None,
            body=body,
            timeout=client.timeout if timeout is None else timeout,
            max_retries=int(client.max_retries),
            gap_limit=gap_limit,
            gap_error=gap_error,
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
        converted = [message_dict(m) for m in messages]
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

    def _fast_objects(self, plan: Plan) -> AsyncIterator[dict[str, Any]]:
        """The response's chunk objects and ``READ_END`` marks (``transport``)."""
        return stream_objects(self._pool.get(), plan)
