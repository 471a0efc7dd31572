"""``FastChatOpenAI``: ChatOpenAI's streaming without the openai SDK's per-chunk objects.

One concern per module, and each private API in one place:

- ``sse``: the SSE stream parser, bytes to chunk dicts (pure; property-tested).
- ``errors``: failures raised as the openai SDK raises them, its retry policy.
- ``transport``: the aiohttp session, request and retries: the only module using
  aiohttp's private API (docs/performance.md#d-aiohttp, #d-llm-hot-spots, #d-pool-context).
- ``convert``: chunk dicts to LangChain messages and messages to request dicts, as
  ``ChatOpenAI`` converts them (LangChain's private helpers).
- ``model``: the ``ChatOpenAI`` subclass (overrides LangChain's private methods).

The server uses it only while ``PARTCHAT_FAST_PATHS`` keeps ``openai`` on and the
installed langchain-core, langchain-openai and aiohttp are the tested minor versions
(``partchat.fast_paths``); otherwise stock ``ChatOpenAI`` (the public API) answers the
same. Imports: openai, httpx, aiohttp, orjson, LangChain; nothing of partchat's above it.
"""

from partchat.agent.llm.openai_fast.errors import LLMStreamError
from partchat.agent.llm.openai_fast.model import FastChatOpenAI

__all__ = ["FastChatOpenAI", "LLMStreamError"]
