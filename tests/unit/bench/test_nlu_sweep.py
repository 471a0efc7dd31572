"""``bench/nlu_sweep.py``: its smoke run sweeps four lists and four parts and tallies
every turn."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.timeout(300)
def test_the_sweep_smoke_tallies_each_kind_of_turn(catalog_db: Path) -> None:
    out = subprocess.run(
        [sys.executable, "bench/nlu_sweep.py", "--catalog", str(catalog_db), "--smoke", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )
    figures = json.loads(out.stdout)
    assert figures["situations"] == 8  # four lists, four parts by number
    kinds = figures["by_kind"]
    assert {"diagnose open", "search open", "search place", "number fit"} <= set(kinds)
    assert figures["turns"] == sum(k["turns"] for k in kinds.values()) > 20
    assert all(0 <= k["right"] <= k["turns"] for k in kinds.values())
    assert len(figures["wrong"]) == figures["turns"] - figures["right"]
