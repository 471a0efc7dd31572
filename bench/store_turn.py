"""A turn's SQLite store work alone: CPU per turn of N sessions' turns run at once.

    python bench/store_turn.py                 # 50 sessions x 40 turns, 5 alternating rounds
    python bench/store_turn.py --rounds 3 --json

Two ways of storing a turn, alternated in each round (the order swapped every round):

- ``checked``: what the turn engine does, ``begin_turn(only_at_version=…)`` (the begin
  checks the hub is current in its own statement) then ``finish_turn``: 2 hops to
  aiosqlite's thread;
- ``read-first``: ``data_version()`` read before a plain ``begin_turn``, then
  ``finish_turn``: 3 hops (the engine's way before the begin checked the version).

CPU is the process's (the loop and aiosqlite's thread) over the timed turns, after two
warm-up turns per session, on a fresh ``sessions.db`` per run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from partchat.store import empty_context
from partchat.store.sqlite import SqliteStore

MODES = ("checked", "read-first")
TOOL_OUTPUTS = [
    {
        "toolCallId": "call_1",
        "toolName": "search_parts",
        "output": {
            "ok": True,
            "parts": [{"partNumber": f"PS{n}", "title": "a part"} for n in range(5)],
        },
    }
]


async def _turns(
    store: SqliteStore, session_id: str, version: int | None, mode: str, n: int
) -> int | None:
    for i in range(n):
        if mode == "read-first":
            await store.data_version()
            only_at = None
        else:
            only_at = version
        begun = await store.begin_turn(
            session_id,
            f"c{i}",
            "the ice maker on my fridge stopped making ice",
            seq_reserved=100_000 + 10 * i,
            owner="w_bench",
            expect_version=version,
            only_at_version=only_at,
        )
        finished = await store.finish_turn(
            begun.turn.id,
            text="an answer of a few words " * 10,
            status="complete",
            finish_reason="stop",
            tool_outputs=TOOL_OUTPUTS,
            context=empty_context(),
            last_seq=10 * i + 6,
            timings={"totalMs": 12.0},
            expect_version=begun.session_version,
        )
        version = finished.session_version
    return version


async def run(mode: str, sessions: int, turns: int) -> float:
    """CPU ms per turn of ``sessions`` sessions running ``turns`` turns each at once."""
    with tempfile.TemporaryDirectory() as tmp:
        store = await SqliteStore.open(Path(tmp) / "sessions.db")
        try:
            records = [await store.create_session() for _ in range(sessions)]
            versions: dict[str, int | None] = {r.id: r.version for r in records}

            async def session(sid: str, n: int) -> None:
                versions[sid] = await _turns(store, sid, versions[sid], mode, n)

            await asyncio.gather(*(session(r.id, 2) for r in records))  # warm-up
            started = time.process_time()
            await asyncio.gather(*(session(r.id, turns) for r in records))
            cpu = time.process_time() - started
        finally:
            await store.close()
    return cpu / (sessions * turns) * 1000


async def main(args: argparse.Namespace) -> dict[str, Any]:
    runs: dict[str, list[float]] = {m: [] for m in MODES}
    for r in range(args.rounds):
        for mode in MODES if r % 2 == 0 else MODES[::-1]:
            runs[mode].append(round(await run(mode, args.sessions, args.turns), 4))
    return {
        "sessions": args.sessions,
        "turns": args.turns,
        "cpu_ms_per_turn": runs,
        "median_ms": {m: statistics.median(v) for m, v in runs.items()},
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    ns = parser.parse_args(sys.argv[1:])
    try:
        import uvloop

        result = uvloop.run(main(ns))
    except ImportError:
        result = asyncio.run(main(ns))
    if ns.json:
        print(json.dumps(result))
    else:
        for mode in MODES:
            print(
                f"{mode:>10}: {result['median_ms'][mode]:.3f} ms/turn median of {result['cpu_ms_per_turn'][mode]}"
            )
