"""Load (issue 9): 1,000 concurrent WebSocket sessions × 5 turns, run twice, against the
fake LLM at realistic delays: zero errors, every user message stored, and memory back near
its level once the sessions have gone.

What runs
    ``tests/support/servers.Stack``: the fake OpenAI server (``tests/support/fake_llm.py``,
    bench mode: each turn is one ``search_parts`` tool call, then a text answer) with
    **300 ms to the first token and 20 ms per token**, and ``partchat serve`` (one worker,
    ``PARTCHAT_LLM=openai``) against it on free 127.0.0.1 ports, in a fresh temp data dir
    holding the catalog the test session built. As in the benchmarks, the per-connection message limit
    (``PARTCHAT_MESSAGES_PER_10S``) and the per-address connection cap
    (``PARTCHAT_MAX_CONNECTIONS_PER_IP``) are lifted: every session comes from 127.0.0.1.

Short answers
    Answers are ``TOKENS`` (8) words. The delays stay realistic (each token is its own SSE
    chunk, socket read and ``text-delta`` frame, 20 ms apart), but the server spends tens of
    ms of CPU per paced turn on this 2-core machine, mostly per turn rather than per token,
    and 2 × 5,000 turns of 60 tokens would take many minutes; 8 keeps the test bounded
    while still streaming several deltas per turn.

Phases
    warm-up   1,000 sessions × 1 turn (first requests, imports, pools, and the
              allocator's high-water mark at this scale), disconnect, settle →
              **baseline** RSS
    wave 1    1,000 sessions connect (``CONNECT_CONCURRENCY`` at a time: no SYN-backlog
              drops), each sends ``hello`` and waits for ``ready``; once all 1,000 are
              open, each runs 5 sequential turns (``message``, read until ``finish``),
              then disconnects; settle → **RSS after wave 1** (reported against the
              baseline: the warm-up's shorter turns peak lower, 1.005-1.083)
    wave 2    the same again → **RSS after wave 2**, which must be ≤ 1.10 × wave 1's, or:
    wave 3    only when wave 2 grew more: the same again, and **RSS after wave 3** must be
              ≤ 1.05 × wave 2's. A leak keeps growing by about as much every wave; an
              allocator whose high-water mark was still settling does not. Since the
              turn gate admits a burst one turn per lag sample (2026-11-24) the warm-up
              peaks lower (~221 MiB) and wave 2 still settles: warm-up → wave 1 → 2 → 3
              measured 222 → 266 → 292 → 301, 223 → 270 → 290 → 295 and
              221 → 268 → 302 → 304 MiB (wave 2 1.076-1.127, wave 3 1.007-1.03).

    Settling waits until ``partchat_open_connections`` and ``partchat_live_sessions``
    (``/metrics``) are both 0: every session's hub (its replay buffer) has been evicted.
    The server runs with ``PARTCHAT_HUB_TTL_S=HUB_TTL_S`` (default 120 s) so that happens
    within seconds (an idle hub never evicted fails the test). Without it wave 2's hubs
    would sit beside wave 1's and the comparison would measure the TTL, not a leak.

    Why the warm-up is full size: Python rarely hands freed memory back to the OS, so RSS
    after a wave is that wave's peak, and the first time the server runs at this scale
    its allocator's high-water mark settles. With a 50-session warm-up, wave 1 was that
    first time and wave 1 → wave 2 measured the settling: 1.00-1.13 on the same build
    (the live heap back at its baseline every time), failing now and then. After a
    full-size warm-up, wave 1 → wave 2 measured 1.014-1.026 (four runs): what is left
    to see is memory that stays with each wave, a leak.

Checks: no connect failure, no ``error`` event, every ``finish`` has reason ``stop``, no
turn timed out or lost its connection, and the user messages in ``sessions.db`` (read-only
SQLite) equal the messages sent (5,000 per wave, plus the warm-up's). Figures (durations,
RSS) are in the assertion messages and in the test's user properties (``load``; see them
with ``--junitxml``). Run alone: ``.venv/bin/pytest tests/load -q``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support import load_client as L
from tests.support import procstats as P
from tests.support.servers import Stack

pytestmark = [pytest.mark.load, pytest.mark.slow, pytest.mark.timeout(900)]

SESSIONS = 1000
TURNS = 5
TOKENS = 8
FIRST_TOKEN_MS = 300.0
TOKEN_MS = 20.0
WARMUP_SESSIONS = SESSIONS
WARMUP_TURNS = 1
CONNECT_CONCURRENCY = 100
CONNECT_TIMEOUT_S = 120.0  # all sessions of a wave open
TURN_TIMEOUT_S = 180.0  # one turn, message → finish (queueing for a saturated core included)
WAVE_TIMEOUT_S = 420.0  # one wave, connect → last disconnect
HUB_TTL_S = 1.0
SETTLE_TIMEOUT_S = 60.0  # last disconnect → every hub evicted
RSS_GROWTH_LIMIT = 1.10
# After a wave 2 over RSS_GROWTH_LIMIT: a leak that grew RSS 10 % in wave 2 grows it ~9 %
# again in wave 3; settling measured 1.007-1.03 (2026-11-24).
RSS_SETTLED_LIMIT = 1.05


@dataclass
class Wave:
    name: str
    sessions: int
    turns: int
    opened: int = 0  # sessions that got ``ready``
    sent: int = 0  # ``message`` frames sent
    stopped: int = 0  # turns that ended with finish "stop"
    deltas: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    connect_s: float = 0.0
    wall_s: float = 0.0
    turn_ms: list[float] = field(default_factory=list)
    peak_rss: int = 0

    def figures(self) -> dict[str, Any]:
        return {
            "sessions_open": self.opened,
            "sent": self.sent,
            "finished_stop": self.stopped,
            "errors": dict(self.errors),
            "connect_s": round(self.connect_s, 1),
            "wall_s": round(self.wall_s, 1),
            "turns_per_s": round(self.stopped / self.wall_s, 1) if self.wall_s else None,
            "deltas_per_turn": round(self.deltas / self.stopped, 1) if self.stopped else None,
            "turn_ms": P.summary(self.turn_ms, 0),
            "peak_rss_mib": mib(self.peak_rss),
        }


def mib(n: int) -> float:
    return round(n / 2**20, 1)


async def run_wave(url: str, wave: Wave) -> None:
    """``wave.sessions`` sessions open together, then ``wave.turns`` turns each, then close."""
    run = L.Run(wave.sessions)  # tags, and what one_turn records
    sem = asyncio.Semaphore(CONNECT_CONCURRENCY)
    all_open = asyncio.Event()
    go = asyncio.Event()
    settled = 0

    def connect_settled() -> None:
        nonlocal settled
        settled += 1
        if settled == wave.sessions:
            all_open.set()

    async def session() -> None:
        ws = None
        try:
            try:
                ws = await L.open_session(url, True, sem)
                wave.opened += 1
            except Exception as exc:
                wave.errors[f"connect:{type(exc).__name__}"] += 1
                return
            finally:
                connect_settled()
            await go.wait()
            for _ in range(wave.turns):
                wave.sent += 1
                t = await L.one_turn(ws, run, TURN_TIMEOUT_S)
                if t.error:
                    wave.errors[t.error] += 1
                    if t.error.startswith(("timeout", "closed")):
                        return
                    continue
                wave.stopped += 1
                wave.deltas += t.deltas
                wave.turn_ms.append(P.ms(t.end - t.sent))
        finally:
            if ws is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 10)

    t0 = time.monotonic()
    tasks = [asyncio.create_task(session()) for _ in range(wave.sessions)]
    try:
        async with asyncio.timeout(WAVE_TIMEOUT_S):
            try:
                async with asyncio.timeout(CONNECT_TIMEOUT_S):
                    await all_open.wait()
            except TimeoutError:
                wave.errors["connect:wave-timeout"] += wave.sessions - settled
            wave.connect_s = time.monotonic() - t0
            go.set()
            await asyncio.gather(*tasks)
    except TimeoutError:
        wave.errors["wave-timeout"] += sum(not t.done() for t in tasks)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        wave.wall_s = time.monotonic() - t0


def gauge(server_url: str, name: str) -> float:
    text = httpx.get(server_url + "/metrics", timeout=10).text
    m = re.search(rf"^{name} (\S+)$", text, re.M)
    return float(m.group(1)) if m else float("nan")


def settle(server_url: str) -> tuple[float, float, float]:
    """Wait until every connection is closed server-side and the sweep has evicted every
    session's hub; returns (seconds, open connections, sessions still in memory)."""
    t0 = time.monotonic()
    deadline = t0 + SETTLE_TIMEOUT_S
    while True:
        conns = gauge(server_url, "partchat_open_connections")
        live = gauge(server_url, "partchat_live_sessions")
        if (conns == 0 and live == 0) or time.monotonic() > deadline:
            return time.monotonic() - t0, conns, live
        time.sleep(0.2)


