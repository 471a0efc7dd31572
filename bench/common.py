"""Shared helpers of the load benchmarks: matching a client's turns to the fake LLM's
request log, py-spy profiles, gap arithmetic and output.

The fake LLM and server processes (``Stack``, ``ServerProcess``, ``FakeLLMProcess``),
the load client and the CPU and RSS sampling are test support
(``tests/support/servers.py``, ``load_client.py``, ``procstats.py``); this module
re-exports what the benchmarks use of them. ``Stack`` builds the catalog once, then
starts a fake and a server pointed at it (``PARTCHAT_LLM=openai``), so start-up is never
part of a measurement. ``IMPLS`` names the servers a benchmark can measure: partchat, or
the issue's plain-LangGraph baseline (``baseline_server.py``) in the same run.

Matching turns to LLM requests
    Every turn's user message ends in ``(ticket <tag>)``, a letters-only tag unique to
    the turn (the fake builds its ``search_parts`` query from the first eight words, and
    the extractor ignores tokens without digits, so the tag changes nothing the server
    does). After a run, ``GET /_fake/requests`` gives each request's body, so the last
    user message names the turn and the presence of a ``tool`` message tells the tool-call
    request from the answer request; ``GET /_fake/log`` gives each request's received,
    first-content and last-byte times. Both clocks are ``CLOCK_MONOTONIC``
    (``time.monotonic_ns``) on the same machine, so they subtract directly.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # as a script: tests/support/

import orjson
from tests.support.load_client import TEXT as TEXT
from tests.support.load_client import tag as tag
from tests.support.procstats import RssSampler as RssSampler
from tests.support.procstats import ms as ms
from tests.support.procstats import raise_nofile as raise_nofile
from tests.support.procstats import run_async as run_async
from tests.support.procstats import summary as summary
from tests.support.procstats import tree_cpu_s as tree_cpu_s
from tests.support.procstats import tree_rss as tree_rss
from tests.support.servers import Stack as Stack
from tests.support.servers import build_catalog as build_catalog

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
PY = sys.executable
T = TypeVar("T")

_TAG_RE = re.compile(r"\(ticket ([a-z]+)\)\s*$")

# The baselines (issue 8), per streamed turn against the fake LLM.
BASELINES = {
    "node": {"label": "Node original (no streaming)", "cpu_ms": (11.0, 16.0), "tps": 110.0},
    "langgraph": {"label": "plain LangGraph + ChatOpenAI, streaming", "cpu_ms": 38.0, "tps": 25.0},
    "langgraph_nostream": {
        "label": "plain LangGraph + ChatOpenAI, streaming off",
        "cpu_ms": 9.0,
        "tps": (75.0, 110.0),
    },
}
TARGETS = {
    "cpu_ms_per_turn": 8.0,
    "turns_per_s": 220.0,
    "added_ttft_p99_ms": 5.0,
    "added_gap_p99_ms": 2.0,
    "idle_kib_per_conn": 100.0,
    "thousand_gap_p99_ms": 20.0,
}


# --- small utilities ----------------------------------------------------------------------
def http_get_json(url: str, timeout: float = 120.0) -> Any:
    import httpx

    r = httpx.get(url, timeout=timeout)
    r.raise_for_status()
    return orjson.loads(r.content)


def http_post(url: str, timeout: float = 30.0) -> None:
    import httpx

    httpx.post(url, timeout=timeout).raise_for_status()


# --- child processes -----------------------------------------------------------------------
def fake_root(base_url: str) -> str:
    """``http://host:port/v1`` → ``http://host:port``."""
    return base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url.rstrip("/")


# What a ``Stack`` runs (its ``command``): partchat, or the plain-LangGraph
# baseline measured in the same run (``baseline_server.py``).
IMPLS = {
    "partchat": ("-m", "partchat.cli", "serve"),
    "langgraph": (str(BENCH / "baseline_server.py"),),
    "langgraph-nostream": (str(BENCH / "baseline_server.py"), "--no-stream"),
}


def impl_of(stack: Stack) -> str:
    """The ``IMPLS`` name of what the stack's server runs."""
    return next(name for name, command in IMPLS.items() if command == stack.command)


# --- matching turns to the fake's requests --------------------------------------------------
@dataclass(slots=True)
class FakeTimes:
    """The fake's view of one turn: its tool-call request and its answer request (ns)."""

    tool_received: int = 0
    tool_done: int = 0
    text_received: int = 0
    text_first: int = 0
    text_done: int = 0
    text_tokens: dict[int, int] = field(default_factory=dict)  # content length → written ns


