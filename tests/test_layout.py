"""The test tree's layout: tests import test support, never the benchmarks (whose own
tests may import the benchmark they test)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
BENCH_SUBJECTS = ("bench/", "unit/bench/", "unit/tools/test_bench_smoke.py")


def bench_imports(source: str) -> list[str]:
    """The modules of ``bench`` that ``source`` imports."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "bench"]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found += [node.module] if node.module.split(".")[0] == "bench" else []
    return found


def test_bench_imports_are_found() -> None:
    source = "import bench.common\nfrom bench import load_ws\nfrom bench.fake_llm import X\n"
    assert bench_imports(source) == ["bench.common", "bench", "bench.fake_llm"]
    assert bench_imports("from tests.support import servers\nimport benchmark\n") == []


def test_no_test_imports_the_benchmarks() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        rel = path.relative_to(TESTS).as_posix()
        if rel.startswith(BENCH_SUBJECTS):
            continue
        offenders += [f"{rel}: {m}" for m in bench_imports(path.read_text())]
    assert offenders == [], "test support lives in tests/support/, not bench/"
