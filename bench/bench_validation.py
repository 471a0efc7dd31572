"""Tool input validation overhead: µs per call (median, p99) for every tool.

    python bench/bench_validation.py            # 20,000 timed calls per case
    python bench/bench_validation.py --quick    # ~2-second smoke
    python bench/bench_validation.py --json     # machine-readable

Cases per tool: its typical valid input and a typical invalid one (the invalid path builds
the ``[{path, message}]`` errors too). Columns:

- ``validate_input``: what ``Toolbox.call`` pays before the implementation runs
  (normalisation + the fast pre-check, falling back to jsonschema for the errors);
- ``jsonschema``: normalisation + ``is_valid`` on the compiled Draft 2020-12 validator
  alone, the path before the fast pre-check existed (for comparison);
- ``call``: a whole ``Toolbox.call`` around a no-op implementation (validation, timeout
  scope, dispatch), awaited on a running event loop.

Target: ≤ 50 µs median for valid input. Single process, warm (every case runs before
timing).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "backend"))

from partchat.toolbox.contracts import load_contracts  # noqa: E402
from partchat.toolbox.dispatch import Toolbox  # noqa: E402
from partchat.toolbox.validation import normalise  # noqa: E402

TARGET_US = 50.0

VALID: dict[str, dict[str, Any]] = {
    "search_parts": {"query": "ice maker assembly", "model": "wrs325sdhz", "limit": 5},
    "check_compatibility": {"partNumber": "PS3406971", "model": "WDT780SAEM1"},
    "diagnose_repair": {
        "symptoms": ["not draining", "leaking"],
        "model": "WDT780SAEM1",
        "appliance": "Dishwasher",
    },
    "get_installation_instructions": {"partNumber": " ps11752778 ", "model": "WDT780SAEM1"},
    "get_part_details": {"partNumber": "PS3406971"},
    "extract_information": {
        "text": "Hi, my Whirlpool dishwasher WDT780SAEM1 is not draining and the lower rack "
        "wheel PS3406971 broke. Can you help?"
    },
}
INVALID: dict[str, Any] = {
    "search_parts": {"query": "", "limit": "5"},
    "check_compatibility": {"partNumber": 3406971},
    "diagnose_repair": {"symptoms": "not draining", "appliance": "oven"},
    "get_installation_instructions": {"partNumber": "PS 34#06", "colour": "red"},
    "get_part_details": None,
    "extract_information": {"text": "x" * 10_000},
}


def _time(fn: Callable[[], Any], n: int) -> list[float]:
    clock = time.perf_counter_ns
    out = []
    for _ in range(n):
        start = clock()
        fn()
        out.append((clock() - start) / 1000)
    return out


async def _time_async(fn: Callable[[], Any], n: int) -> list[float]:
    clock = time.perf_counter_ns
    out = []
    for _ in range(n):
        start = clock()
        await fn()
        out.append((clock() - start) / 1000)
    return out


def _stats(samples: list[float]) -> dict[str, float]:
    samples = sorted(samples)
    return {
        "median": round(statistics.median(samples), 2),
        "p99": round(samples[min(len(samples) - 1, int(len(samples) * 0.99))], 2),
    }


async def _noop(catalog: Any, args: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True}


async def run(n: int) -> list[dict[str, Any]]:
    contracts, registry = load_contracts()
    noops = dict.fromkeys(contracts, _noop)
    box = Toolbox(object(), contracts, registry, noops)  # type: ignore[arg-type]
    rows = []
    for name in sorted(contracts):
        plain = box._input[name]
        for kind, args in (("valid", VALID[name]), ("invalid", INVALID[name])):
            _, errors = box.validate_input(name, args)
            assert (not errors) == (kind == "valid"), (name, kind, errors)

            def validate(name: str = name, args: Any = args) -> Any:
                return box.validate_input(name, args)

            def schema_only(args: Any = args, plain: Any = plain) -> Any:
                return plain.is_valid(normalise(args))

            def call(name: str = name, args: Any = args) -> Any:
                return box.call(name, args)

            for fn in (validate, schema_only):  # warm
                _time(fn, 50)
            await _time_async(call, 50)
            rows.append(
                {
                    "tool": name,
                    "input": kind,
                    "validate_input": _stats(_time(validate, n)),
                    "jsonschema": _stats(_time(schema_only, n)),
                    "call": _stats(await _time_async(call, n)),
                }
            )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="~2-second smoke")
    ap.add_argument("-n", type=int, default=0, help="timed calls per case")
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args()
    n = args.n or (1_500 if args.quick else 20_000)
    started = time.perf_counter()
    rows = asyncio.run(run(n))
    elapsed = time.perf_counter() - started
    over = [r for r in rows if r["input"] == "valid" and r["validate_input"]["median"] > TARGET_US]
    if args.json:
        print(json.dumps({"n": n, "seconds": round(elapsed, 2), "rows": rows}, indent=2))
    else:
        print(f"µs per call, {n:,} calls per case, Python {sys.version.split()[0]}\n")
        print(
            "| tool | input | validate_input p50 | p99 | jsonschema p50 | p99 "
            "| call p50 | p99 |\n| --- | --- | --- | --- | --- | --- | --- | --- |"
        )
        for r in rows:
            v, j, c = r["validate_input"], r["jsonschema"], r["call"]
            print(
                f"| {r['tool']} | {r['input']} | {v['median']} | {v['p99']} | {j['median']} "
                f"| {j['p99']} | {c['median']} | {c['p99']} |"
            )
        print(
            f"\n{elapsed:.1f} s; target ≤ {TARGET_US:g} µs median for valid input: "
            + ("met" if not over else f"MISSED by {', '.join(r['tool'] for r in over)}")
        )
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