def fake_times_by_tag(fake_url: str) -> dict[str, FakeTimes]:
    """Tag → the fake's timings of that turn's requests (since the last reset)."""
    root = fake_root(fake_url)
    log = {e["request_id"]: e for e in http_get_json(root + "/_fake/log")}
    reqs = http_get_json(root + "/_fake/requests")
    out: dict[str, FakeTimes] = {}
    for r in reqs:
        body = r.get("body") or {}
        msgs = body.get("messages") or []
        last_user = next(
            (
                m.get("content")
                for m in reversed(msgs)
                if isinstance(m, dict) and m.get("role") == "user"
            ),
            None,
        )
        if not isinstance(last_user, str):
            continue
        m = _TAG_RE.search(last_user)
        e = log.get(r["request_id"])
        if m is None or e is None:
            continue
        ft = out.setdefault(m.group(1), FakeTimes())
        if any(isinstance(x, dict) and x.get("role") == "tool" for x in msgs):
            ft.text_received, ft.text_first, ft.text_done = (
                e["received_ns"],
                e["first_token_ns"],
                e["done_ns"],
            )
            ft.text_tokens = {end: ns for end, ns in e.get("tokens") or ()}
        else:
            ft.tool_received, ft.tool_done = e["received_ns"], e["done_ns"]
    return out


# --- py-spy ------------------------------------------------------------------------------------
def pyspy_path() -> str | None:
    cand = Path(sys.executable).parent / "py-spy"
    return str(cand) if cand.exists() else shutil.which("py-spy")


