"""bench/bench_validation.py runs and times every tool's valid and invalid case."""

from __future__ import annotations

from bench.bench_validation import INVALID, VALID, run

from partchat.toolbox.impls import IMPLEMENTATIONS


async def test_the_validation_benchmark_runs() -> None:
    assert set(VALID) == set(INVALID) == set(IMPLEMENTATIONS)
    rows = await run(20)
    assert len(rows) == 2 * len(IMPLEMENTATIONS)
    for row in rows:
        for column in ("validate_input", "jsonschema", "call"):
            assert 0 < row[column]["median"] <= row[column]["p99"]
