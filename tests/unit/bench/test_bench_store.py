"""bench/bench_store.py: its baseline writes what the store writes, so the ratio is fair."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

from bench.bench_store import one_hop, per_statement, run

from partchat.sessions import SessionStore


def _counts(path: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(path) as conn:
        return list(
            conn.execute(
                "SELECT m.role, t.status, COUNT(*) FROM messages m JOIN turns t"
                " ON m.turn_id = t.id GROUP BY m.role, t.status ORDER BY m.role"
            )
        )


async def test_both_ways_store_the_same_rows() -> None:
    got = []
    for turn in (one_hop, per_statement):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.db"
            store = await SessionStore.open(path)
            session = await store.create_session()
            for n in range(1, 4):
                await turn(store, session, n)
            history = await store.history(session.id)
            await store.close()
            got.append(([(m["role"], m["text"]) for m in history], _counts(path)))
    assert got[0] == got[1]
    assert got[0][1] == [("assistant", "complete", 3), ("user", "complete", 3)]


async def test_the_store_benchmark_runs() -> None:
    r = await run(sessions=3, turns=2, rounds=1)
    cpu = r["cpu_ms_per_turn"]
    assert isinstance(cpu, dict) and cpu["one_hop"] > 0 and cpu["per_statement"] > 0
    assert r["ratio"] == round(cpu["per_statement"] / cpu["one_hop"], 2)
