"""The fast path's wire: one aiohttp session per event loop, the request with the SDK's
retry policy, and the response's bytes through the SSE parser.

The only module of the package that touches aiohttp, and the only one using its private
API: ``TCPConnector._create_connection``/``_release`` (overridden so pooled connections
keep no turn's context) and ``aiohttp.helpers.get_env_proxy_for_url`` (the environment's
proxy, resolved once per URL). Why aiohttp at all: reading a streamed response through
httpx (httpcore, h11, an anyio cancel scope and a timeout per read) cost 2.15 ms of CPU per
60-token response on the bench machine, aiohttp (C HTTP parser, plain asyncio) 0.29 ms
(docs/performance.md#d-aiohttp). Why the proxy once per URL: aiohttp's ``trust_env``
re-reads the environment and ``~/.netrc`` in a thread on every request, 6 % of a turn's
CPU (docs/performance.md#d-llm-hot-spots). Why the context-free pool: a pooled keep-alive
connection kept the last turn that used it alive (docs/performance.md#d-pool-context).
Tested against aiohttp's minor version in ``partchat.fast_paths``; outside it the server
uses stock ``ChatOpenAI`` instead.

aiohttp verifies TLS with the system's CA store and honours ``HTTP(S)_PROXY``/``NO_PROXY``
as httpx does.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import time
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import httpx
import openai
import yarl
from aiohttp.helpers import get_env_proxy_for_url

from partchat.agent.llm.openai_fast.errors import (
    malformed,
    retry_delay,
    sdk,
    should_retry,
    status_error,
    stream_error,
)
from partchat.agent.llm.openai_fast.sse import (
    IncompleteStream,
    MalformedEvent,
    SseParser,
    StreamErrorEvent,
)

__all__ = ["READ_END", "ClientPool", "Plan", "env_proxy", "stream_objects"]

_MAX_CONNECTIONS = 1000
_KEEPALIVE_S = 5.0
READ_END: dict[str, Any] = {}
"""Yielded by ``stream_objects`` after the objects of one socket read (never an object:
consumers compare it by identity and skip it)."""


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


class ClientPool:
    """One pooled ``aiohttp.ClientSession`` per event loop: connections are bound to one."""

    __slots__ = ("_clients",)

    def __init__(self) -> None:
        self._clients: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, aiohttp.ClientSession
        ] = weakref.WeakKeyDictionary()

    def get(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None or client.closed:
            connector = _ContextFreeConnector(
                limit=_MAX_CONNECTIONS, limit_per_host=0, keepalive_timeout=_KEEPALIVE_S
            )
            client = aiohttp.ClientSession(connector=connector)
            self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        """Close the running loop's session, if there is one."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()


class Plan:
    """Everything one request needs, computed once before the retry loop."""

    __slots__ = (
        "body",
        "gap_error",
        "gap_limit",
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
        timeout: Any,
        max_retries: int,
        gap_limit: float = 0.0,
        gap_error: Callable[[int], BaseException] | None = None,
    ) -> None:
        """``timeout`` is the SDK's (seconds, ``(connect, read)`` or ``httpx.Timeout``);
        ``gap_limit`` (0: none) bounds the wait between two reads after the first, and
        ``gap_error(objects_so_far)`` is what exceeding it raises."""
        self.url = url
        proxy = env_proxy(url)
        self.proxy: yarl.URL | None = proxy[0] if proxy else None
        self.proxy_auth: aiohttp.BasicAuth | None = proxy[1] if proxy else None
        self.headers = headers
        self.params = params
        self.body = body
        self.timeout = _to_client_timeout(timeout)
        self.max_retries = max_retries
        self.gap_limit = gap_limit
        self.gap_error = gap_error

    def request(self) -> httpx.Request:
        """The request as the SDK's errors carry it: built only when one is raised."""
        return httpx.Request("POST", self.url, params=self.params)


async def stream_objects(
    client: aiohttp.ClientSession, plan: Plan
) -> AsyncIterator[dict[str, Any]]:
    """The stream's ``chat.completion.chunk`` objects as dicts, ``READ_END`` after each
    socket read, with the SDK's retry policy before the first object and the gap limit
    after."""
    gap_limit = plan.gap_limit
    monotonic = time.monotonic
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
                raise openai.APITimeoutError(request=sdk(plan.request())) from e
            except aiohttp.ClientError as e:
                raise openai.APIConnectionError(request=sdk(plan.request())) from e
            if response.status >= 300:
                try:
                    content = await response.read()
                except (TimeoutError, aiohttp.ClientError):
                    content = b""
                raise status_error(
                    httpx.Response(
                        response.status,
                        headers=list(response.headers.items()),
                        content=content,
                        request=plan.request(),
                    )
                )

            parser = SseParser()
            last = monotonic()
            try:
                async for raw in response.content.iter_any():
                    if gap_limit and monotonic() - last > gap_limit:
                        assert plan.gap_error is not None
                        raise plan.gap_error(yielded)
                    if parser.done:
                        continue  # drain so the connection is reused
                    for obj in parser.feed(raw):
                        yielded += 1
                        yield obj
                        last = monotonic()
                    yield READ_END
                parser.close()
            except TimeoutError as e:
                raise openai.APITimeoutError(request=sdk(plan.request())) from e
            except aiohttp.ClientError as e:
                raise openai.APIConnectionError(
                    message=f"Connection to the LLM lost mid-stream: {e!r}",
                    request=sdk(plan.request()),
                ) from e
            except MalformedEvent as e:
                raise malformed(plan.request(), e) from None
            except StreamErrorEvent as e:
                raise stream_error(plan.request(), e) from None
            except IncompleteStream as e:
                raise openai.APIConnectionError(
                    message=str(e), request=sdk(plan.request())
                ) from None
            return
        except (openai.APIConnectionError, openai.APIStatusError) as e:
            if yielded or attempt >= plan.max_retries or not should_retry(e):
                raise
            delay = retry_delay(e, attempt)
        finally:
            if response is not None:
                response.release()
        attempt += 1
        await asyncio.sleep(delay)


@functools.lru_cache(maxsize=32)
def env_proxy(url: str) -> tuple[yarl.URL, aiohttp.BasicAuth | None] | None:
    """The proxy the environment (``HTTP(S)_PROXY``, ``NO_PROXY``, proxy credentials in
    ``~/.netrc``) sets for ``url``, or None; read once per URL for the process."""
    try:
        return get_env_proxy_for_url(yarl.URL(url))
    except LookupError:
        return None


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
