"""``partchat chat``: the terminal client answers through the real turn engine."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(90)


def test_partchat_chat_greets_and_answers(tmp_path: Path, catalog_db: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(catalog_db, data / "catalog.db")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PARTCHAT_"))}
    env.update(PARTCHAT_DATA_DIR=str(data), PARTCHAT_LLM="offline")
    proc = subprocess.run(
        [sys.executable, "-m", "partchat.cli", "chat"],
        input="Hi\nDoes PS11753379 fit my WDT780SAEM1?\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Hi! I'm the parts assistant" in proc.stdout
    assert "Yes! The **Dishwasher Drain Pump** (PS11753379) fits" in proc.stdout
    assert (data / "sessions.db").exists()
