"""A fake OpenAI-compatible chat completions server for tests and benchmarks.

It is a raw asyncio HTTP/1.1 server (keep-alive, Content-Length request bodies, chunked
SSE responses) rather than a framework app because in a benchmark it shares the CPU with
the server under test: every microsecond it spends is charged to the thing measured.

Scripted use (in-process)::

    async with FakeLLM(script=[Reply.call("search_parts", {"query": "ice maker"}),
                               Reply.say("The WPW10300022 fits your model.")]) as fake:
        model = ChatOpenAI(base_url=fake.base_url, api_key="x", streaming=True)
        ...
        assert fake.requests[0].body["tools"]

Replies are consumed one per request, in order; a callable ``script(request_json) ->
Reply`` decides dynamically. Without a script the server runs in ``bench`` mode: a
request with tools and no tool result yet gets one ``search_parts`` call, anything else
a text answer of ``tokens`` words.

CLI (benchmarks)::

    python tests/support/fake_llm.py --port 0 --mode bench --tokens 60 --first-token-ms 0 --token-ms 0

prints ``FAKE_LLM_READY http://127.0.0.1:<port>/v1`` once listening. ``GET /_fake/log``
returns, per request, the monotonic-clock nanoseconds at which it was received, its
first content chunk was written and its last byte was written (same clock as
``time.monotonic_ns()`` in any process on the machine), so a benchmark can compute the
time the server under test adds to time-to-first-token. ``POST /_fake/reset`` clears it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import re
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

__all__ = ["FakeLLM", "FakeLLMThread", "LogEntry", "RecordedRequest", "Reply", "ToolCall"]

JSON = dict[str, Any]
Script = Sequence["Reply"] | Callable[[JSON], "Reply"]

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    413: "Payload Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}
_ERROR_TYPES = {429: "rate_limit_error", 400: "invalid_request_error", 401: "authentication_error"}
_WORD_RE = re.compile(r"\s*\S+|\s+$")
_MAX_HEAD = 64 * 1024
_MAX_BODY = 32 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call in a reply. ``arguments`` given as a string is sent verbatim, so a
    test can send arguments that are not JSON."""

    name: str
    arguments: str | Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None

    def arguments_text(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return orjson.dumps(dict(self.arguments)).decode()


@dataclass(frozen=True, slots=True)
class Reply:
    """What the fake answers to one request: text, tool calls, both, or a fault.

    Faults: ``status`` != 200 (JSON error body; ``retry_after`` sets Retry-After),
    ``hang_s`` (accept the request, send nothing for that long), ``hang_after_chunks``,
    ``reset_after_chunks`` (abort the TCP connection after N SSE events),
    ``malformed_after_chunks`` (send a ``data:`` line that is not JSON after N events),
    ``end_after_chunks`` (end the HTTP body cleanly after N events, with no
    ``finish_reason`` and no ``[DONE]``: a truncated stream).
    ``first_token_ms``/``token_ms`` override the server's default delays.
    """

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    status: int = 200
    error_message: str | None = None
    retry_after: float | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    hang_s: float | None = None
    hang_after_chunks: int | None = None
    reset_after_chunks: int | None = None
    malformed_after_chunks: int | None = None
    end_after_chunks: int | None = None
    first_token_ms: float | None = None
    token_ms: float | None = None
    finish_reason: str | None = None
    usage: Mapping[str, int] | None = None
    arg_chunks: int = 3
    model: str | None = None
    raw_deltas: tuple[Mapping[str, Any], ...] | None = None

    # -- constructors ---------------------------------------------------------------
    @classmethod
    def say(cls, text: str, **kw: Any) -> Reply:
        return cls(text=text, **kw)

    @classmethod
    def call(cls, name: str, arguments: str | Mapping[str, Any] | None = None, **kw: Any) -> Reply:
        return cls(tool_calls=(ToolCall(name, {} if arguments is None else arguments),), **kw)

    @classmethod
    def calls(cls, *calls: ToolCall | tuple[str, str | Mapping[str, Any]], **kw: Any) -> Reply:
        tcs = tuple(c if isinstance(c, ToolCall) else ToolCall(c[0], c[1]) for c in calls)
        return cls(tool_calls=tcs, **kw)

    @classmethod
    def of_deltas(cls, *deltas: Mapping[str, Any], **kw: Any) -> Reply:
        """Exactly these ``delta`` objects, one SSE event each, between the role chunk
        and the finish chunk (``finish_reason`` defaults to ``stop``)."""
        return cls(raw_deltas=deltas, **kw)

    @classmethod
    def error(
        cls, status: int, message: str | None = None, retry_after: float | None = None
    ) -> Reply:
        return cls(status=status, error_message=message, retry_after=retry_after)

    @classmethod
    def hang(cls, seconds: float = 3600.0) -> Reply:
        return cls(hang_s=seconds)

    @classmethod
    def reset(cls, after_chunks: int = 2, text: str = "this answer is cut off early") -> Reply:
        return cls(text=text, reset_after_chunks=after_chunks)

    @classmethod
    def malformed(cls, after_chunks: int = 1, text: str = "this answer breaks") -> Reply:
        return cls(text=text, malformed_after_chunks=after_chunks)


@dataclass(slots=True)
class RecordedRequest:
    request_id: int
    method: str
    path: str
    headers: dict[str, str]
    body: JSON | None


@dataclass(slots=True)
class LogEntry:
    """Monotonic-clock nanoseconds of one chat request's milestones (0: not reached).

    ``tokens``: ``[characters of content so far, ns]`` as each
    content token is written, so a client can tell its server's added gaps from the fake's
    own timer jitter."""

    request_id: int
    received_ns: int
    first_token_ns: int = 0
    done_ns: int = 0
    tokens: list[tuple[int, int]] = field(default_factory=list)

    def as_json(self) -> JSON:
        return {
            "request_id": self.request_id,
            "received_ns": self.received_ns,
            "first_token_ns": self.first_token_ns,
            "done_ns": self.done_ns,
            "tokens": self.tokens,
        }


def split_words(text: str) -> list[str]:
    """Word-sized tokens, leading whitespace attached as OpenAI tokens have it."""
    return _WORD_RE.findall(text)


def _split_n(s: str, n: int) -> list[str]:
    if not s:
        return []
    n = max(1, min(n, len(s)))
    step, extra = divmod(len(s), n)
    out, pos = [], 0
    for i in range(n):
        size = step + (1 if i < extra else 0)
        out.append(s[pos : pos + size])
        pos += size
    return out


_BENCH_WORDS = tuple(
    re.findall(
        r"\S+",
        "The ice maker usually stops when the water inlet valve fails or the fill tube freezes "
        "so check the valve first and then the tube before ordering a new assembly for your "
        "refrigerator model",
    )
)


def _token_ends(text: str) -> list[int]:
    """The content length each streamed token of ``text`` completes."""
    return list(itertools.accumulate(map(len, split_words(text))))


def _bench_text(tokens: int) -> str:
    words = _BENCH_WORDS
    return " ".join(words[i % len(words)] for i in range(tokens)) + "."


def _last_user_text(body: JSON) -> str:
    for m in reversed(body.get("messages") or []):
        if isinstance(m, dict) and m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, str):
                return c
            if isinstance(c, list):
                return " ".join(p.get("text", "") for p in c if isinstance(p, dict))
    return ""


