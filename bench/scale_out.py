"""Scale-out: PostgreSQL + Redis with two servers against the SQLite default, one run.

    .venv/bin/python bench/scale_out.py                # 3 alternating rounds + a paced run
    .venv/bin/python bench/scale_out.py --smoke --json # seconds: CI keeps it working

Both set-ups run against the same fake OpenAI server (``tests/support/fake_llm.py``) on this
machine, through ``bench/load_ws.py`` attached to them:

- ``sqlite``: one ``partchat serve``, sessions in its ``sessions.db`` (the default);
- ``pg_redis``: two ``partchat serve`` with a data directory each, sessions in one
  throwaway PostgreSQL, the live log in one throwaway redis-server (both started here,
  as the tests start them: ``tests/support``), the sessions spread round robin.

Saturating (50 sessions, unpaced answers) the rounds alternate the two set-ups; reported
are each one's throughput, partchat's CPU per turn (the server processes) and
PostgreSQL's + Redis's apart, and the ratios pg_redis / sqlite (targets: throughput
≥ 0.6×, partchat CPU per turn ≤ 1.5×). Paced (50 sessions, 300 ms to the first token,
20 ms a token) the server-added TTFT and gap p99 of each (targets for pg_redis: added
TTFT p99 ≤ 10 ms and added gap p99 ≤ 5 ms over sqlite's). Then a resume probe: sessions
cut off from the server streaming their turn resume on the other one, and each must get
the rest exactly once.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.pg import PostgresServer
from tests.support.redis_server import RedisServer
from tests.support.servers import LOAD_ENV, FakeLLMProcess, ServerProcess
from tests.support.stores import create_database

from bench import common as C

LONG_Q = "The ice maker on my Whirlpool WRS325SDHZ stopped making ice"


def load(
    urls: list[str], pids: list[int], infra: list[int], fake: FakeLLMProcess, extra: list[str]
) -> dict[str, Any]:
    args = [
        C.PY,
        "bench/load_ws.py",
        "--url",
        ",".join(urls),
        "--server-pid",
        str(pids[0]),
        "--other-server-pids",
        ",".join(map(str, pids[1:])),
        "--infra-pids",
        ",".join(map(str, infra)),
        "--fake-url",
        fake.base_url,
        "--fake-pid",
        str(fake.proc.pid if fake.proc else 0),
        "--tokens",
        str(fake.tokens),
        "--first-token-ms",
        str(fake.first_token_ms),
        "--token-ms",
        str(fake.token_ms),
        *extra,
        "--json",
    ]
    p = subprocess.run(args, capture_output=True, text=True, timeout=900, cwd=C.ROOT)
    if p.returncode != 0:
        return {"failed": p.stderr[-2000:]}
    out = p.stdout
    data: dict[str, Any] = orjson.loads(out[out.find("{") :])
    return data


class Setups:
    """The two set-ups' servers, started and stopped around each measurement."""

    def __init__(self, tmp: Path, catalog: Path, pg: PostgresServer, redis: RedisServer) -> None:
        self.tmp, self.catalog, self.pg, self.redis = tmp, catalog, pg, redis
        self.n = 0

    def _data(self) -> Path:
        self.n += 1
        data = self.tmp / f"data-{self.n}"
        data.mkdir()
        shutil.copy2(self.catalog, data / "catalog.db")
        return data

    @contextlib.contextmanager
    def sqlite(self, fake: FakeLLMProcess) -> Iterator[tuple[list[ServerProcess], list[int]]]:
        server = ServerProcess(self._data(), dict(LOAD_ENV), llm_base_url=fake.base_url).start()
        try:
            yield [server], []
        finally:
            server.stop()

    @contextlib.contextmanager
    def pg_redis(self, fake: FakeLLMProcess) -> Iterator[tuple[list[ServerProcess], list[int]]]:
        dsn = asyncio.run(create_database(self.pg.dsn))
        env = {**LOAD_ENV, "PARTCHAT_DATABASE_URL": dsn, "PARTCHAT_REDIS_URL": self.redis.url}
        servers = [
            ServerProcess(self._data(), env, llm_base_url=fake.base_url).start() for _ in range(2)
        ]
        infra = [_postmaster_pid(self.pg)]
        if self.redis.proc is not None:
            infra.append(self.redis.proc.pid)
        try:
            yield servers, infra
        finally:
            for server in servers:
                server.stop()


def _postmaster_pid(pg: PostgresServer) -> int:
    return int((pg.data_dir / "postmaster.pid").read_text().split()[0])


def measure(setups: Setups, name: str, fake: FakeLLMProcess, extra: list[str]) -> dict[str, Any]:
    with getattr(setups, name)(fake) as (servers, infra):
        urls = [s.ws_url for s in servers]
        pids = [s.pid for s in servers if s.pid]
        load(urls, pids, infra, fake, ["--sessions", "4", "--turns", "2"])  # warm
        r = load(urls, pids, infra, fake, extra)
    print(
        f"  {name}: {r.get('turns')} turns, {r.get('errors')} errors, "
        f"{r.get('turns_per_s')} turns/s, {r.get('server_cpu_ms_per_turn')} ms CPU/turn"
        f" (+{r.get('infra_cpu_ms_per_turn')} PostgreSQL/Redis)",
        file=sys.stderr,
        flush=True,
    )
    return r


