"""``pip install .`` (not editable), then ``partchat serve`` from another directory: all the
server reads at run time (contracts, catalog data, protocol schema, frontend) ships in
the wheel."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import time
import venv
import zipfile
from pathlib import Path

import httpx
import pytest

from tests.support.servers import REPO, free_port

pytestmark = pytest.mark.slow


def test_wheel_install_serves_from_another_directory(tmp_path: Path) -> None:
    if not (REPO / "backend/partchat/static/index.html").exists():
        pytest.fail("the frontend is not built: run `make test` (it builds it first)")
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(REPO), "-w", str(wheels)],
        check=True,
        cwd=tmp_path,
    )
    wheel = next(wheels.glob("partchat-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    # the developer ETL (raw sources -> data/catalog/) stays in the checkout
    assert not [n for n in names if n.startswith("scripts/") or "importer" in n]
    vocab = (
        "part_types",
        "symptom_vocabulary",
        "guide_type_overrides",
        "appliance_words",
        "brand_words",
    )
    assert {f"partchat/catalog_data/{v}.json" for v in vocab} <= names
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    target = next((env_dir / "lib").glob("python3*/site-packages"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
    )
    # The dependencies come from the test venv, appended after the wheel's own package
    # (a plain path line in a .pth: the test venv's editable-install hook is not loaded).
    (target / "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    port = free_port()
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PARTCHAT_", "OPENAI_"))}
    env.update({"PARTCHAT_PORT": str(port), "PARTCHAT_DATA_DIR": str(workdir / "var")})
    python = env_dir / "bin" / "python"
    proc = subprocess.Popen(
        [str(python), "-c", "from partchat.cli import main; raise SystemExit(main(['serve']))"],
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        # a first start in an empty data directory builds the catalog and fits the model
        # (49 s alone on a slow host, more beside the rest of the suite): a bound, not a
        # timing
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                if httpx.get(base + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        else:
            pytest.fail("the wheel-installed server did not start")
        origin = subprocess.run(
            [str(python), "-c", "import partchat; print(partchat.__file__)"],
            capture_output=True,
            text=True,
            cwd=workdir,
            env=env,
        ).stdout
        assert str(target) in origin  # the wheel's copy, not the checkout
        assert "<div" in httpx.get(base + "/").text
        assert httpx.get(base + "/widget.js").status_code == 200
        r = httpx.post(
            base + "/api/chat",
            json={"message": "How can I install part number PS11752778?"},
            timeout=30,
        )
        assert r.status_code == 200 and "PS11752778" in r.json()["message"]
        assert (workdir / "var" / "catalog.db").exists()
    finally:
        proc.terminate()
        proc.wait(20)