def test_thousand_sessions_five_turns_twice(catalog_db: Path, tmp_path: Path, request: Any) -> None:
    P.raise_nofile()
    env = {"PARTCHAT_HUB_TTL_S": str(HUB_TTL_S)}
    t_start = time.monotonic()
    figures: dict[str, Any] = {}
    request.node.user_properties.append(("load", figures))  # junit XML; filled in below
    with Stack(
        tokens=TOKENS,
        first_token_ms=FIRST_TOKEN_MS,
        token_ms=TOKEN_MS,
        log_level="warning",
        catalog=catalog_db,
        env=env,
    ) as stack:
        server, pid = stack.server, stack.server.pid
        assert pid is not None
        db = server.data_dir / "sessions.db"
        rss: dict[str, int] = {}
        totals = {"sent": 0}

        def run(wave: Wave) -> None:
            with P.RssSampler(pid, interval=0.5) as sampler:
                P.run_async(run_wave(server.ws_url, wave))
            wave.peak_rss = sampler.peak
            totals["sent"] += wave.sent
            settle_s, conns, live = settle(server.base_url)
            rss[wave.name] = P.tree_rss(pid)
            stored = P.count_user_messages(db)
            figures[wave.name] = {
                **wave.figures(),
                "settle_s": round(settle_s, 1),
                "rss_after_settle_mib": mib(rss[wave.name]),
                "stored_user_messages": stored,
                "sent_total": totals["sent"],
            }
            figures["total_s"] = round(time.monotonic() - t_start, 1)
            assert not wave.errors, f"{wave.name}: errors {figures}\n{server.log_tail()}"
            assert wave.opened == wave.sessions, f"{wave.name}: not all sessions opened {figures}"
            assert wave.sent == wave.stopped == wave.sessions * wave.turns, (
                f"{wave.name}: turns {figures}"
            )
            assert stored == totals["sent"], f"{wave.name}: stored != sent {figures}"
            assert conns == 0 and live == 0, (
                f"{wave.name}: {SETTLE_TIMEOUT_S} s after the last disconnect, "
                f"{conns} connections open, {live} sessions still in memory {figures}"
            )

        run(Wave("warmup", WARMUP_SESSIONS, WARMUP_TURNS))
        run(Wave("wave1", SESSIONS, TURNS))
        run(Wave("wave2", SESSIONS, TURNS))
        growth = rss["wave2"] / rss["wave1"]
        figures["rss_growth_wave1_to_wave2"] = round(growth, 3)
        if growth > RSS_GROWTH_LIMIT:
            # Settling or a leak? A leak grows again by as much; a high-water mark that
            # moved once does not.
            run(Wave("wave3", SESSIONS, TURNS))
            figures["rss_growth_wave2_to_wave3"] = round(rss["wave3"] / rss["wave2"], 3)

    figures["baseline_rss_mib"] = mib(rss["warmup"])
    figures["rss_baseline_to_wave1"] = round(rss["wave1"] / rss["warmup"], 3)
    figures["total_s"] = round(time.monotonic() - t_start, 1)
    if "wave3" in rss:
        growth, limit = rss["wave3"] / rss["wave2"], RSS_SETTLED_LIMIT
    else:
        growth, limit = rss["wave2"] / rss["wave1"], RSS_GROWTH_LIMIT
    assert growth <= limit, (
        f"RSS grew {growth:.3f}× over the last wave (limit {limit}): "
        + ", ".join(f"after {k} {mib(v)} MiB" for k, v in rss.items())
        + f"; {figures}"
    )