def _prompt_tokens(body: JSON) -> int:
    n = 0
    for m in body.get("messages") or []:
        c = m.get("content") if isinstance(m, dict) else None
        if isinstance(c, str):
            n += len(c) // 4 + 4
    return n


class _Chunks:
    """Pre-encoded pieces of one stream's ``chat.completion.chunk`` events."""

    __slots__ = ("head", "key", "tail")

    def __init__(self, cid: str, created: int, model: str, include_usage: bool) -> None:
        self.key = (cid, created, model, include_usage)
        self.head = (
            b'data: {"id":"'
            + cid.encode()
            + b'","object":"chat.completion.chunk","created":'
            + str(created).encode()
            + b',"model":'
            + orjson.dumps(model)
            + b',"system_fingerprint":"fp_fake","choices":[{"index":0,"delta":'
        )
        self.tail = (
            b',"logprobs":null,"finish_reason":null}]'
            + (b',"usage":null' if include_usage else b"")
            + b"}\n\n"
        )

    def delta(self, delta_json: bytes) -> bytes:
        return self.head + delta_json + self.tail

    def content(self, token: str) -> bytes:
        return self.head + b'{"content":' + orjson.dumps(token) + b"}" + self.tail


def _frame(event: bytes) -> bytes:
    """One HTTP/1.1 chunk holding one SSE event."""
    return b"%x\r\n%b\r\n" % (len(event), event)


_DONE = _frame(b"data: [DONE]\n\n")
_CHUNKED_END = b"0\r\n\r\n"
_MALFORMED = _frame(b'data: {"id": "chatcmpl-broken", "choices": [{"delta": {"content": \n\n')


