"""Shared helpers of the load benchmarks: the fake LLM and server processes, CPU and RSS
sampling, percentiles, and matching a client's turns to the fake LLM's request log.

Processes
    ``FakeProc`` runs ``bench/fake_llm.py`` and ``ServerProc`` runs ``partchat serve`` as
    child processes of the benchmark (never of each other), so ``psutil`` charges the
    server's CPU to the server alone. ``Stack`` builds the catalog once (``partchat
    catalog build`` into a fresh ``PARTCHAT_DATA_DIR``), then starts a fake and a server
    pointed at it (``PARTCHAT_LLM=openai``), so start-up is never part of a measurement.

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
import math
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import orjson

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
PY = sys.executable

T = TypeVar("T")

TEXT = "the ice maker on my Whirlpool WRS325SDHZ stopped making ice (ticket {tag})"
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
def tag(n: int) -> str:
    """A letters-only tag for turn number ``n`` (``qa``, ``qb``, …)."""
    out = ""
    while True:
        n, r = divmod(n, 26)
        out = chr(97 + r) + out
        if n == 0:
            return "q" + out


def pct(samples: Sequence[float], q: float) -> float | None:
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def summary(samples: Sequence[float], digits: int = 2) -> dict[str, float | int | None]:
    """n, p50, p90, p99, max of ``samples`` (already in the unit wanted)."""
    if not samples:
        return {"n": 0, "p50": None, "p90": None, "p99": None, "max": None}
    ordered = sorted(samples)

    def at(q: float) -> float:
        return round(
            ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))], digits
        )

    return {
        "n": len(ordered),
        "p50": at(0.50),
        "p90": at(0.90),
        "p99": at(0.99),
        "max": round(ordered[-1], digits),
    }


def raise_nofile(want: int | None = None) -> int:
    """Raise the soft open-files limit (to the hard limit by default); returns it.

    Child processes started afterwards (the server) inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if want is None else min(hard, max(soft, want))
    if hard == resource.RLIM_INFINITY and want is None:
        target = 1_048_576
    if target > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def run_async(main: Coroutine[Any, Any, T], *, use_uvloop: bool = True) -> tuple[T, str]:
    """Run ``main`` on uvloop when it is installed (it is: uvicorn[standard] brings it)."""
    if use_uvloop:
        try:
            import uvloop
        except ImportError:
            pass
        else:
            return uvloop.run(main), "uvloop"
    import asyncio

    return asyncio.run(main), "asyncio"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http_get_json(url: str, timeout: float = 120.0) -> Any:
    import httpx

    r = httpx.get(url, timeout=timeout)
    r.raise_for_status()
    return orjson.loads(r.content)


def http_post(url: str, timeout: float = 30.0) -> None:
    import httpx

    httpx.post(url, timeout=timeout).raise_for_status()


# --- process accounting --------------------------------------------------------------------
def process_tree(pid: int) -> list[Any]:
    import psutil

    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def tree_cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its live children (uvicorn workers)."""
    import psutil

    total = 0.0
    for p in process_tree(pid):
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            t = p.cpu_times()
            total += t.user + t.system
    return total


def tree_rss(pid: int) -> int:
    import psutil

    total = 0
    for p in process_tree(pid):
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            total += p.memory_info().rss
    return total


class RssSampler:
    """Samples the server tree's RSS on a thread (every ``interval`` s); ``peak`` bytes."""

    def __init__(self, pid: int | None, interval: float = 0.1) -> None:
        self.pid = pid
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> RssSampler:
        if self.pid:
            self.peak = tree_rss(self.pid)
            self._thread = threading.Thread(target=self._run, name="rss", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        assert self.pid
        while not self._stop.wait(self.interval):
            self.peak = max(self.peak, tree_rss(self.pid))

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(2)
        if self.pid:
            self.peak = max(self.peak, tree_rss(self.pid))


# --- child processes -----------------------------------------------------------------------
class FakeProc:
    """``bench/fake_llm.py`` in a child process."""

    def __init__(self, tokens: int = 60, first_token_ms: float = 0.0, token_ms: float = 0.0):
        self.tokens, self.first_token_ms, self.token_ms = tokens, first_token_ms, token_ms
        self.proc: subprocess.Popen[str] | None = None
        self.base_url = ""

    def start(self) -> FakeProc:
        self.proc = subprocess.Popen(
            [
                PY,
                str(BENCH / "fake_llm.py"),
                "--port",
                "0",
                "--mode",
                "bench",
                "--tokens",
                str(self.tokens),
                "--first-token-ms",
                str(self.first_token_ms),
                "--token-ms",
                str(self.token_ms),
                "--max-records",
                "1000000",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("FAKE_LLM_READY "):
            self.stop()
            raise RuntimeError(f"fake_llm did not start: {line!r}")
        self.base_url = line.split()[1]
        return self

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def stop(self) -> None:
        stop_process(self.proc)
        self.proc = None


def fake_root(base_url: str) -> str:
    """``http://host:port/v1`` → ``http://host:port``."""
    return base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url.rstrip("/")


# What ``ServerProc`` runs: partchat, or the plain-LangGraph baseline measured in
# the same run (``baseline_server.py``).
IMPLS = {
    "partchat": ["-m", "partchat.cli", "serve"],
    "langgraph": [str(BENCH / "baseline_server.py")],
    "langgraph-nostream": [str(BENCH / "baseline_server.py"), "--no-stream"],
}


class ServerProc:
    """``partchat serve`` (or a baseline, ``impl``) in a child process, configured against
    an OpenAI-compatible URL."""

    def __init__(
        self,
        data_dir: Path,
        llm_base_url: str,
        *,
        workers: int = 1,
        rate_limit: bool = False,
        log_level: str = "info",
        env: dict[str, str] | None = None,
        impl: str = "partchat",
    ) -> None:
        if impl not in IMPLS:
            raise ValueError(f"impl must be one of {sorted(IMPLS)}")
        self.impl = impl
        self.data_dir = data_dir
        self.llm_base_url = llm_base_url
        self.workers = workers
        self.rate_limit = rate_limit
        self.log_level = log_level
        self.extra_env = env or {}
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    @property
    def log_path(self) -> Path:
        return self.data_dir / "server.log"

    def start(self, timeout: float = 60.0) -> ServerProc:
        import httpx

        self.port = free_port()
        env = {
            **os.environ,
            "PARTCHAT_HOST": "127.0.0.1",
            "PARTCHAT_PORT": str(self.port),
            "PARTCHAT_DATA_DIR": str(self.data_dir),
            "PARTCHAT_LLM": "openai",
            "OPENAI_BASE_URL": self.llm_base_url,
            "OPENAI_API_KEY": "sk-bench",
            "PARTCHAT_LLM_RETRIES": "0",
            "PARTCHAT_LOG_LEVEL": self.log_level,
            "PARTCHAT_MAX_CONNECTIONS_PER_IP": "100000",
            # Lift the per-connection message limit so a few sessions can saturate the server.
            "PARTCHAT_MESSAGES_PER_10S": "10" if self.rate_limit else "1000000",
            **self.extra_env,
        }
        cmd = [PY, *IMPLS[self.impl]]
        if self.workers > 1:
            cmd += ["--workers", str(self.workers)]
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=self.data_dir
        )
        log.close()
        deadline = time.monotonic() + timeout
        with httpx.Client(timeout=1.0) as client:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"server exited early:\n{self.log_tail()}")
                with contextlib.suppress(httpx.HTTPError):
                    if client.get(self.url + "/health").status_code == 200:
                        if self.workers > 1:  # every worker up (each opens its stores)
                            time.sleep(1.0)
                        return self
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"server did not answer /health in {timeout}s:\n{self.log_tail()}")

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def stop(self) -> None:
        stop_process(self.proc, graceful=30.0)
        self.proc = None


