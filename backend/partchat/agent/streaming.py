"""The token path from the model to the socket, without LangGraph's ``messages`` mode.

The turn engine puts a text sink in the run config (``with_text_sink``); the ``llm``
node streams the reply into it (``stream_reply``) and returns the whole message as its
update, and the engine runs the graph with ``stream_mode=["updates"]`` only. Compared
with ``stream_mode="messages"`` this skips, per token, the callback chain, the chunk
merge and LangGraph's stream queue: the profile's biggest cost after the SDK's pydantic
objects. Every served turn (WebSocket, ``POST /api/chat``, ``partchat chat``) goes
through the engine and so the sink; only a graph run directly, without a sink (unit
tests, ``bench/nlu.py``), has the node call ``ainvoke``. A model with its own text path
(``FastChatOpenAI.astream_text``) streams through it; any other (stock ``ChatOpenAI`` when
the ``openai`` fast path is off, the offline model) through the public ``astream``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, message_chunk_to_message
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig

TextSink = Callable[[str], object]
_SINK_KEY = "partchat_text_sink"


class _TextStreamer(Protocol):
    """A model with its own text path (``FastChatOpenAI.astream_text``); None from it
    means the call needs the stock path."""

    def astream_text(
        self, messages: list[BaseMessage], on_text: TextSink, **kwargs: Any
    ) -> Awaitable[AIMessage | None]: ...


def with_text_sink(config: RunnableConfig | None, sink: TextSink) -> RunnableConfig:
    configurable = {**(config or {}).get("configurable", {}), _SINK_KEY: sink}
    return {**(config or {}), "configurable": configurable}


def text_sink(config: RunnableConfig | None) -> TextSink | None:
    sink = (config or {}).get("configurable", {}).get(_SINK_KEY)
    return cast(TextSink, sink) if callable(sink) else None


async def stream_reply(
    model: Runnable[Any, Any] | BaseChatModel,
    messages: Sequence[BaseMessage],
    config: RunnableConfig,
    sink: TextSink,
) -> AIMessage:
    """Run ``model`` on ``messages``, handing each piece of answer text to ``sink``."""
    chat, kwargs = _unbind(model)
    if hasattr(chat, "astream_text"):
        reply = await cast(_TextStreamer, chat).astream_text(list(messages), sink, **kwargs)
        if reply is not None:
            return reply
    chunks: list[AIMessageChunk] = []
    async for chunk in model.astream(list(messages), config):
        if isinstance(chunk, AIMessageChunk):
            if chunk.text:
                sink(chunk.text)
            chunks.append(chunk)
    if not chunks:
        return AIMessage(content="")
    merged = chunks[0] + chunks[1:] if len(chunks) > 1 else chunks[0]
    message = message_chunk_to_message(merged)
    assert isinstance(message, AIMessage)
    return message


def _unbind(model: Runnable[Any, Any] | BaseChatModel) -> tuple[object, dict[str, Any]]:
    """The chat model under ``bind_tools`` and the kwargs it binds."""
    kwargs: dict[str, Any] = {}
    while isinstance(model, RunnableBinding):
        kwargs = {**model.kwargs, **kwargs}
        model = model.bound
    return model, kwargs
