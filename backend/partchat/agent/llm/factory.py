"""The chat model factory and the one place that knows which LLM errors mean "down".

``make_chat_model`` turns ``Settings`` into a LangChain chat model: the OpenAI-compatible
streaming client (``FastChatOpenAI``, or stock ``ChatOpenAI`` when the ``openai`` fast
path is off: ``partchat.fast_paths``) or the built-in offline model. The graph only sees
a ``BaseChatModel``. Nothing here touches the network until the model is first called.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import aiohttp
import httpx
import openai
from langchain_core.language_models import BaseChatModel

from partchat import fast_paths
from partchat.settings import Settings

log = logging.getLogger(__name__)

__all__ = ["DEFAULT_OPENAI_BASE_URL", "classify_llm_error", "make_chat_model"]

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
# Local OpenAI-compatible servers (vLLM, Ollama, llama.cpp) accept any key, but the SDK
# refuses to start without one.
_PLACEHOLDER_KEY = "sk-no-key-required"


def make_chat_model(
    settings: Settings, *, offline_factory: Callable[[], BaseChatModel] | None = None
) -> BaseChatModel:
    """The chat model ``settings`` selects; no network call happens here.

    ``openai``: ``FastChatOpenAI`` streaming from ``settings.openai_base_url`` (OpenAI
    itself when unset) with the configured model, timeout and retries; stock
    ``ChatOpenAI`` with the same options when the ``openai`` fast path does not run
    (``fast_paths.active``) or its module no longer imports. The base URL and key are
    passed explicitly so the SDK never falls back to reading the environment (Settings
    is the only reader). ``offline``: ``offline_factory()``, by default the built-in
    ``OfflineChatModel``.
    """
    if settings.llm_kind == "offline":
        if offline_factory is not None:
            return offline_factory()
        from partchat.agent.offline import OfflineChatModel  # type: ignore[import-not-found,unused-ignore]

        model: BaseChatModel = OfflineChatModel(
            token_delay_s=settings.offline_token_delay_ms / 1000.0
        )
        return model

    options: dict[str, Any] = {
        "model": settings.model,
        "base_url": settings.openai_base_url or DEFAULT_OPENAI_BASE_URL,
        "api_key": settings.openai_api_key or _PLACEHOLDER_KEY,
        "timeout": settings.llm_timeout_s,
        "max_retries": settings.llm_max_retries,
        "streaming": True,
        "stream_usage": True,
    }
    if "openai" in fast_paths.active(settings.fast_paths):
        try:
            from partchat.agent.llm.openai_fast import FastChatOpenAI
        except ImportError as exc:  # a private name it imports is gone
            log.warning("fast path openai off (stock ChatOpenAI answers): %s", exc)
        else:
            return FastChatOpenAI(**options)
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(**options)


def classify_llm_error(exc: BaseException) -> str | None:
    """``"llm_unavailable"`` when ``exc`` means the LLM is down, overloaded, too slow or
    broke its stream; ``None`` for anything else (a bug, a 4xx we caused), which the
    turn engine reports as ``internal``.

    Covers both the stock and the fast OpenAI paths (they raise the same openai classes)
    and raw transport errors from httpx, httpx2 or aiohttp that escape unwrapped.
    """
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        return "llm_unavailable" if status >= 500 or status in (408, 429) else None
    if isinstance(exc, openai.APIError):
        # Connection errors, timeouts, errors reported inside the stream, malformed SSE.
        return "llm_unavailable"
    if isinstance(exc, httpx.TransportError | aiohttp.ClientError):
        return "llm_unavailable"
    for cls in type(exc).__mro__:
        # httpx2 (under openai>=3) transport errors, and langchain_openai's
        # StreamChunkTimeoutError (no chunk within stream_chunk_timeout), matched by name
        # so this module imports neither.
        if (cls.__name__ == "TransportError" and cls.__module__.startswith("httpx2")) or (
            cls.__name__ == "StreamChunkTimeoutError"
            and cls.__module__.startswith("langchain_openai")
        ):
            return "llm_unavailable"
    return None
