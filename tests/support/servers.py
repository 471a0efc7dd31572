"""Start the real server as a subprocess on a free 127.0.0.1 port, and stop it."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ServerProcess:
    """A ``partchat serve`` child process. ``restart()`` keeps its data directory."""

    data_dir: Path
    env: dict[str, str] = field(default_factory=dict)
    args: tuple[str, ...] = ()  # extra ``partchat serve`` arguments, e.g. ("--workers", "2")
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self, timeout: float = 60.0) -> ServerProcess:
        self.port = self.port or free_port()
        env = {
            **os.environ,
            "PARTCHAT_HOST": "127.0.0.1",
            "PARTCHAT_PORT": str(self.port),
            "PARTCHAT_DATA_DIR": str(self.data_dir),
            "PARTCHAT_LLM": "offline",
            "PARTCHAT_LOG_LEVEL": "info",
            **self.env,
        }
        env.pop("OPENAI_API_KEY", None) if self.env.get(
            "PARTCHAT_LLM", "offline"
        ) == "offline" else None
        self.log_path = self.data_dir / f"server-{self.port}.log"
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "partchat.cli", "serve", *self.args],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=self.data_dir,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self.log()}")
            try:
                if httpx.get(self.base_url + "/health", timeout=1.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not answer /health in {timeout}s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path else ""

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        code = self.proc.returncode
        self.proc = None
        return code

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def restart(self) -> ServerProcess:
        self.stop()
        return self.start()


def prepare_data_dir(target: Path, catalog_db: Path | None) -> Path:
    """A data directory with a copy of an already-built catalog (builds are slow-ish)."""
    target.mkdir(parents=True, exist_ok=True)
    if catalog_db is not None and catalog_db.exists():
        shutil.copy2(catalog_db, target / "catalog.db")
    return target


def server_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    return dict(extra or {})
