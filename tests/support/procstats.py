"""Measuring a server from outside, for load tests and benchmarks: percentiles, the CPU
and RSS of a process tree (``psutil``), the open-files limit, the client's event loop,
and the user messages a server stored."""

from __future__ import annotations

import contextlib
import math
import resource
import threading
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


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


def count_user_messages(sessions_db: Path) -> int:
    """User messages stored in a server's ``sessions.db``, read through a read-only
    connection (safe beside the live server: WAL readers never block its writer)."""
    import sqlite3

    db = sqlite3.connect(f"file:{sessions_db}?mode=ro", uri=True, timeout=30.0)
    try:
        return int(db.execute("SELECT COUNT(*) FROM messages WHERE role = 'user'").fetchone()[0])
    finally:
        db.close()


def ms(ns: float) -> float:
    return ns / 1e6
