"""Catalog query benchmark: build time and p50/p99 latency of the hot queries.

    python bench/bench_catalog.py                # the real catalog (data/catalog/)
    python bench/bench_catalog.py --synthetic    # 100k parts, 50k models, 2M pairs
    python bench/bench_catalog.py --quick        # CI smoke: small synthetic, few seconds

Single process, warm (each query mix runs once before timing). Prints a table, or JSON
with --json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "backend"))
sys.path.insert(0, str(REPO / "bench"))

from catalog_synth import generate  # noqa: E402
from partchat.catalog import Catalog, build_catalog  # noqa: E402
from partchat.nlu.store import CATALOG_EXTENSION  # noqa: E402

REAL_SEARCHES = [
    "drain pump",
    "ice maker",
    "door gasket whirlpool",
    "water inlet valve",
    "W10195416",
    "door shelf bin",
    "spray arm",
    "lower dishrack wheel",
    "refrigerator water filter",
    "defrost heater",
    "PS11752778",
    "wheels",
]


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _time(
    fn: Callable[[Any], Awaitable[Any]], args: list[Any], rounds: int
) -> dict[str, float]:
    for a in args:  # warm
        await fn(a)
    samples: list[float] = []
    for _ in range(rounds):
        for a in args:
            t = time.perf_counter_ns()
            await fn(a)
            samples.append((time.perf_counter_ns() - t) / 1e6)
    return {
        "n": len(samples),
        "p50_ms": round(statistics.median(samples), 3),
        "p99_ms": round(_pct(samples, 0.99), 3),
        "max_ms": round(max(samples), 3),
    }


async def run_queries(db: Path, rounds: int, seed: int = 1) -> dict[str, dict[str, float]]:
    rng = random.Random(seed)
    cat = await Catalog.open(db, cache_entries=0)  # time the queries, not the cache
    try:
        parts = [
            r[0] for r in await cat._rows("SELECT ps_number FROM parts ORDER BY random() LIMIT 200")
        ]
        mfrs = [
            r[0]
            for r in await cat._rows(
                "SELECT mfr_number FROM parts WHERE mfr_number IS NOT NULL "
                "ORDER BY random() LIMIT 100"
            )
        ]
        pairs = [
            tuple(r)
            for r in await cat._rows(
                "SELECT p.ps_number, m.model_number FROM compat c JOIN parts p ON p.id = c.part_id "
                "JOIN models m ON m.id = c.model_id ORDER BY random() LIMIT 100"
            )
        ]
        models = [
            r[0]
            for r in await cat._rows(
                "SELECT model_number FROM models WHERE part_count > 0 ORDER BY random() LIMIT 100"
            )
        ]
        syms = await cat.symptoms()
        types = [
            r[0]
            for r in await cat._rows(
                "SELECT DISTINCT part_type FROM parts WHERE part_type IS NOT NULL LIMIT 60"
            )
        ]
        searches = REAL_SEARCHES + [t.lower() for t in types[:30]] + mfrs[:20]
        compat_args = list(pairs) + [(rng.choice(parts), rng.choice(models)) for _ in range(100)]
        diag_args = [
            (s["appliance"], [rng.choice(s["synonyms"])], rng.choice(models) if i % 2 else None)
            for i, s in enumerate(syms * 3)
        ]
        model_args = (
            models[:50] + [m[:-1] for m in models[:25]] + [m[:3] + m[4:] for m in models[:25]]
        )
        out = {
            "search": await _time(lambda q: cat.search(q), searches, rounds),
            "search_model": await _time(
                lambda a: cat.search(a[0], model=a[1]),
                [(rng.choice(searches), rng.choice(models)) for _ in range(50)],
                rounds,
            ),
            "compatibility": await _time(lambda a: cat.compatibility(*a), compat_args, rounds),
            "diagnose": await _time(
                lambda a: cat.diagnose(a[0], a[1], model=a[2]), diag_args, rounds
            ),
            "get_part": await _time(lambda n: cat.get_part(n), parts + mfrs, rounds),
            "find_model": await _time(lambda m: cat.find_model(m), model_args, rounds),
            "match_symptoms": await _time(
                lambda t: cat.match_symptoms(t),
                [
                    "my fridge is not cold and the ice maker stopped working",
                    "dishwasher won't drain, water sitting in the bottom",
                    "hello",
                ],
                rounds,
            ),
        }
        return out
    finally:
        await cat.close()


def main() -> int:
    ap = argparse.ArgumentParser(description="catalog benchmark")
    ap.add_argument("--synthetic", action="store_true", help="100k parts / 50k models / 2M pairs")
    ap.add_argument("--quick", action="store_true", help="small and fast (CI smoke)")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--db", type=Path, default=None, help="query an already built catalog.db")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rounds = args.rounds or (2 if args.quick else 20)
    result: dict[str, Any] = {}
    if args.db is not None:
        result["queries"] = asyncio.run(run_queries(args.db, rounds))
        print(json.dumps(result, indent=2))
        return 0
    with tempfile.TemporaryDirectory(prefix="catalog-bench-") as tmp:
        tmpdir = Path(tmp)
        source = REPO / "data" / "catalog"
        if args.synthetic or args.quick:
            size = (10_000, 5_000, 100_000) if args.quick else (100_000, 50_000, 2_000_000)
            t = time.perf_counter()
            result["generated"] = generate(tmpdir / "data", *size)
            result["generate_s"] = round(time.perf_counter() - t, 2)
            source = tmpdir / "data"
        t = time.perf_counter()
        stats = build_catalog(source, tmpdir / "catalog.db", extension=CATALOG_EXTENSION)
        result["build_s"] = round(time.perf_counter() - t, 2)
        result["db_mb"] = round((tmpdir / "catalog.db").stat().st_size / 1e6, 1)
        result["stats"] = {k: v for k, v in stats.items() if k != "by_appliance"}
        result["queries"] = asyncio.run(run_queries(tmpdir / "catalog.db", rounds))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    kind = "quick synthetic" if args.quick else ("synthetic" if args.synthetic else "real")
    print(f"catalog: {kind}  {result['stats']}")
    if "generate_s" in result:
        print(f"generate: {result['generate_s']} s")
    print(f"build: {result['build_s']} s  ({result['db_mb']} MB)")
    print(f"{'query':<16}{'n':>7}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}")
    for name, q in result["queries"].items():
        print(f"{name:<16}{q['n']:>7}{q['p50_ms']:>10}{q['p99_ms']:>10}{q['max_ms']:>10}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