def stop_process(proc: subprocess.Popen[Any] | None, graceful: float = 10.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(graceful)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def count_user_messages(sessions_db: Path) -> int:
    """User messages stored in a server's ``sessions.db``, read through a read-only
    connection (safe beside the live server: WAL readers never block its writer)."""
    import sqlite3

    db = sqlite3.connect(f"file:{sessions_db}?mode=ro", uri=True, timeout=30.0)
    try:
        return int(db.execute("SELECT COUNT(*) FROM messages WHERE role = 'user'").fetchone()[0])
    finally:
        db.close()


def build_catalog(data_dir: Path) -> Path:
    """``partchat catalog build`` into ``data_dir`` (a fresh ``PARTCHAT_DATA_DIR``)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PARTCHAT_DATA_DIR": str(data_dir)}
    subprocess.run(
        [PY, "-m", "partchat.cli", "catalog", "build"],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=data_dir,
    )
    return data_dir / "catalog.db"


@dataclass
class Stack:
    """A temp dir, a built catalog, a fake LLM and a server using it.

    ``catalog`` reuses an already-built ``catalog.db`` (copied into the fresh data dir);
    ``env`` adds to (or overrides) the server's environment."""

    tokens: int = 60
    first_token_ms: float = 0.0
    token_ms: float = 0.0
    workers: int = 1
    rate_limit: bool = False
    log_level: str = "info"
    catalog: Path | None = None
    keep: bool = False
    env: dict[str, str] | None = None
    impl: str = "partchat"
    tmp: Path = field(init=False)
    fake: FakeProc = field(init=False)
    server: ServerProc = field(init=False)

    def __enter__(self) -> Stack:
        self.tmp = Path(tempfile.mkdtemp(prefix="partchat-bench-"))
        data = self.tmp / "data"
        data.mkdir()
        if self.catalog is not None and self.catalog.exists():
            shutil.copy2(self.catalog, data / "catalog.db")
        else:
            build_catalog(data)
        self.fake = FakeProc(self.tokens, self.first_token_ms, self.token_ms).start()
        try:
            self.server = ServerProc(
                data,
                self.fake.base_url,
                workers=self.workers,
                rate_limit=self.rate_limit,
                log_level=self.log_level,
                env=self.env,
                impl=self.impl,
            ).start()
        except BaseException:
            self.fake.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            self.server.stop()
        self.fake.stop()
        if not self.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)


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
    cand = Path(PY).parent / "py-spy"
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
    ("LLM chunk → AIMessageChunk (_to_chunk, pydantic)", lambda s: "_to_chunk" in s),
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
        "turn engine, publish, encode (turns.py, stream_adapter, protocol)",
        lambda s: "partchat/turns.py" in s or "stream_adapter" in s or "partchat/protocol" in s,
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


def ms(ns: float) -> float:
    return ns / 1e6


def flatten(items: Iterable[Iterable[T]]) -> Iterator[T]:
    for it in items:
        yield from it


def call_quietly(fn: Callable[[], T]) -> T | None:
    try:
        return fn()
    except Exception:
        return None
