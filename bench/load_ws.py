"""WebSocket load generator: N concurrent sessions x T turns against ``/ws``, or K idle
connections.

    .venv/bin/python bench/load_ws.py --sessions 50 --turns 20            # saturating
    .venv/bin/python bench/load_ws.py --sessions 200 --turns 5 --first-token-ms 300 --token-ms 20
    .venv/bin/python bench/load_ws.py --idle 2000                          # idle connections
    .venv/bin/python bench/load_ws.py --smoke --json                       # a few seconds

Without ``--url`` it starts a fake OpenAI server (``tests/support/fake_llm.py``, bench mode: one
``search_parts`` call, then a ``--tokens``-word answer) and ``partchat serve`` against it,
in a fresh ``PARTCHAT_DATA_DIR`` whose catalog is built first, so start-up is not
measured. ``--url ws://…/ws`` attaches to a running server instead; add
``--server-pid`` for its CPU and RSS and ``--fake-url`` (with the fake's ``--token-ms``)
for the server-added times.

Each session connects, sends ``hello``, runs ``--warmup`` turns, then waits until every
session is warm; the measured phase starts together (CPU snapshot, fake log reset) and
ends when every session has run ``--turns`` turns or ``--duration`` has passed. A turn:
send ``message``, read until ``finish``.

Per turn:
  ttft          client: first ``text-delta`` received − ``message`` sent
  added ttft    client first ``text-delta`` − the fake's first content chunk of the turn's
                answer request (both ``CLOCK_MONOTONIC``; matched by the turn's tag, see
                ``common.py``): what the server adds between the LLM's first token and
                the browser's
  overhead      ttft − the fake's own time (tool-call request received→done, answer
                request received→first token): all the server's time before the first
                token, tool execution and two LLM round trips included
  gaps          between consecutive ``text-delta`` frames at the client; added gap =
                gap − the gap between the fake's writes of the tokens that end the two
                frames (the fake logs each token's write time), so the fake's own
                timer jitter, or its being descheduled between two writes of a
                back-to-back answer, is not charged to the server; without the fake's
                log (``--url`` without ``--fake-url``), and ``added_gap_nominal_ms``:
                gap − ``--token-ms``
  server CPU    psutil user+system of the server and its children (workers), measured
                phase only, / turns; client CPU likewise (process_time), and the fake
                LLM's (with ``--url``: ``--fake-pid``). All three share the machine, so
                ``machine util`` (their sum per second of wall time, in cores) says
                whether a saturating run was bound by the server or by the machine
  peak RSS      the server tree's RSS sampled every 100 ms

The client is lean (uvloop when installed, no JSON parsing of hot frames, no client
pings) so on a small machine it leaves the CPU to the server; its own CPU per turn is
reported too. The per-connection message rate limit (PARTCHAT_MESSAGES_PER_10S) is lifted in servers
this script starts (``--rate-limit`` keeps it): it guards against abusive clients, and
with it 50 sessions could not exceed 50 turns/s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the root: tests/support/
sys.path.insert(0, str(Path(__file__).resolve().parent))  # common.py

from tests.support.load_client import Run, Turn, one_turn, open_session
from websockets.asyncio.client import ClientConnection

import common as C


async def session(url: str, ns: argparse.Namespace, run: Run, sem: asyncio.Semaphore) -> None:
    ws: ClientConnection | None = None
    ready = False
    try:
        try:
            ws = await open_session(url, not ns.no_compression, sem)
            ready = True
            for _ in range(ns.warmup):
                t = await one_turn(ws, run, ns.turn_timeout)
                if t.error:
                    run.errors[f"warmup:{t.error}"] += 1
                    ready = False
                    break
        except Exception as exc:
            run.errors[f"connect:{type(exc).__name__}"] += 1
        finally:
            run.warm += 1
            if run.warm >= run.sessions:
                run.all_warm.set()
        if not ready or ws is None:
            return
        await run.go.wait()
        for _ in range(ns.turns):
            if time.monotonic() >= run.deadline:
                break
            t = await one_turn(ws, run, ns.turn_timeout)
            run.turns.append(t)
            if t.error:
                run.errors[t.error] += 1
                if t.error.startswith(("timeout", "closed")):
                    return
    finally:
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()


async def run_turns(
    ns: argparse.Namespace,
    ws_url: str,
    pid: int | None,
    fake_url: str | None,
    fake_pid: int | None = None,
) -> dict[str, Any]:
    run = Run(ns.sessions, timed=fake_url is not None)
    sem = asyncio.Semaphore(ns.connect_concurrency)
    # Several servers (comma-separated URLs): the sessions are spread round robin.
    urls = ws_url.split(",")
    tasks = [
        asyncio.create_task(session(urls[i % len(urls)], ns, run, sem)) for i in range(ns.sessions)
    ]
    await run.all_warm.wait()
    await asyncio.sleep(0.2)  # let the last warm-up turns be stored
    if fake_url:
        C.http_post(C.fake_root(fake_url) + "/_fake/reset")
    warm_errors = sum(run.errors.values())
    others = [int(p) for p in (ns.other_server_pids or "").split(",") if p]
    infra = [int(p) for p in (ns.infra_pids or "").split(",") if p]
    others0 = sum(C.tree_cpu_s(p) for p in others)
    infra0 = sum(C.tree_cpu_s(p) for p in infra)
    cpu0 = C.tree_cpu_s(pid) if pid else 0.0
    fake0 = C.tree_cpu_s(fake_pid) if fake_pid else 0.0
    rss0 = C.tree_rss(pid) if pid else 0
    c0 = time.process_time()
    prof_ctx: Any = contextlib.nullcontext()
    if ns.profile and pid:
        prof_ctx = C.PySpy(pid, Path(ns.profile), rate=ns.profile_rate, native=ns.profile_native)
    with C.RssSampler(pid) as rss, prof_ctx, C.no_gc():
        t0 = time.monotonic()
        run.deadline = t0 + ns.duration
        run.measuring = True
        run.go.set()
        await asyncio.gather(*tasks)
        wall = time.monotonic() - t0
    client_cpu = time.process_time() - c0
    cpu = (
        (C.tree_cpu_s(pid) - cpu0 + sum(C.tree_cpu_s(p) for p in others) - others0) if pid else None
    )
    infra_cpu = sum(C.tree_cpu_s(p) for p in infra) - infra0
    fake_cpu = (C.tree_cpu_s(fake_pid) - fake0) if fake_pid else None

    ok = [t for t in run.turns if t.ok]
    token_ns = ns.token_ms * 1e6
    out: dict[str, Any] = {
        "bench": "ws",
        "sessions": ns.sessions,
        "turns_per_session": ns.turns,
        "tokens": ns.tokens,
        "first_token_ms": ns.first_token_ms,
        "token_ms": ns.token_ms,
        "workers": ns.workers,
        "compression": not ns.no_compression,
        "turns": len(ok),
        "errors": sum(run.errors.values()),
        "warmup_errors": warm_errors,
        "error_kinds": dict(run.errors),
        "wall_s": round(wall, 3),
        "turns_per_s": round(len(ok) / wall, 1) if wall > 0 else 0.0,
        "deltas_per_turn": round(sum(t.deltas for t in ok) / len(ok), 1) if ok else 0,
        "ttft_ms": C.summary([C.ms(t.first - t.sent) for t in ok if t.first]),
        "turn_ms": C.summary([C.ms(t.end - t.sent) for t in ok]),
        "gap_ms": C.summary([C.ms(g) for g in run.gaps], 3),
        "added_gap_ms": C.summary([C.ms(g - token_ns) for g in run.gaps], 3),
        "added_gap_basis": "nominal",
        "server_cpu_ms_per_turn": round(cpu * 1000 / len(ok), 3)
        if cpu is not None and ok
        else None,
        "server_cpu_util": round(cpu / wall, 3) if cpu is not None and wall else None,
        "client_cpu_ms_per_turn": round(client_cpu * 1000 / len(ok), 3) if ok else None,
        "servers": len(urls),
        "infra_cpu_ms_per_turn": round(infra_cpu * 1000 / len(ok), 3) if infra and ok else None,
        "fake_cpu_ms_per_turn": round(fake_cpu * 1000 / len(ok), 3)
        if fake_cpu is not None and ok
        else None,
        "machine_cpu_util": round((cpu + client_cpu + fake_cpu) / wall, 3)
        if cpu is not None and fake_cpu is not None and wall
        else None,
        "rss_start_mib": round(rss0 / 2**20, 1) if pid else None,
        "peak_rss_mib": round(rss.peak / 2**20, 1) if pid else None,
    }
    if fake_url and ok:
        fake = C.fake_times_by_tag(fake_url)
        added, overhead = [], []
        for t in ok:
            f = fake.get(t.tag)
            if f is None or not f.text_first or not t.first:
                continue
            added.append(C.ms(t.first - f.text_first))
            if f.tool_done:
                llm = (f.tool_done - f.tool_received) + (f.text_first - f.text_received)
                overhead.append(C.ms(t.first - t.sent - llm))
        out["matched_turns"] = len(added)
        out["added_ttft_ms"] = C.summary(added, 3)
        out["overhead_ms"] = C.summary(overhead, 3)
        if run.timed:
            server_gaps(out, ok, fake, token_ns)
    return out


def server_gaps(
    out: dict[str, Any], ok: list[Turn], fake: dict[str, C.FakeTimes], token_ns: float
) -> None:
    """``added_gap_ms`` against the fake's real write times (``C.added_gaps``)
    where a turn's frames match its tokens; the nominal figure (gap − ``--token-ms``) stays
    as ``added_gap_nominal_ms``, and turns that do not match are counted."""
    gaps: list[int] = []
    matched = 0
    for t in ok:
        f = fake.get(t.tag)
        got = C.added_gaps(t.frames or [], f.text_tokens) if f and t.frames else None
        if got is None:
            continue
        matched += 1
        gaps += got
    out["added_gap_nominal_ms"] = out["added_gap_ms"]
    out["gap_matched_turns"] = matched
    if matched:
        out["added_gap_ms"] = C.summary([C.ms(g) for g in gaps], 3)
        out["added_gap_basis"] = "fake writes"


async def run_idle(ns: argparse.Namespace, ws_url: str, pid: int | None) -> dict[str, Any]:
    """Open ``--idle`` connections (hello → ready each) and hold them."""
    limit = C.raise_nofile()
    sem = asyncio.Semaphore(ns.connect_concurrency)
    compression = not ns.no_compression
    # Warm the server's paths (first hello, first session write) before the baseline.
    warm = await asyncio.gather(*(open_session(ws_url, compression, sem) for _ in range(20)))
    for ws in warm:
        await ws.close()
    await asyncio.sleep(1.0)
    rss0 = C.tree_rss(pid) if pid else 0
    t0 = time.monotonic()
    results = await asyncio.gather(
        *(open_session(ws_url, compression, sem) for _ in range(ns.idle)), return_exceptions=True
    )
    open_s = time.monotonic() - t0
    conns = [r for r in results if isinstance(r, ClientConnection)]
    errors = Counter(type(r).__name__ for r in results if not isinstance(r, ClientConnection))
    await asyncio.sleep(ns.idle_settle)
    rss1 = C.tree_rss(pid) if pid else 0
    cpu0 = C.tree_cpu_s(pid) if pid else 0.0
    await asyncio.sleep(ns.idle_hold)
    cpu_hold = (C.tree_cpu_s(pid) - cpu0) if pid else None
    alive = sum(1 for c in conns if c.close_code is None)
    close_sem = asyncio.Semaphore(500)

    async def close(c: ClientConnection) -> None:
        async with close_sem:
            with contextlib.suppress(Exception):
                await c.close()

    await asyncio.gather(*(close(c) for c in conns))
    held = len(conns)
    return {
        "bench": "ws-idle",
        "requested": ns.idle,
        "connections": held,
        "alive_after_hold": alive,
        "errors": sum(errors.values()) + (held - alive),
        "error_kinds": dict(errors),
        "compression": compression,
        "open_s": round(open_s, 2),
        "connections_per_s": round(held / open_s, 1) if open_s else None,
        "rss_before_mib": round(rss0 / 2**20, 1) if pid else None,
        "rss_after_mib": round(rss1 / 2**20, 1) if pid else None,
        "rss_per_conn_kib": round((rss1 - rss0) / max(1, held) / 1024, 1) if pid else None,
        "idle_cpu_pct": round(100 * cpu_hold / ns.idle_hold, 2)
        if cpu_hold is not None and ns.idle_hold
        else None,
        "nofile_limit": limit,
    }


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--url", help="attach to this ws://…/ws (several: comma-separated) instead of starting one"
    )
    p.add_argument("--server-pid", type=int, help="with --url: the server's pid (CPU, RSS)")
    p.add_argument(
        "--other-server-pids",
        help="with several --url (comma-separated): the other servers' pids, CPU added",
    )
    p.add_argument(
        "--infra-pids", help="pids whose CPU is reported apart (PostgreSQL, Redis), comma-separated"
    )
    p.add_argument("--fake-url", help="with --url: the fake LLM's base URL (added times)")
    p.add_argument("--fake-pid", type=int, help="with --url: the fake LLM's pid (its CPU)")
    p.add_argument("--catalog", type=Path, help="a built catalog.db to copy (else built)")
    p.add_argument("--sessions", type=int, default=50)
    p.add_argument("--turns", type=int, default=20, help="measured turns per session")
    p.add_argument("--warmup", type=int, default=1, help="unmeasured turns per session first")
    p.add_argument("--tokens", type=int, default=60)
    p.add_argument("--first-token-ms", type=float, default=0.0)
    p.add_argument("--token-ms", type=float, default=0.0)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument(
        "--impl",
        choices=sorted(C.IMPLS),
        default="partchat",
        help="the server started: partchat, or the issue's plain-LangGraph baseline",
    )
    p.add_argument("--duration", type=float, default=60.0, help="cap on the measured phase (s)")
    p.add_argument("--turn-timeout", type=float, default=120.0)
    p.add_argument("--connect-concurrency", type=int, default=100)
    p.add_argument("--no-compression", action="store_true", help="no permessage-deflate")
    p.add_argument("--rate-limit", action="store_true", help="keep the per-connection limit")
    p.add_argument("--log-level", default="info", help="the started server's log level")
    p.add_argument("--idle", type=int, default=0, help="hold this many idle connections")
    p.add_argument("--idle-settle", type=float, default=2.0)
    p.add_argument("--idle-hold", type=float, default=5.0)
    p.add_argument("--profile", help="py-spy the server during the measured phase into this file")
    p.add_argument("--profile-rate", type=int, default=200)
    p.add_argument("--profile-native", action="store_true", help="--profile with C frames (slower)")
    p.add_argument("--no-uvloop", action="store_true")
    p.add_argument("--smoke", action="store_true", help="tiny counts, a few seconds")
    p.add_argument("--json", action="store_true", help="print JSON only")
    ns = p.parse_args(argv)
    if ns.smoke:
        ns.sessions, ns.turns, ns.tokens, ns.duration = min(ns.sessions, 4), 3, 20, 10.0
        ns.idle = min(ns.idle, 20)
        ns.idle_settle, ns.idle_hold = 0.3, 0.5
    return ns


async def _main(
    ns: argparse.Namespace,
    ws_url: str,
    pid: int | None,
    fake: str | None,
    fake_pid: int | None = None,
) -> Any:
    if ns.idle:
        return await run_idle(ns, ws_url, pid)
    return await run_turns(ns, ws_url, pid, fake, fake_pid)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ns = parse(argv)
    C.raise_nofile()
    if ns.url:
        result, loop = C.run_async(
            _main(ns, ns.url, ns.server_pid, ns.fake_url, ns.fake_pid),
            use_uvloop=not ns.no_uvloop,
        )
    else:
        with C.Stack(
            tokens=ns.tokens,
            first_token_ms=ns.first_token_ms,
            token_ms=ns.token_ms,
            workers=ns.workers,
            rate_limit=ns.rate_limit,
            log_level=ns.log_level,
            catalog=ns.catalog,
            command=C.IMPLS[ns.impl],
        ) as stack:
            result, loop = C.run_async(
                _main(
                    ns, stack.server.ws_url, stack.server.pid, stack.fake.base_url, stack.fake.pid
                ),
                use_uvloop=not ns.no_uvloop,
            )
    result["client_loop"] = loop
    if ns.profile and Path(ns.profile).exists():
        result["profile"] = C.profile_summary(Path(ns.profile))
        result["profile_file"] = str(ns.profile)
    print(C.dumps(result) if ns.json else report(result))
    return result


def report(r: dict[str, Any]) -> str:
    if r["bench"] == "ws-idle":
        return (
            f"idle: {r['connections']}/{r['requested']} connections held "
            f"({r['errors']} errors), RSS {r['rss_before_mib']} → {r['rss_after_mib']} MiB, "
            f"{r['rss_per_conn_kib']} KiB per connection, idle CPU {r['idle_cpu_pct']} %"
        )
    lines = [
        f"{r.get('bench')}: {r['sessions']} sessions, {r['turns']} turns, {r['errors']} errors, "
        f"{r['turns_per_s']} turns/s, server CPU {r['server_cpu_ms_per_turn']} ms/turn "
        f"(util {r['server_cpu_util']}), client CPU {r['client_cpu_ms_per_turn']} ms/turn, "
        f"fake LLM CPU {r.get('fake_cpu_ms_per_turn')} ms/turn, "
        f"machine util {r.get('machine_cpu_util')}, peak RSS {r['peak_rss_mib']} MiB"
    ]
    for key in (
        "ttft_ms",
        "added_ttft_ms",
        "overhead_ms",
        "gap_ms",
        "added_gap_ms",
        "added_gap_nominal_ms",
        "turn_ms",
    ):
        s = r.get(key)
        if s and s.get("n"):
            lines.append(
                f"  {key:<14} p50 {s['p50']:>9}  p90 {s['p90']:>9}  p99 {s['p99']:>9}  "
                f"max {s['max']:>9}  (n={s['n']})"
            )
    if r.get("profile"):
        lines.append(
            "  profile (self %): " + ", ".join(f"{k} {v}" for k, v in r["profile"]["self"][:10])
        )
    return "\n".join(lines)


if __name__ == "__main__":
    result = main(sys.argv[1:])
    sys.exit(0)