class FakeLLM:
    """The fake server. ``async with FakeLLM(...) as fake`` starts it on a free port."""

    def __init__(
        self,
        script: Script | None = None,
        *,
        mode: str = "bench",
        tokens: int = 60,
        first_token_ms: float = 0.0,
        token_ms: float = 0.0,
        model: str = "gpt-4o-mini",
        host: str = "127.0.0.1",
        port: int = 0,
        default: Reply | None = None,
        max_records: int | None = None,
    ) -> None:
        if mode not in ("bench", "script"):
            raise ValueError(f"mode must be 'bench' or 'script', not {mode!r}")
        self._callable: Callable[[JSON], Reply] | None = None
        self._queue: deque[Reply] = deque()
        if callable(script):
            self._callable = script
        elif script is not None:
            self._queue.extend(script)
            mode = "script" if default is None else mode
        self.mode = mode
        self.tokens = tokens
        self.first_token_ms = first_token_ms
        self.token_ms = token_ms
        self.model = model
        self.host = host
        self.port = port
        self.default = default
        self.requests: deque[RecordedRequest] = deque(maxlen=max_records)
        self.log: deque[LogEntry] = deque(maxlen=max_records)
        self._ids = itertools.count(1)
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._bench_answer = Reply(text=_bench_text(tokens))
        self._bench_cache: dict[tuple[str, int, str, bool], list[bytes]] = {}
        self._bench_ends = _token_ends(self._bench_answer.text)
        self._started = int(time.time())

    # -- lifecycle ------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        """The OpenAI base URL (ends in ``/v1``)."""
        return f"http://{self.host}:{self.port}/v1"

    async def start(self) -> FakeLLM:
        self._server = await asyncio.start_server(
            self._on_connection, self.host, self.port, limit=_MAX_HEAD, reuse_address=True
        )
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is None:
            return
        self._server.close()
        for w in list(self._writers):
            w.transport.abort()
        for t in list(self._tasks):
            t.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()
        self._server = None

    async def __aenter__(self) -> FakeLLM:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- scripting ------------------------------------------------------------------
    def push(self, *replies: Reply) -> None:
        """Append replies to the script."""
        self._queue.extend(replies)

    @property
    def remaining(self) -> int:
        return len(self._queue)

    @property
    def chat_requests(self) -> list[JSON]:
        """Bodies of the chat completion requests received, in order."""
        return [r.body for r in self.requests if r.body is not None and "chat" in r.path]

    def first_token_log(self) -> list[tuple[int, int]]:
        """``(request_id, first_token_monotonic_ns)`` per chat request."""
        return [(e.request_id, e.first_token_ns) for e in self.log]

    def clear(self) -> None:
        self.requests.clear()
        self.log.clear()

    def _next_reply(self, body: JSON) -> Reply:
        if self._callable is not None:
            return self._callable(body)
        if self._queue:
            return self._queue.popleft()
        if self.default is not None:
            return self.default
        if self.mode == "bench":
            return self._bench_reply(body)
        return Reply.error(400, "fake_llm: script exhausted (no reply left for this request)")

    def _bench_reply(self, body: JSON) -> Reply:
        msgs = body.get("messages") or []
        has_tool_result = any(isinstance(m, dict) and m.get("role") == "tool" for m in msgs)
        if body.get("tools") and not has_tool_result:
            query = " ".join(_last_user_text(body).split()[:8]) or "ice maker"
            return Reply.call("search_parts", {"query": query})
        return self._bench_answer

    # -- HTTP -----------------------------------------------------------------------
    async def _on_connection(self, reader: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.add(w)
        try:
            while await self._one_request(reader, w):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            self._tasks.discard(task)
            self._writers.discard(w)
            w.transport.abort()

    async def _one_request(self, reader: asyncio.StreamReader, w: asyncio.StreamWriter) -> bool:
        """Serve one request; False when the connection should close."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return False
        received = time.monotonic_ns()
        lines = head[:-4].split(b"\r\n")
        try:
            method_b, target_b, version = lines[0].split(b" ", 2)
        except ValueError:
            await self._send_json(w, 400, {"error": {"message": "bad request line"}}, False)
            return False
        headers: dict[str, str] = {}
        for line in lines[1:]:
            k, _, v = line.partition(b":")
            headers[k.strip().lower().decode("latin-1")] = v.strip().decode("latin-1")
        keep_alive = version == b"HTTP/1.1" and headers.get("connection", "").lower() != "close"
        body_bytes = b""
        if "content-length" in headers:
            n = int(headers["content-length"])
            if n > _MAX_BODY:
                await self._send_json(w, 413, {"error": {"message": "too large"}}, False)
                return False
            body_bytes = await reader.readexactly(n)
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body_bytes = await _read_chunked(reader)
        method = method_b.decode()
        path = target_b.decode().split("?", 1)[0]
        if "://" in path:  # absolute form, as a client sends it to an HTTP proxy
            path = "/" + path.split("://", 1)[1].partition("/")[2]

        if path in ("/v1/chat/completions", "/chat/completions"):
            if method != "POST":
                await self._send_json(w, 405, {"error": {"message": "use POST"}}, keep_alive)
                return keep_alive
            try:
                body = orjson.loads(body_bytes)
                if not isinstance(body, dict):
                    raise ValueError("body is not an object")
            except ValueError as e:
                msg = {"error": {"message": f"invalid JSON body: {e}"}}
                await self._send_json(w, 400, msg, keep_alive)
                return keep_alive
            rid = next(self._ids)
            self.requests.append(RecordedRequest(rid, method, path, headers, body))
            entry = LogEntry(rid, received)
            self.log.append(entry)
            return await self._chat(reader, w, body, rid, entry, keep_alive)
        if path in ("/v1/models", "/models") and method == "GET":
            data = {
                "object": "list",
                "data": [
                    {"id": self.model, "object": "model", "created": 0, "owned_by": "fake_llm"}
                ],
            }
            await self._send_json(w, 200, data, keep_alive)
            return keep_alive
        if path == "/_fake/log" and method == "GET":
            await self._send_json(w, 200, [e.as_json() for e in self.log], keep_alive)
            return keep_alive
        if path == "/_fake/reset" and method == "POST":
            self.clear()
            await self._send_json(w, 200, {"ok": True}, keep_alive)
            return keep_alive
        if path == "/_fake/requests" and method == "GET":
            reqs = [
                {"request_id": r.request_id, "path": r.path, "body": r.body} for r in self.requests
            ]
            await self._send_json(w, 200, reqs, keep_alive)
            return keep_alive
        await self._send_json(w, 404, {"error": {"message": f"no route {path}"}}, keep_alive)
        return keep_alive

    async def _send_json(
        self,
        w: asyncio.StreamWriter,
        status: int,
        obj: object,
        keep_alive: bool,
        extra: Mapping[str, str] | None = None,
    ) -> None:
        body = orjson.dumps(obj)
        head = [
            f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}",
            "content-type: application/json",
            f"content-length: {len(body)}",
        ]
        if not keep_alive:
            head.append("connection: close")
        for k, v in (extra or {}).items():
            head.append(f"{k}: {v}")
        w.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        await w.drain()

    async def _chat(
        self,
        reader: asyncio.StreamReader,
        w: asyncio.StreamWriter,
        body: JSON,
        rid: int,
        entry: LogEntry,
        keep_alive: bool,
    ) -> bool:
        reply = self._next_reply(body)
        extra = {"x-fake-request-id": str(rid), "x-request-id": f"req_fake_{rid}", **reply.headers}
        if reply.hang_s is not None:
            await _sleep_or_disconnect(reader, reply.hang_s)
            return False
        if reply.status != 200:
            if reply.retry_after is not None:
                extra["retry-after"] = _fmt_seconds(reply.retry_after)
            message = reply.error_message or f"fake_llm error {reply.status}"
            err = {
                "error": {
                    "message": message,
                    "type": _ERROR_TYPES.get(reply.status, "server_error"),
                    "param": None,
                    "code": None,
                }
            }
            await self._send_json(w, reply.status, err, keep_alive, extra)
            entry.done_ns = time.monotonic_ns()
            return keep_alive
        model = reply.model or str(body.get("model") or self.model)
        first_ms = self.first_token_ms if reply.first_token_ms is None else reply.first_token_ms
        token_ms = self.token_ms if reply.token_ms is None else reply.token_ms
        if body.get("stream"):
            opts = body.get("stream_options")
            include_usage = bool(isinstance(opts, dict) and opts.get("include_usage"))
            return await self._stream(
                reader,
                w,
                body,
                reply,
                rid,
                entry,
                model,
                first_ms,
                token_ms,
                include_usage,
                extra,
                keep_alive,
            )
        if first_ms:
            await asyncio.sleep(first_ms / 1000)
        entry.first_token_ns = time.monotonic_ns()
        if reply.reset_after_chunks is not None:
            return False
        if reply.malformed_after_chunks is not None:
            bad = b'{"id": "chatcmpl-broken", "choices": ['
            w.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                + str(len(bad)).encode()
                + b"\r\n\r\n"
                + bad
            )
            await w.drain()
            entry.done_ns = time.monotonic_ns()
            return keep_alive
        await self._send_json(w, 200, self._completion(body, reply, rid, model), keep_alive, extra)
        entry.done_ns = time.monotonic_ns()
        return keep_alive

    def _completion(self, body: JSON, reply: Reply, rid: int, model: str) -> JSON:
        message: JSON = {"role": "assistant", "content": reply.text or None, "refusal": None}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": tc.id or f"call_fake_{rid}_{i}",
                    "type": "function",
                    "function": {"name": tc.name, "arguments": tc.arguments_text()},
                }
                for i, tc in enumerate(reply.tool_calls)
            ]
        completion_tokens = len(split_words(reply.text)) + sum(
            reply.arg_chunks + 1 for _ in reply.tool_calls
        )
        return {
            "id": f"chatcmpl-fake-{rid}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": "fp_fake",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": reply.finish_reason
                    or ("tool_calls" if reply.tool_calls else "stop"),
                }
            ],
            "usage": dict(reply.usage)
            if reply.usage
            else _usage(_prompt_tokens(body), completion_tokens),
        }

    async def _stream(
        self,
        reader: asyncio.StreamReader,
        w: asyncio.StreamWriter,
        body: JSON,
        reply: Reply,
        rid: int,
        entry: LogEntry,
        model: str,
        first_ms: float,
        token_ms: float,
        include_usage: bool,
        extra: Mapping[str, str],
        keep_alive: bool,
    ) -> bool:
        head = (
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
            "cache-control: no-cache\r\ntransfer-encoding: chunked\r\n"
            + ("" if keep_alive else "connection: close\r\n")
            + "".join(f"{k}: {v}\r\n" for k, v in extra.items())
            + "\r\n"
        )
        w.write(head.encode("latin-1"))
        if reply is self._bench_answer:  # pre-encoded once, so one id for all bench answers
            c = _Chunks("chatcmpl-fake-bench", self._started, model, include_usage)
        else:
            c = _Chunks(f"chatcmpl-fake-{rid}", int(time.time()), model, include_usage)
        events = self._events(c, reply, rid)
        if first_ms:
            await asyncio.sleep(first_ms / 1000)
        delay = token_ms / 1000
        transport = w.transport
        # Each content token's write time, by the content length it completes.
        ends = [] if reply.raw_deltas else self._ends(reply)
        timed = len(ends)
        for sent, ev in enumerate(events):
            if transport.is_closing():
                return False
            if sent == reply.reset_after_chunks:
                await w.drain()
                transport.abort()
                return False
            if sent == reply.hang_after_chunks:
                await w.drain()
                await _sleep_or_disconnect(reader, 3600.0)
                return False
            if sent == reply.malformed_after_chunks:
                w.write(_MALFORMED + _CHUNKED_END)
                await w.drain()
                entry.done_ns = time.monotonic_ns()
                return keep_alive
            if sent == reply.end_after_chunks:
                w.write(_CHUNKED_END)
                await w.drain()
                entry.done_ns = time.monotonic_ns()
                return keep_alive
            w.write(ev)
            if sent == 1:  # events[0] is the role chunk; [1] is the first content
                entry.first_token_ns = time.monotonic_ns()
            if 0 < sent <= timed:
                entry.tokens.append((ends[sent - 1], time.monotonic_ns()))
            await w.drain()
            if delay and sent:
                await asyncio.sleep(delay)
        if include_usage:
            completion_tokens = len(events) - 2
            usage = (
                dict(reply.usage)
                if reply.usage
                else _usage(_prompt_tokens(body), completion_tokens)
            )
            w.write(
                _frame(
                    c.head[: c.head.index(b'"choices"')]
                    + b'"choices":[],"usage":'
                    + orjson.dumps(usage)
                    + b"}\n\n"
                )
            )
        w.write(_DONE + _CHUNKED_END)
        await w.drain()
        entry.done_ns = time.monotonic_ns()
        return keep_alive

    def _ends(self, reply: Reply) -> list[int]:
        return self._bench_ends if reply is self._bench_answer else _token_ends(reply.text)

    def _events(self, c: _Chunks, reply: Reply, rid: int) -> list[bytes]:
        """All SSE events of a reply (HTTP-chunk framed): role, content, finish."""
        cached = self._bench_cache.get(c.key) if reply is self._bench_answer else None
        if cached is not None:
            return cached
        out = [_frame(c.delta(b'{"role":"assistant","content":""}'))]
        for d in reply.raw_deltas or ():
            out.append(_frame(c.delta(orjson.dumps(d))))
        for tok in split_words(reply.text):
            out.append(_frame(c.content(tok)))
        for i, tc in enumerate(reply.tool_calls):
            call_id = tc.id or f"call_fake_{rid}_{i}"
            first = {
                "tool_calls": [
                    {
                        "index": i,
                        "id": call_id,
                        "type": "function",
                        "function": {"name": tc.name, "arguments": ""},
                    }
                ]
            }
            out.append(_frame(c.delta(orjson.dumps(first))))
            for piece in _split_n(tc.arguments_text(), reply.arg_chunks):
                d = {"tool_calls": [{"index": i, "function": {"arguments": piece}}]}
                out.append(_frame(c.delta(orjson.dumps(d))))
        finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
        out.append(
            _frame(
                c.head
                + b"{}"
                + c.tail.replace(
                    b'"finish_reason":null', b'"finish_reason":' + orjson.dumps(finish)
                )
            )
        )
        if reply is self._bench_answer:
            self._bench_cache[c.key] = out
        return out


def _usage(prompt: int, completion: int) -> JSON:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
    }


def _fmt_seconds(s: float) -> str:
    return str(int(s)) if float(s).is_integer() else f"{s:g}"


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip(), 16)
        if size == 0:
            await reader.readuntil(b"\r\n")
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)


async def _sleep_or_disconnect(reader: asyncio.StreamReader, seconds: float) -> None:
    """Hang for ``seconds``, returning early if the client closes the connection."""
    with contextlib.suppress(TimeoutError, ConnectionError):
        async with asyncio.timeout(seconds):
            while await reader.read(65536):
                pass


class FakeLLMThread:
    """A FakeLLM on its own event loop in a daemon thread, for sync tests and for a
    server under test running in another loop or process."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._args, self._kwargs = args, kwargs
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.fake: FakeLLM | None = None

    def __enter__(self) -> FakeLLM:
        ready = threading.Event()
        loop = asyncio.new_event_loop()
        self._loop = loop

        def run() -> None:
            asyncio.set_event_loop(loop)
            ready.set()
            loop.run_forever()

        self._thread = threading.Thread(target=run, name="fake-llm", daemon=True)
        self._thread.start()
        ready.wait()
        fake = FakeLLM(*self._args, **self._kwargs)
        asyncio.run_coroutine_threadsafe(fake.start(), loop).result(10)
        self.fake = fake
        return fake

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._thread is not None and self.fake is not None
        asyncio.run_coroutine_threadsafe(self.fake.stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


# -- CLI ------------------------------------------------------------------------------
def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Fake OpenAI-compatible chat completions server")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 picks a free port (printed)")
    p.add_argument("--mode", choices=["bench"], default="bench")
    p.add_argument("--tokens", type=int, default=60, help="words in a bench text answer")
    p.add_argument("--first-token-ms", type=float, default=0.0)
    p.add_argument("--token-ms", type=float, default=0.0)
    p.add_argument("--model", default="gpt-4o-mini")
    p.add_argument("--max-records", type=int, default=100_000)
    p.add_argument("--no-uvloop", action="store_true", help="use the stock asyncio loop")
    return p.parse_args(argv)


async def _serve(ns: argparse.Namespace) -> None:
    fake = FakeLLM(
        mode=ns.mode,
        tokens=ns.tokens,
        first_token_ms=ns.first_token_ms,
        token_ms=ns.token_ms,
        model=ns.model,
        host=ns.host,
        port=ns.port,
        max_records=ns.max_records,
    )
    await fake.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    print(f"FAKE_LLM_READY {fake.base_url}", flush=True)
    await stop.wait()
    await fake.stop()


def main(argv: Sequence[str] | None = None) -> None:
    ns = _parse(argv)
    if not ns.no_uvloop:
        try:
            import uvloop
        except ImportError:
            pass
        else:
            uvloop.run(_serve(ns))
            return
    asyncio.run(_serve(ns))


if __name__ == "__main__":
    main(sys.argv[1:])
