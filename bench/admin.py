"""The operator's reads on a large session store: list (first page, a deep cursor page),
each filter, one session's detail, the stats and an export of a filtered set.

    .venv/bin/python bench/admin.py                    # 100,000 sessions in SQLite
    .venv/bin/python bench/admin.py --sessions 2000    # the smoke
    .venv/bin/python bench/admin.py --postgres DSN     # also into an empty PostgreSQL database

Sessions are generated straight into the database with bulk inserts (1-5 turns each,
0-3 tool calls a turn, some failed turns, tool errors, unknown numbers and ratings),
spread over the last 60 days. Each read is timed ``--repeat`` times through the store
(``SqliteStore``/``PostgresStore``, what the API calls); the figure is the median. The
baseline is the plain session lookup (``get_session``) in the same run: ratios against
it hold on a shared machine where absolute times do not.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "backend"))

from partchat.store import AdminFilters, AdminPage  # noqa: E402
from partchat.store.postgres import PostgresStore  # noqa: E402
from partchat.store.sqlite import SqliteStore  # noqa: E402
from partchat.store.sqlite.schema import TOOL_CALL_FIELDS  # noqa: E402

RESULTS = ROOT / "bench" / "results"
DAY = 86400.0
SPAN_DAYS = 60
SYMPTOMS = [
    "Ice maker not making ice",
    "Leaking",
    "Not cooling",
    "Noisy",
    "Will not start",
    "Not draining",
    "Not cleaning dishes properly",
    "Door latch failure",
]
TOOLS = ["search_parts", "get_part_details", "check_compatibility", "diagnose_repair"]
Store = SqliteStore | PostgresStore


def _id(rng: random.Random, prefix: str = "", n: int = 22) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
    return prefix + "".join(rng.choices(alphabet, k=n))


def generate(n: int, now: float, seed: int = 7) -> dict[str, list[tuple[Any, ...]]]:
    """Rows for every table, in the column order of the INSERTs below."""
    rng = random.Random(seed)
    rows: dict[str, list[tuple[Any, ...]]] = {
        "sessions": [],
        "turns": [],
        "messages": [],
        "tool_calls": [],
        "feedback": [],
    }
    for _ in range(n):
        sid = _id(rng)
        created = now - rng.random() * SPAN_DAYS * DAY
        t = created
        symptoms = rng.sample(SYMPTOMS, k=rng.choice((0, 0, 1, 1, 2)))
        context = {
            "productModel": f"WDT{rng.randint(100, 999)}SAEM1" if rng.random() < 0.5 else None,
            "partNumber": f"PS{rng.randint(10**7, 10**8)}" if rng.random() < 0.4 else None,
            "symptoms": symptoms,
            "applianceType": rng.choice(("refrigerator", "dishwasher", None)),
        }
        seq = 0
        for k in range(rng.randint(1, 5)):
            tid = _id(rng, "t_", 16)
            failed = rng.random() < 0.03
            status, reason = ("failed", "error") if failed else ("complete", "stop")
            first_token = rng.lognormvariate(5.5, 0.5)
            ended = t + first_token / 1000 + rng.random() * 3
            timings = {
                "queueMs": round(rng.random() * 2, 1),
                "firstTokenMs": round(first_token, 1),
                "llmMs": round(first_token * 1.5, 1),
                "toolsMs": round(rng.random() * 20, 1),
                "totalMs": round((ended - t) * 1000, 1),
            }
            rows["turns"].append(
                (
                    tid,
                    sid,
                    f"c{k}",
                    status,
                    reason,
                    t,
                    ended,
                    orjson.dumps(timings).decode(),
                    "gpt-4o-mini",
                    round(first_token, 1),
                )
            )
            seq += 1
            rows["messages"].append(
                (
                    _id(rng, "m_", 16),
                    sid,
                    tid,
                    "user",
                    f"question {k} about my fridge",
                    "complete",
                    None,
                    t,
                    seq,
                )
            )
            seq += 1
            answer_status = "failed" if failed else "complete"
            rows["messages"].append(
                (
                    _id(rng, "m_", 16),
                    sid,
                    tid,
                    "assistant",
                    "an answer " * 20,
                    answer_status,
                    None,
                    ended,
                    seq,
                )
            )
            for position in range(rng.choice((0, 1, 1, 2, 3))):
                name = rng.choice(TOOLS)
                ok = rng.random() > 0.04
                part = f"PS{rng.randint(10**7, 10**8)}"
                unknown_part = [part] if not ok and rng.random() < 0.5 else None
                unknown_model = (
                    [f"XYZ{rng.randint(1, 500)}"] if ok and rng.random() < 0.03 else None
                )
                result = {"ok": ok, "part": {"partNumber": part, "price": "$12.34"}}
                body = orjson.dumps(result).decode()
                rows["tool_calls"].append(
                    (
                        tid,
                        position,
                        sid,
                        _id(rng, "call_", 12),
                        1 + position // 2,
                        name,
                        orjson.dumps({"partNumber": part}).decode(),
                        1 if ok else 0,
                        None if ok else "unknown_part",
                        round(rng.random() * 5, 3),
                        len(body),
                        body,
                        orjson.dumps(unknown_part).decode() if unknown_part else None,
                        orjson.dumps(unknown_model).decode() if unknown_model else None,
                        t,
                    )
                )
            if rng.random() < 0.08:
                rating = "up" if rng.random() < 0.7 else "down"
                rows["feedback"].append((tid, sid, rating, None, ended, ended))
            t = ended + rng.random() * 120
        rows["sessions"].append((sid, created, t, orjson.dumps(context).decode(), seq, seq, 0))
    return rows


INSERTS = {
    "sessions": "INSERT INTO sessions (id, created_at, updated_at, context, last_seq,"
    " seq_reserved, version) VALUES (?, ?, ?, ?, ?, ?, ?)",
    "turns": "INSERT INTO turns (id, session_id, client_message_id, status, finish_reason,"
    " started_at, ended_at, timings, model, first_token_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "messages": "INSERT INTO messages (id, session_id, turn_id, role, text, status,"
    " tool_outputs, created_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "tool_calls": "INSERT INTO tool_calls (turn_id, position, session_id, tool_call_id, round,"
    " name, arguments, ok, error_code, duration_ms, result_bytes, result, unknown_parts,"
    " unknown_models, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "feedback": "INSERT INTO feedback (turn_id, session_id, rating, reason, created_at,"
    " updated_at) VALUES (?, ?, ?, ?, ?, ?)",
}


def load_sqlite(path: Path, rows: dict[str, list[tuple[Any, ...]]]) -> None:
    """Bulk insert (the schema is the store's: it was opened once before). The version
    triggers are dropped for the load and put back (they would touch each session per row)."""
    conn = sqlite3.connect(path)
    try:
        triggers = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"
        ).fetchall()
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("BEGIN")
        for name, _ in triggers:
            conn.execute(f"DROP TRIGGER {name}")
        for table, sql in INSERTS.items():
            conn.executemany(sql, rows[table])
        for _, sql in triggers:
            conn.execute(sql)
        conn.execute("COMMIT")
        conn.execute("ANALYZE")
    finally:
        conn.close()


async def load_postgres(dsn: str, rows: dict[str, list[tuple[Any, ...]]]) -> None:
    import asyncpg

    columns = {
        "sessions": [
            "id",
            "created_at",
            "updated_at",
            "context",
            "last_seq",
            "seq_reserved",
            "version",
        ],
        "turns": [
            "id",
            "session_id",
            "client_message_id",
            "status",
            "finish_reason",
            "started_at",
            "ended_at",
            "timings",
            "model",
            "first_token_ms",
        ],
        "messages": [
            "id",
            "session_id",
            "turn_id",
            "role",
            "text",
            "status",
            "tool_outputs",
            "created_at",
            "seq",
        ],
        "tool_calls": ["turn_id", "position", "session_id", *TOOL_CALL_FIELDS, "created_at"],
        "feedback": ["turn_id", "session_id", "rating", "reason", "created_at", "updated_at"],
    }
    conn = await asyncpg.connect(dsn)
    try:
        for table, names in columns.items():
            records = rows[table]
            if table == "tool_calls":
                records = [(*r[:7], bool(r[7]), *r[8:]) for r in records]
            await conn.copy_records_to_table(table, records=records, columns=names)
        await conn.execute("ANALYZE")
    finally:
        await conn.close()


async def timed(fn: Callable[[], Awaitable[Any]], repeat: int) -> dict[str, Any]:
    times = []
    result: Any = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = await fn()
        times.append((time.perf_counter() - t0) * 1000)
    return {
        "ms": round(statistics.median(times), 3),
        "min_ms": round(min(times), 3),
        "result": result,
    }


async def export(store: Store, filters: AdminFilters) -> int:
    """The API's export (pages of 200, then their details, as JSONL): bytes written."""
    size, after = 0, None
    while True:
        page = await store.admin_sessions(filters, limit=200, after=after)
        ids = [item["sessionId"] for item in page.items]
        for detail in await store.admin_details(ids):
            size += len(orjson.dumps(detail)) + 1
        if page.after is None:
            return size
        after = page.after


async def measure(
    store: Store, repeat: int, deep_key: tuple[float, str], sample_id: str
) -> dict[str, Any]:
    today = dt.datetime.now(dt.UTC).date()
    runs: dict[str, Callable[[], Awaitable[Any]]] = {
        "baseline_get_session": lambda: store.get_session(sample_id),
        "list_first_page": lambda: store.admin_sessions(AdminFilters(), limit=50),
        "list_deep_cursor_page": lambda: store.admin_sessions(
            AdminFilters(), limit=50, after=deep_key
        ),
        "filter_feedback_down": lambda: store.admin_sessions(
            AdminFilters(feedback="down"), limit=50
        ),
        "filter_feedback_up": lambda: store.admin_sessions(AdminFilters(feedback="up"), limit=50),
        "filter_errors": lambda: store.admin_sessions(AdminFilters(errors=True), limit=50),
        "filter_tool_errors": lambda: store.admin_sessions(
            AdminFilters(tool_errors=True), limit=50
        ),
        "filter_unknown": lambda: store.admin_sessions(AdminFilters(unknown=True), limit=50),
        "filter_symptom": lambda: store.admin_sessions(AdminFilters(symptom="Leaking"), limit=50),
        "filter_dates_7d": lambda: store.admin_sessions(
            AdminFilters(start=time.time() - 7 * DAY), limit=50
        ),
        "filter_all_combined": lambda: store.admin_sessions(
            AdminFilters(feedback="down", tool_errors=True, symptom="Leaking"), limit=50
        ),
        "detail": lambda: store.admin_details([sample_id]),
        "stats_30d": lambda: store.admin_stats(today - dt.timedelta(days=29), today),
    }
    out: dict[str, Any] = {}
    for name, fn in runs.items():
        r = await timed(fn, repeat)
        found = r.pop("result")
        if isinstance(found, AdminPage):
            r["items"] = len(found.items)
        out[name] = r
    r = await timed(lambda: export(store, AdminFilters(feedback="down")), max(1, repeat // 2))
    r["bytes"] = r.pop("result")
    out["export_feedback_down_jsonl"] = r
    base = out["baseline_get_session"]["ms"] or 1e-9
    for r in out.values():
        r["x_baseline"] = round(r["ms"] / base, 1)
    return out


async def run(ns: argparse.Namespace) -> dict[str, Any]:
    now = time.time()
    t0 = time.perf_counter()
    rows = generate(ns.sessions, now)
    generated_s = time.perf_counter() - t0
    counts = {k: len(v) for k, v in rows.items()}
    by_activity = sorted(rows["sessions"], key=lambda r: (r[2], r[0]), reverse=True)
    deep = by_activity[int(len(by_activity) * 0.9)]
    deep_key = (deep[2], deep[0])
    sample_id = rows["sessions"][len(rows["sessions"]) // 2][0]
    out: dict[str, Any] = {
        "sessions": ns.sessions,
        "rows": counts,
        "generate_s": round(generated_s, 2),
    }
    with tempfile.TemporaryDirectory(prefix="partchat-bench-admin-") as tmp:
        path = Path(tmp) / "sessions.db"
        store = await SqliteStore.open(path)
        await store.close()
        t0 = time.perf_counter()
        load_sqlite(path, rows)
        out["sqlite_load_s"] = round(time.perf_counter() - t0, 2)
        out["sqlite_bytes"] = path.stat().st_size
        store = await SqliteStore.open(path)
        try:
            out["sqlite"] = await measure(store, ns.repeat, deep_key, sample_id)
        finally:
            await store.close()
    if ns.postgres:
        store_pg = await PostgresStore.open(ns.postgres)
        try:
            t0 = time.perf_counter()
            await load_postgres(ns.postgres, rows)
            out["postgres_load_s"] = round(time.perf_counter() - t0, 2)
            out["postgres"] = await measure(store_pg, ns.repeat, deep_key, sample_id)
        finally:
            await store_pg.close()
    return out


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--sessions", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--postgres", help="DSN of an EMPTY database to load and measure too")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--no-save", action="store_true", help="do not write bench/results/")
    ns = p.parse_args()
    results = asyncio.run(run(ns))
    if not ns.no_save:
        RESULTS.mkdir(parents=True, exist_ok=True)
        day = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
        (RESULTS / f"admin-{day}-{ns.sessions}.json").write_bytes(
            orjson.dumps(results, option=orjson.OPT_INDENT_2)
        )
    if ns.json:
        print(orjson.dumps(results).decode())
    else:
        print(orjson.dumps(results, option=orjson.OPT_INDENT_2).decode())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
