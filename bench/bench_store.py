"""Session store cost per turn: one hop per transaction vs one hop per statement.

    python bench/bench_store.py            # 50 sessions x 40 turns, 3 rounds each way
    python bench/bench_store.py --quick    # ~1-second smoke
    python bench/bench_store.py --json     # machine-readable

A turn writes three transactions: ``begin_turn`` (the user message and a running turn),
``save_context`` (after extraction) and ``finish_turn`` (the answer, the turn closed, the
session's context and seq). ``one_hop`` is ``SessionStore`` as shipped: each transaction is
one function run on aiosqlite's thread. ``per_statement`` is the same SQL issued the way the
store did before, one ``await db.execute`` per statement inside ``_transaction()``: each
is a round trip to that thread (queue put, thread wake-up, loop wake-up). The figure is
process CPU (both threads) per turn with 50 sessions' turns in flight at once; the ratio
is per_statement / one_hop, measured in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "backend"))

from partchat.sessions import (  # noqa: E402
    _INSERT_MESSAGE,
    SessionRecord,
    SessionStore,
    empty_context,
    new_message_id,
    new_turn_id,
)

ANSWER = "The lower dishrack wheel PS3406971 fits your WDT780SAEM1. " * 6
OUTPUTS = [{"toolCallId": "c1", "toolName": "search_parts", "output": {"ok": True, "parts": []}}]
CONTEXT = json.dumps(empty_context())
TIMINGS = json.dumps({"ttft_ms": 1.0, "total_ms": 2.0})

Turn = Callable[[SessionStore, SessionRecord, int], Awaitable[None]]


async def one_hop(store: SessionStore, session: SessionRecord, n: int) -> None:
    begun = await store.begin_turn(session.id, f"c{n}", "Does it fit?", seq_reserved=n * 80)
    await store.save_context(session.id, empty_context())
    await store.finish_turn(
        begun.turn.id,
        text=ANSWER,
        status="complete",
        finish_reason="stop",
        tool_outputs=OUTPUTS,
        context=empty_context(),
        last_seq=n * 80 + 70,
        timings={"ttft_ms": 1.0, "total_ms": 2.0},
    )


async def per_statement(store: SessionStore, session: SessionRecord, n: int) -> None:
    """The same statements as ``one_hop``, each its own hop (the store before 2026-11-23)."""
    sid, now = session.id, time.time()
    turn_id, user_id, answer_id = new_turn_id(), new_message_id(), new_message_id()
    async with store._transaction() as db:
        await db.execute_fetchall(
            "SELECT id FROM turns WHERE session_id = ? AND client_message_id = ?", (sid, f"c{n}")
        )
        await db.execute_fetchall(
            "SELECT id FROM turns WHERE session_id = ? AND status = 'running'"
            " AND owner IS NOT NULL AND owner != ? LIMIT 1",
            (sid, "me"),
        )
        await db.execute(
            "UPDATE sessions SET seq_reserved = MAX(seq_reserved, ?), updated_at = ? WHERE id = ?",
            (n * 80, now, sid),
        )
        await db.execute(
            "INSERT INTO turns (id, session_id, client_message_id, status, started_at, owner)"
            " VALUES (?, ?, ?, 'running', ?, ?)",
            (turn_id, sid, f"c{n}", now, "me"),
        )
        await db.execute(
            _INSERT_MESSAGE,
            (user_id, sid, turn_id, "user", "Does it fit?", "complete", None, now, sid),
        )
    async with store._transaction() as db:
        await db.execute(
            "UPDATE sessions SET context = ?, updated_at = ? WHERE id = ?", (CONTEXT, now, sid)
        )
    async with store._transaction() as db:
        await db.execute_fetchall("SELECT session_id, status FROM turns WHERE id = ?", (turn_id,))
        await db.execute(
            _INSERT_MESSAGE,
            (
                answer_id,
                sid,
                turn_id,
                "assistant",
                ANSWER,
                "complete",
                json.dumps(OUTPUTS),
                now,
                sid,
            ),
        )
        await db.execute(
            "UPDATE turns SET status = 'complete', finish_reason = 'stop', ended_at = ?,"
            " timings = ? WHERE id = ?",
            (now, TIMINGS, turn_id),
        )
        await db.execute(
            "UPDATE sessions SET context = ?, last_seq = MAX(last_seq, ?), updated_at = ?"
            " WHERE id = ?",
            (CONTEXT, n * 80 + 70, now, sid),
        )


async def measure(turn: Turn, sessions: int, turns: int, rounds: int) -> list[float]:
    """CPU ms per turn for each round, in a fresh database."""
    with tempfile.TemporaryDirectory(prefix="partchat-bench-store-") as tmp:
        store = await SessionStore.open(Path(tmp) / "sessions.db")
        try:
            opened = [await store.create_session() for _ in range(sessions)]
            n = 0
            await asyncio.gather(*(turn(store, s, n) for s in opened))  # warm-up
            out = []
            for _ in range(rounds):
                cpu = time.process_time()
                for _ in range(turns):
                    n += 1
                    await asyncio.gather(*(turn(store, s, n) for s in opened))
                out.append((time.process_time() - cpu) * 1000 / (sessions * turns))
            return out
        finally:
            await store.close()


async def run(sessions: int, turns: int, rounds: int) -> dict[str, object]:
    results: dict[str, list[float]] = {"one_hop": [], "per_statement": []}
    for _ in range(rounds):  # alternate, so drift on a shared machine hits both
        results["per_statement"] += await measure(per_statement, sessions, turns, 1)
        results["one_hop"] += await measure(one_hop, sessions, turns, 1)
    med = {k: statistics.median(v) for k, v in results.items()}
    return {
        "bench": "store",
        "sessions": sessions,
        "turns_per_session": turns,
        "rounds": rounds,
        "cpu_ms_per_turn": {k: round(v, 3) for k, v in med.items()},
        "rounds_ms": {k: [round(x, 3) for x in v] for k, v in results.items()},
        "ratio": round(med["per_statement"] / med["one_hop"], 2),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sessions", type=int, default=50)
    p.add_argument("--turns", type=int, default=40)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="5 sessions x 4 turns, 1 round")
    p.add_argument("--json", action="store_true")
    ns = p.parse_args()
    if ns.quick:
        ns.sessions, ns.turns, ns.rounds = 5, 4, 1
    r = asyncio.run(run(ns.sessions, ns.turns, ns.rounds))
    if ns.json:
        print(json.dumps(r))
        return
    cpu = r["cpu_ms_per_turn"]
    assert isinstance(cpu, dict)
    print(f"store, {ns.sessions} sessions x {ns.turns} turns, median of {ns.rounds} rounds")
    print(f"  one hop per transaction : {cpu['one_hop']:.3f} ms CPU/turn")
    print(f"  one hop per statement   : {cpu['per_statement']:.3f} ms CPU/turn")
    print(f"  ratio                   : {r['ratio']}x")


if __name__ == "__main__":
    main()
