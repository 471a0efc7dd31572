"""The wire's dicts to LangChain's messages and back, exactly as ``ChatOpenAI`` converts
them, without the openai SDK's objects in between.

Pure functions. With ``model``, the only modules touching LangChain's internals: the
helpers below reproduce ``langchain_openai``'s private ``_convert_chunk_to_generation_chunk``
and ``_convert_delta_to_message_chunk`` and call its ``_create_usage_metadata``,
``_convert_message_to_dict`` and ``_convert_from_v1_to_chat_completions``, and
langchain-core's ``merge_lists``. Why: building the SDK's pydantic chunk only for LangChain
to dump it back to a dict was about a third of a streamed turn's CPU; merging tool-call
deltas as dicts costs 0.86 vs 2.20 ms per 24-delta call, converting plain text messages
here 0.07 vs 0.25 ms per request (docs/performance.md#d-llm-hot-spots). The parity tests
(``tests/unit/agent/test_fast_openai.py``) compare every result with stock ``ChatOpenAI``.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
)
from langchain_core.messages.tool import ToolCallChunk
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.utils._merge import merge_lists
from langchain_openai.chat_models._compat import _convert_from_v1_to_chat_completions
from langchain_openai.chat_models.base import _convert_message_to_dict, _create_usage_metadata

__all__ = [
    "calls_chunk",
    "merge_tool_deltas",
    "message_dict",
    "to_chunk",
]


def to_chunk(obj: dict[str, Any], v1: bool) -> ChatGenerationChunk | None:
    """One ``chat.completion.chunk`` dict → a LangChain chunk, as ChatOpenAI builds it
    (``_convert_chunk_to_generation_chunk``), minus the SDK round trip. ``v1``: the
    model's ``output_version`` is ``"v1"``."""
    usage = obj.get("usage")
    usage_metadata = _create_usage_metadata(usage, obj.get("service_tier")) if usage else None
    choices = obj.get("choices")
    if not choices:
        msg = AIMessageChunk(content="", usage_metadata=usage_metadata)
        if v1:
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
        response_metadata=_chunk_metadata(v1),
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


def merge_tool_deltas(calls: list[Any] | None, raw_calls: list[dict[str, Any]]) -> list[Any] | None:
    """``calls`` with one delta's ``tool_calls`` merged in, as ``AIMessageChunk`` addition
    merges them: plain dicts, no message object and no partial-JSON parse per delta."""
    return merge_lists(calls, _tool_call_chunks(raw_calls))


def calls_chunk(calls: list[Any], v1: bool) -> AIMessageChunk:
    """The chunk the tool-call deltas merged in ``calls`` add up to (see ``to_chunk``)."""
    return AIMessageChunk(content="", response_metadata=_chunk_metadata(v1), tool_call_chunks=calls)


_PLAIN_ROLES: dict[type[BaseMessage], str] = {
    HumanMessage: "user",
    AIMessage: "assistant",
    SystemMessage: "system",
}


def message_dict(m: BaseMessage) -> dict[str, Any]:
    """What ``BaseChatOpenAI._get_request_payload`` makes of one message. A message that
    is only role and text becomes ``{"content", "role"}`` here: the stock converter walks
    an assistant message's string content one character at a time looking for audio
    blocks. Anything else (tool calls, names, content blocks, extra kwargs) is converted
    by the stock code."""
    role = _PLAIN_ROLES.get(type(m))
    if (
        role is not None
        and type(m.content) is str
        and m.name is None
        and not m.additional_kwargs
        and not (isinstance(m, AIMessage) and (m.tool_calls or m.invalid_tool_calls))
    ):
        return {"content": m.content, "role": role}
    if isinstance(m, AIMessage):
        m = _convert_from_v1_to_chat_completions(m)
    return _convert_message_to_dict(m)


def _chunk_metadata(v1: bool) -> dict[str, Any]:
    """``response_metadata`` of a chunk with a delta, as ChatOpenAI sets it."""
    if v1:
        return {"model_provider": "openai", "output_version": "v1"}
    return {"model_provider": "openai"}


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
