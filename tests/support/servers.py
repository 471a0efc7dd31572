"""Child processes for tests and benchmarks: the real server on a free 127.0.0.1 port,
the fake OpenAI server (``tests/support/fake_llm.py``), and ``Stack``, both together
against a built catalog.

Each runs as a child of the test or benchmark (never of each other), so ``psutil``
charges the server's CPU to the server alone.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[2]
PY = sys.executable
FAKE_LLM = REPO / "tests" / "support" / "fake_llm.py"
PARTCHAT_SERVE = ("-m", "partchat.cli", "serve")
# What a load run needs: every session comes from 127.0.0.1 and a few sessions must be
# able to saturate the server, so the per-address and per-connection limits are lifted.
LOAD_ENV = {
    "PARTCHAT_MAX_CONNECTIONS_PER_IP": "100000",
    "PARTCHAT_MESSAGES_PER_10S": "1000000",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def stop_process(
    proc: subprocess.Popen[Any] | None, graceful: float = 10.0, sig: int = signal.SIGTERM
) -> int | None:
    """``sig`` (SIGTERM), then SIGKILL after ``graceful`` seconds; the exit code."""
    if proc is None:
        return None
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(graceful)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    return proc.returncode


@dataclass
class ServerProcess:
    """A ``partchat serve`` child process (or another server: ``command``, the arguments
    after ``python``). It runs the offline model, or with ``llm_base_url`` the OpenAI
    path against that URL. ``restart()`` keeps its data directory."""

    data_dir: Path
    env: dict[str, str] = field(default_factory=dict)
    args: tuple[str, ...] = ()  # extra ``partchat serve`` arguments, e.g. ("--workers", "2")
    port: int = 0
    llm_base_url: str | None = None
    command: tuple[str, ...] = PARTCHAT_SERVE
    proc: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def _env(self) -> dict[str, str]:
        env = {
            **os.environ,
            "PARTCHAT_HOST": "127.0.0.1",
            "PARTCHAT_PORT": str(self.port),
            "PARTCHAT_DATA_DIR": str(self.data_dir),
            "PARTCHAT_LLM": "offline",
            "PARTCHAT_LOG_LEVEL": "info",
        }
        if self.llm_base_url is not None:
            env |= {
                "PARTCHAT_LLM": "openai",
                "OPENAI_BASE_URL": self.llm_base_url,
                "OPENAI_API_KEY": "sk-test",
                "PARTCHAT_LLM_RETRIES": "0",
            }
        env |= self.env
        if env["PARTCHAT_LLM"] == "offline":
            env.pop("OPENAI_API_KEY", None)
        return env

    def start(self, timeout: float = 60.0) -> ServerProcess:
        self.port = self.port or free_port()
        self.log_path = self.data_dir / f"server-{self.port}.log"
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [PY, *self.command, *self.args],
            env=self._env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=self.data_dir,
        )
        log.close()
        deadline = time.monotonic() + timeout
        with httpx.Client(timeout=1.0) as client:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"server exited early:\n{self.log_tail()}")
                with contextlib.suppress(httpx.HTTPError):
                    if client.get(self.base_url + "/health").status_code == 200:
                        return self
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"server did not answer /health in {timeout}s:\n{self.log_tail()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path else ""

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log().splitlines()[-n:])
        except OSError:
            return ""

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int | None:
        code = stop_process(self.proc, timeout, sig)
        self.proc = None
        return code

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def restart(self) -> ServerProcess:
        self.stop()
        return self.start()


class FakeLLMProcess:
    """``tests/support/fake_llm.py`` in a child process, in bench mode (each turn one
    ``search_parts`` call, then an answer of ``tokens`` words)."""

    def __init__(self, tokens: int = 60, first_token_ms: float = 0.0, token_ms: float = 0.0):
        self.tokens, self.first_token_ms, self.token_ms = tokens, first_token_ms, token_ms
        self.proc: subprocess.Popen[str] | None = None
        self.base_url = ""

    def start(self) -> FakeLLMProcess:
        self.proc = subprocess.Popen(
            [
                PY,
                str(FAKE_LLM),
                *("--port", "0", "--mode", "bench", "--tokens", str(self.tokens)),
                *("--first-token-ms", str(self.first_token_ms), "--token-ms", str(self.token_ms)),
                *("--max-records", "1000000"),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("FAKE_LLM_READY "):
            self.stop()
            raise RuntimeError(f"fake_llm did not start: {line!r}")
        self.base_url = line.split()[1]
        return self

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def stop(self) -> None:
        stop_process(self.proc)
        self.proc = None


def prepare_data_dir(target: Path, catalog_db: Path | None) -> Path:
    """A data directory with a copy of an already-built catalog (builds are slow-ish)."""
    target.mkdir(parents=True, exist_ok=True)
    if catalog_db is not None and catalog_db.exists():
        shutil.copy2(catalog_db, target / "catalog.db")
    return target


def build_catalog(data_dir: Path) -> Path:
    """``partchat catalog build`` into ``data_dir`` (a fresh ``PARTCHAT_DATA_DIR``)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PARTCHAT_DATA_DIR": str(data_dir)}
    subprocess.run(
        [PY, "-m", "partchat.cli", "catalog", "build"],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=data_dir,
    )
    return data_dir / "catalog.db"


@dataclass
class Stack:
    """A temp dir, a built catalog, a fake LLM process and a server using it, limits
    lifted for load (``LOAD_ENV``; ``rate_limit`` keeps the per-connection one).

    ``catalog`` reuses an already-built ``catalog.db`` (copied into the fresh data dir);
    ``env`` adds to (or overrides) the server's environment; ``command`` runs another
    server than ``partchat serve``."""

    tokens: int = 60
    first_token_ms: float = 0.0
    token_ms: float = 0.0
    workers: int = 1
    rate_limit: bool = False
    log_level: str = "info"
    catalog: Path | None = None
    keep: bool = False
    env: dict[str, str] | None = None
    command: tuple[str, ...] = PARTCHAT_SERVE
    tmp: Path = field(init=False)
    fake: FakeLLMProcess = field(init=False)
    server: ServerProcess = field(init=False)

    def __enter__(self) -> Stack:
        self.tmp = Path(tempfile.mkdtemp(prefix="partchat-stack-"))
        data = self.tmp / "data"
        data.mkdir()
        if self.catalog is not None and self.catalog.exists():
            shutil.copy2(self.catalog, data / "catalog.db")
        else:
            build_catalog(data)
        self.fake = FakeLLMProcess(self.tokens, self.first_token_ms, self.token_ms).start()
        env = {**LOAD_ENV, "PARTCHAT_LOG_LEVEL": self.log_level, **(self.env or {})}
        if self.rate_limit:
            env["PARTCHAT_MESSAGES_PER_10S"] = "10"
        workers = ("--workers", str(self.workers)) if self.workers > 1 else ()
        try:
            self.server = ServerProcess(
                data, env, workers, llm_base_url=self.fake.base_url, command=self.command
            ).start()
            if self.workers > 1:
                time.sleep(1.0)  # every worker up (each opens its stores)
        except BaseException:
            self.fake.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            self.server.stop(timeout=30.0)
        self.fake.stop()
        if not self.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)
