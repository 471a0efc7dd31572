"""HTTP load generator: N concurrent sessions x T turns of ``POST /api/chat`` (the Node
original's contract: ``{message, sessionId?}`` → ``{message, sessionId, toolData}``).

    .venv/bin/python bench/load_http.py --sessions 50 --turns 20
    .venv/bin/python bench/load_http.py --smoke --json

Same set-up, phases and figures as ``load_ws.py`` (see its docstring), with an
``httpx.AsyncClient`` (one pooled client, a keep-alive connection per session). The answer
is not streamed, so the client's "first token" is the whole response: ``ttft`` is the
response time, ``added ttft`` is response received − the fake's last byte of the turn's
answer request, ``overhead`` is the response time − the fake's own time in both requests.
There are no inter-token gaps.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
import orjson

import common as C


@dataclass(slots=True)
class Turn:
    tag: str
    sent: int
    end: int = 0
    ok: bool = False
    error: str | None = None


class Run:
    def __init__(self, sessions: int) -> None:
        self.sessions = sessions
        self.turns: list[Turn] = []
        self.errors: Counter[str] = Counter()
        self.next_tag = 0
        self.warm = 0
        self.all_warm = asyncio.Event()
        self.go = asyncio.Event()
        self.deadline = float("inf")

    def new_tag(self) -> str:
        self.next_tag += 1
        return C.tag(self.next_tag)


async def one_turn(
    client: httpx.AsyncClient, url: str, run: Run, session_id: list[str | None]
) -> Turn:
    tag = run.new_tag()
    body: dict[str, Any] = {"message": C.TEXT.format(tag=tag)}
    if session_id[0]:
        body["sessionId"] = session_id[0]
    turn = Turn(tag, time.monotonic_ns())
    try:
        r = await client.post(
            url, content=orjson.dumps(body), headers={"content-type": "application/json"}
        )
        turn.end = time.monotonic_ns()
        if r.status_code != 200:
            turn.error = f"http:{r.status_code}"
            return turn
        data = orjson.loads(r.content)
        session_id[0] = data.get("sessionId")
        status = data.get("status")
        turn.ok = status == "complete" and bool(data.get("message"))
        if not turn.ok:
            turn.error = f"status:{status}"
    except httpx.HTTPError as exc:
        turn.end = time.monotonic_ns()
        turn.error = f"transport:{type(exc).__name__}"
    return turn


async def session(client: httpx.AsyncClient, url: str, ns: argparse.Namespace, run: Run) -> None:
    sid: list[str | None] = [None]
    ready = True
    try:
        for _ in range(ns.warmup):
            t = await one_turn(client, url, run, sid)
            if t.error:
                run.errors[f"warmup:{t.error}"] += 1
                ready = False
                break
    finally:
        run.warm += 1
        if run.warm >= run.sessions:
            run.all_warm.set()
    if not ready:
        return
    await run.go.wait()
    for _ in range(ns.turns):
        if time.monotonic() >= run.deadline:
            break
        t = await one_turn(client, url, run, sid)
        run.turns.append(t)
        if t.error:
            run.errors[t.error] += 1


async def run_turns(
    ns: argparse.Namespace, base_url: str, pid: int | None, fake_url: str | None
) -> dict[str, Any]:
    run = Run(ns.sessions)
    url = base_url.rstrip("/") + "/api/chat"
    limits = httpx.Limits(max_connections=ns.sessions, max_keepalive_connections=ns.sessions)
    async with httpx.AsyncClient(limits=limits, timeout=ns.turn_timeout, trust_env=False) as client:
        tasks = [asyncio.create_task(session(client, url, ns, run)) for _ in range(ns.sessions)]
        await run.all_warm.wait()
        await asyncio.sleep(0.2)
        if fake_url:
            C.http_post(C.fake_root(fake_url) + "/_fake/reset")
        warm_errors = sum(run.errors.values())
        cpu0 = C.tree_cpu_s(pid) if pid else 0.0
        rss0 = C.tree_rss(pid) if pid else 0
        c0 = time.process_time()
        with C.RssSampler(pid) as rss, C.no_gc():
            t0 = time.monotonic()
            run.deadline = t0 + ns.duration
            run.go.set()
            await asyncio.gather(*tasks)
            wall = time.monotonic() - t0
        client_cpu = time.process_time() - c0
        cpu = (C.tree_cpu_s(pid) - cpu0) if pid else None

    ok = [t for t in run.turns if t.ok]
    out: dict[str, Any] = {
        "bench": "http",
        "sessions": ns.sessions,
        "turns_per_session": ns.turns,
        "tokens": ns.tokens,
        "first_token_ms": ns.first_token_ms,
        "token_ms": ns.token_ms,
        "workers": ns.workers,
        "turns": len(ok),
        "errors": sum(run.errors.values()),
        "warmup_errors": warm_errors,
        "error_kinds": dict(run.errors),
        "wall_s": round(wall, 3),
        "turns_per_s": round(len(ok) / wall, 1) if wall > 0 else 0.0,
        "ttft_ms": C.summary([C.ms(t.end - t.sent) for t in ok]),
        "turn_ms": C.summary([C.ms(t.end - t.sent) for t in ok]),
        "server_cpu_ms_per_turn": round(cpu * 1000 / len(ok), 3)
        if cpu is not None and ok
        else None,
        "server_cpu_util": round(cpu / wall, 3) if cpu is not None and wall else None,
        "client_cpu_ms_per_turn": round(client_cpu * 1000 / len(ok), 3) if ok else None,
        "rss_start_mib": round(rss0 / 2**20, 1) if pid else None,
        "peak_rss_mib": round(rss.peak / 2**20, 1) if pid else None,
    }
    if fake_url and ok:
        fake = C.fake_times_by_tag(fake_url)
        added, overhead = [], []
        for t in ok:
            f = fake.get(t.tag)
            if f is None or not f.text_done:
                continue
            added.append(C.ms(t.end - f.text_done))
            if f.tool_done:
                llm = (f.tool_done - f.tool_received) + (f.text_done - f.text_received)
                overhead.append(C.ms(t.end - t.sent - llm))
        out["matched_turns"] = len(added)
        out["added_ttft_ms"] = C.summary(added, 3)
        out["overhead_ms"] = C.summary(overhead, 3)
    return out


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--url", help="attach to this http://host:port instead of starting a server")
    p.add_argument("--server-pid", type=int, help="with --url: the server's pid (CPU, RSS)")
    p.add_argument("--fake-url", help="with --url: the fake LLM's base URL (added times)")
    p.add_argument("--catalog", type=Path, help="a built catalog.db to copy (else built)")
    p.add_argument("--sessions", type=int, default=50)
    p.add_argument("--turns", type=int, default=20)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--tokens", type=int, default=60)
    p.add_argument("--first-token-ms", type=float, default=0.0)
    p.add_argument("--token-ms", type=float, default=0.0)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--turn-timeout", type=float, default=120.0)
    p.add_argument("--log-level", default="info")
    p.add_argument("--no-uvloop", action="store_true")
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--json", action="store_true")
    ns = p.parse_args(argv)
    if ns.smoke:
        ns.sessions, ns.turns, ns.tokens, ns.duration = min(ns.sessions, 4), 3, 20, 10.0
    return ns


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ns = parse(argv)
    C.raise_nofile()
    if ns.url:
        result, loop = C.run_async(
            run_turns(ns, ns.url, ns.server_pid, ns.fake_url), use_uvloop=not ns.no_uvloop
        )
    else:
        with C.Stack(
            tokens=ns.tokens,
            first_token_ms=ns.first_token_ms,
            token_ms=ns.token_ms,
            workers=ns.workers,
            log_level=ns.log_level,
            catalog=ns.catalog,
        ) as stack:
            result, loop = C.run_async(
                run_turns(ns, stack.server.base_url, stack.server.pid, stack.fake.base_url),
                use_uvloop=not ns.no_uvloop,
            )
    result["client_loop"] = loop
    if ns.json:
        print(C.dumps(result))
    else:
        from load_ws import report

        print(report(result))
    return result


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main(sys.argv[1:])