class PySpy:
    """``py-spy record --format raw`` (collapsed stacks) of a process tree while in scope."""

    def __init__(self, pid: int, out: Path, rate: int = 250, *, native: bool = False) -> None:
        """``native``: C frames too (uvloop, sqlite, the GIL); py-spy then pauses the
        process for each sample, so the run is slower still."""
        self.pid, self.out, self.rate, self.native = pid, out, rate, native
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> PySpy:
        exe = pyspy_path()
        if exe is None:
            raise RuntimeError("py-spy is not installed: .venv/bin/pip install py-spy")
        self.proc = subprocess.Popen(
            [
                exe,
                "record",
                "--pid",
                str(self.pid),
                "--subprocesses",
                "--rate",
                str(self.rate),
                "--format",
                "raw",
                *(["--native"] if self.native else ["--nonblocking"]),
                "--output",
                str(self.out),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        time.sleep(0.5)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def _frame_name(frame: str) -> str:
    """``fn (path/to/module.py:12)`` → ``fn (package/module.py)``."""
    m = re.match(r"(.*?) \((.*?)(?::\d+)?\)$", frame)
    if not m:
        return frame
    fn, path = m.groups()
    for marker in ("site-packages/", "lib/python3.11/", "backend/"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{fn} ({path})"


def _module_of(frame: str) -> str:
    m = re.match(r".*? \((.*?)(?::\d+)?\)$", frame)
    path = m.group(1) if m else frame
    for marker in ("site-packages/", "lib/python3.11/", "backend/"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    parts = path.split("/")
    if parts[0] == "partchat":
        return "/".join(parts[:2]).removesuffix(".py")
    return parts[0].removesuffix(".py")


# Leaf frames that are a thread waiting, not working: py-spy's --nonblocking sampling can
# count a thread blocked in a C call (a queue get) as active.
_IDLE_LEAVES = (
    "concurrent/futures/thread.py:81)",  # executor thread waiting for work
    "selectors.py",
)

# (category, predicate over a collapsed stack); the first match wins.
_CATEGORIES: tuple[tuple[str, Callable[[str], bool]], ...] = (
    (
        "SQLite on a thread (LoopSqlite fallback, heavy catalog queries, checkpoints)",
        lambda s: "_on_thread" in s or "Checkpointer._checkpoint" in s,
    ),
    ("SQLite units on the event loop (LoopSqlite.run)", lambda s: "LoopSqlite.run" in s),
    (
        "sync conditional edge run in the thread pool (LangGraph run_in_executor)",
        lambda s: "concurrent/futures/thread.py" in s or "run_in_executor" in s,
    ),
    (
        "LangChain per-token callbacks (on_llm_new_token)",
        lambda s: "on_llm_new_token" in s or "callbacks/manager.py" in s,
    ),
    (
        "WebSocket send path (Connection.sender → starlette → uvicorn → websockets, deflate)",
        lambda s: "Connection.sender" in s or "websockets_sansio_impl" in s or "websockets/" in s,
    ),
    (
        "LLM HTTP client: request, stream read, SSE parse (httpx, httpcore, h11, anyio)",
        lambda s: (
            ("_fast_stream" in s and "httpx" in s)
            or any(k in s for k in ("httpcore/", "h11/", "anyio/"))
        ),
    ),
    ("LLM chunk → AIMessageChunk (_to_chunk, pydantic)", lambda s: "to_chunk (" in s),
    (
        "LLM request build (payload, message conversion)",
        lambda s: "_fast_plan" in s or "_convert_message" in s,
    ),
    (
        "SSE parse and reply assembly (FastChatOpenAI), LangChain chat-model wrapper",
        lambda s: "_agenerate_with_cache" in s or "FastChatOpenAI" in s,
    ),
    (
        "tools and catalog (Toolbox.call, Catalog)",
        lambda s: "Toolbox.call" in s or "partchat/catalog" in s,
    ),
    (
        "turn engine, publish, encode (turns/ engine, hub, run; stream_adapter, protocol)",
        lambda s: (
            any(f"partchat/turns/{m}.py" in s for m in ("engine", "hub", "run", "sessions"))
            or "stream_adapter" in s
            or "partchat/protocol" in s
        ),
    ),
    (
        "session store (partchat/store, aiosqlite's thread)",
        lambda s: "partchat/store/" in s or "aiosqlite/" in s,
    ),
    ("WebSocket receive loop", lambda s: "_receive_loop" in s),
    ("LangGraph Pregel machinery", lambda s: "pregel" in s or "langgraph" in s),
    ("logging", lambda s: "logging/__init__" in s),
    (
        "event loop itself (uvloop C code: callbacks, socket I/O; may include epoll waits)",
        lambda s: s.split(";")[-1].startswith("Runner.run (") and "asyncio/runners.py" in s,
    ),
    ("asyncio task and future glue", lambda s: "asyncio/" in s.split(";")[-1]),
)


def profile_summary(collapsed: Path, top: int = 25) -> dict[str, Any]:
    """Self and inclusive shares of functions, packages and categories in py-spy's raw
    (collapsed) output, as % of the samples where a thread was working (waits in a
    queue get or ``select`` are counted apart as idle)."""
    self_n: dict[str, int] = {}
    incl_n: dict[str, int] = {}
    pkg_self: dict[str, int] = {}
    cat_n: dict[str, int] = {}
    busy = idle = 0
    for line in collapsed.read_text(errors="replace").splitlines():
        stack, _, count_s = line.rpartition(" ")
        if not stack or not count_s.isdigit():
            continue
        n = int(count_s)
        frames = [f for f in stack.split(";") if f and not f.startswith("process ")]
        if not frames:
            continue
        leaf = frames[-1]
        if any(k in leaf for k in _IDLE_LEAVES):
            idle += n
            continue
        busy += n
        name = _frame_name(leaf)
        self_n[name] = self_n.get(name, 0) + n
        pkg = _module_of(leaf)
        pkg_self[pkg] = pkg_self.get(pkg, 0) + n
        for f in {_frame_name(f) for f in frames}:
            incl_n[f] = incl_n.get(f, 0) + n
        joined = ";".join(frames)
        cat = next((c for c, pred in _CATEGORIES if pred(joined)), "other")
        cat_n[cat] = cat_n.get(cat, 0) + n

    def share(d: dict[str, int], k: int = top) -> list[tuple[str, float]]:
        ordered = sorted(d.items(), key=lambda kv: -kv[1])[:k]
        return [(name, round(100 * v / busy, 1)) for name, v in ordered]

    return {
        "samples_busy": busy,
        "samples_idle": idle,
        "categories": share(cat_n, 100) if busy else [],
        "self": share(self_n) if busy else [],
        "inclusive": share(incl_n) if busy else [],
        "packages": share(pkg_self) if busy else [],
    }


# --- output --------------------------------------------------------------------------------------
def dumps(obj: Any) -> str:
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    """No garbage collection in a load client while it measures: it is the instrument,
    and a full collection over 1,000 connections' objects stalls its loop for tens of
    milliseconds, which would be charged to the server."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


def added_gaps(frames: Sequence[tuple[int, int]], written: dict[int, int]) -> list[int] | None:
    """Server-added gaps (ns) of one streamed answer: for consecutive frames, the gap at
    the client minus the gap between the writes, at the fake, of the last token each
    frame carries. ``frames`` are ``(received ns, content length so far)``; ``written``
    maps a content length to the ns its token was written (``FakeTimes.text_tokens``).
    None when a frame does not end on a token the fake logged (text changed on the way,
    or the fake did not pace)."""
    added = []
    for (recv0, end0), (recv1, end1) in itertools.pairwise(frames):
        w0, w1 = written.get(end0), written.get(end1)
        if w0 is None or w1 is None:
            return None
        added.append((recv1 - recv0) - (w1 - w0))
    return added


def flatten(items: Iterable[Iterable[T]]) -> Iterator[T]:
    for it in items:
        yield from it


def call_quietly(fn: Callable[[], T]) -> T | None:
    try:
        return fn()
    except Exception:
        return None
