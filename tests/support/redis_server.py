"""A throwaway redis-server on a free 127.0.0.1 port, in a temporary directory.

No persistence (``--save ''``, no AOF): a restart starts empty, as a Redis that lost its
memory would. ``restart()`` keeps the port, so clients reconnect to the same URL;
``pause()``/``resume()`` (SIGSTOP/SIGCONT) make it hang without closing connections.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.servers import free_port

START_TIMEOUT_S = 15.0


def redis_server_path() -> str:
    path = os.environ.get("PARTCHAT_REDIS_SERVER") or shutil.which("redis-server")
    if not path:
        raise FileNotFoundError(
            "redis-server not found: run `make test` (it installs Debian's redis-server) "
            "or set PARTCHAT_REDIS_SERVER"
        )
    return path


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@dataclass
class RedisServer:
    executable: str = field(default_factory=redis_server_path)
    port: int = 0
    root: Path | None = None
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        if self.proc is not None:
            return self
        if self.root is None:
            self.root = Path(tempfile.mkdtemp(prefix="partchat-redis-"))
        keep_port = bool(self.port)
        for attempt in range(3):
            if not keep_port:
                self.port = free_port()
            if self._spawn():
                return self
            if keep_port or attempt == 2:
                break
        raise RuntimeError(f"redis-server did not start on port {self.port}:\n{self.log()}")

    def _spawn(self) -> bool:
        assert self.root is not None
        cmd = [
            self.executable,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--save", "",
            "--appendonly", "no",
            "--dir", str(self.root),
            "--daemonize", "no",
        ]  # fmt: skip
        with (self.root / "redis.log").open("ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.proc = None
                return False
            if _ping(self.port):
                return True
            time.sleep(0.05)
        self.stop()
        return False

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the process (the port stays this server's for ``start()``)."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGCONT)  # a paused server cannot handle SIGTERM
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)

    def restart(self) -> RedisServer:
        """Stop and start again on the same port: an empty Redis at the same URL."""
        self.stop()
        return self.start()

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def close(self) -> None:
        try:
            self.stop()
        finally:
            if self.root is not None:
                shutil.rmtree(self.root, ignore_errors=True)
                self.root = None

    def log(self) -> str:
        path = self.root / "redis.log" if self.root else None
        return path.read_text(errors="replace") if path and path.exists() else ""
