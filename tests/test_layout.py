"""The code's layout: the backend's packages import down their layers (the contracts in
pyproject.toml, run by import-linter), every package has its layer; tests import test
support, never the benchmarks (whose own tests may import the benchmark they test)."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
PACKAGE = ROOT / "backend" / "partchat"
LINT_IMPORTS = (
    "import sys; from importlinter.cli import lint_imports; "
    "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))"
)
BENCH_SUBJECTS = ("bench/", "unit/bench/", "unit/toolbox/test_bench_smoke.py")


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


def test_imports_point_down_the_layers() -> None:
    """An upward import or a cycle breaks a contract; the report names the import.

    In a child process: import-linter configures logging with ``dictConfig``, which
    disables every logger already made (the app's, in this test process)."""
    run = subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def test_every_module_of_the_package_root_has_a_layer() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["id"] == "layers")["layers"]
    placed = {name.strip() for layer in layers for name in layer.split("|")}
    found = {f"partchat.{p.parent.name}" for p in PACKAGE.glob("*/__init__.py")}
    found |= {f"partchat.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    assert found == placed, "a new root module or package goes into a layer in pyproject.toml"