async def _probe_one(a: str, b: str) -> bool:
    """One turn streamed from ``a``, cut off, resumed on ``b``: exactly the rest?"""
    seen: list[dict[str, Any]] = []

    async def recv(ws: Any) -> dict[str, Any]:
        event: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if event["type"] == "error":
            raise RuntimeError(f"resume probe: {event}")
        return event

    async with websockets.connect(a, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "sessionId": None, "lastSeq": None}))
        ready = await recv(ws)
        message_id = f"probe-{time.monotonic_ns()}"
        await ws.send(json.dumps({"type": "message", "id": message_id, "text": LONG_Q}))
        while not any(e["type"] == "text-delta" for e in seen):
            seen.append(await recv(ws))
        ws.transport.abort()
    async with websockets.connect(b, max_size=2**22) as ws:
        hello = {"type": "hello", "sessionId": ready["sessionId"], "lastSeq": seen[-1]["seq"]}
        await ws.send(json.dumps(hello))
        while seen[-1]["type"] != "finish":
            event = await recv(ws)
            if event["type"] != "ready":
                seen.append(event)
    seqs = [e["seq"] for e in seen]
    text = "".join(e["delta"] for e in seen if e["type"] == "text-delta")
    return seqs == list(range(seqs[0], seqs[0] + len(seqs))) and text == seen[-1]["text"]


def probe(setups: Setups, fake: FakeLLMProcess, count: int) -> dict[str, Any]:
    with setups.pg_redis(fake) as (servers, _):
        urls = [s.ws_url for s in servers]

        async def run() -> list[bool]:
            return [await _probe_one(urls[i % 2], urls[1 - i % 2]) for i in range(count)]

        results = asyncio.run(run())
    return {"probes": count, "exact": sum(results)}


def ratios(sqlite: list[dict[str, Any]], pg: list[dict[str, Any]]) -> dict[str, Any]:
    def med(rs: list[dict[str, Any]], key: str) -> float:
        return statistics.median(r[key] for r in rs if r.get(key) is not None)

    return {
        "throughput": round(med(pg, "turns_per_s") / med(sqlite, "turns_per_s"), 3),
        "partchat_cpu_per_turn": round(
            med(pg, "server_cpu_ms_per_turn") / med(sqlite, "server_cpu_ms_per_turn"), 3
        ),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--json", action="store_true")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--catalog", type=Path, help="a built catalog.db (default: build one)")
    ns = p.parse_args(argv)
    C.raise_nofile()
    tmp = Path(tempfile.mkdtemp(prefix="partchat-scale-"))
    pg, redis = PostgresServer().start(), RedisServer().start()
    try:
        catalog = ns.catalog if ns.catalog and ns.catalog.exists() else C.build_catalog(tmp / "cat")
        if catalog.is_dir():
            catalog = catalog / "catalog.db"
        setups = Setups(tmp, catalog, pg, redis)
        rounds = 1 if ns.smoke else ns.rounds
        sat = ["--sessions", "4", "--turns", "3"] if ns.smoke else [
            "--sessions", "50", "--turns", "20", "--duration", "20"
        ]  # fmt: skip
        out: dict[str, Any] = {"bench": "scale-out", "smoke": ns.smoke}
        fast = FakeLLMProcess(tokens=60).start()
        try:
            print("saturating, alternating …", file=sys.stderr, flush=True)
            runs: dict[str, list[dict[str, Any]]] = {"sqlite": [], "pg_redis": []}
            for _ in range(rounds):
                for name in ("sqlite", "pg_redis"):
                    runs[name].append(measure(setups, name, fast, sat))
            out["saturating"] = runs
            out["ratios"] = ratios(runs["sqlite"], runs["pg_redis"])
        finally:
            fast.stop()
        paced_fake = FakeLLMProcess(tokens=20 if ns.smoke else 60, first_token_ms=300, token_ms=20)
        paced_fake.start()
        try:
            print("paced …", file=sys.stderr, flush=True)
            paced = ["--sessions", "4", "--turns", "2"] if ns.smoke else [
                "--sessions", "50", "--turns", "5", "--duration", "60"
            ]  # fmt: skip
            out["paced"] = {
                n: measure(setups, n, paced_fake, paced) for n in ("sqlite", "pg_redis")
            }
            print("resume probe …", file=sys.stderr, flush=True)
            out["resume"] = probe(setups, paced_fake, 4 if ns.smoke else 20)
        finally:
            paced_fake.stop()
        pr = out["paced"]
        out["added_p99_ms"] = {
            n: {
                "ttft": (pr[n].get("added_ttft_ms") or {}).get("p99"),
                "gap": (pr[n].get("added_gap_ms") or {}).get("p99"),
            }
            for n in pr
        }
    finally:
        redis.close()
        pg.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print(C.dumps(out) if ns.json else report(out))
    return out


def report(r: dict[str, Any]) -> str:
    lines = [f"scale-out ({'smoke' if r['smoke'] else 'full'})"]
    for name, rs in r["saturating"].items():
        lines.append(
            f"  {name:<9} turns/s {[x.get('turns_per_s') for x in rs]}  partchat CPU ms/turn "
            f"{[x.get('server_cpu_ms_per_turn') for x in rs]}  PostgreSQL+Redis "
            f"{[x.get('infra_cpu_ms_per_turn') for x in rs]}  errors {[x.get('errors') for x in rs]}"
        )
    lines.append(f"  ratios pg_redis/sqlite: {r['ratios']}")
    lines.append(f"  paced added p99 ms: {r['added_p99_ms']}")
    lines.append(f"  resume across servers: {r['resume']['exact']}/{r['resume']['probes']} exact")
    return "\n".join(lines)


if __name__ == "__main__":
    main(sys.argv[1:])
