"""``bench/nlu_sweep.py``: its smoke run sweeps four lists, four parts and the model given
after each diagnosis, and tallies every turn."""

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
    # four lists (two diagnoses, two searches), four parts by number, and the model given
    # after each of the two diagnoses
    assert figures["situations"] == 10
    kinds = figures["by_kind"]
    assert {"diagnose open", "search open", "search place", "number fit"} <= set(kinds)
    assert {"model given open", "model given model"} <= set(kinds)
    assert figures["turns"] == sum(k["turns"] for k in kinds.values()) > 20
    assert all(0 <= k["right"] <= k["turns"] for k in kinds.values())
    assert len(figures["wrong"]) == figures["turns"] - figures["right"]
