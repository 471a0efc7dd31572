"""A throwaway PostgreSQL cluster on a free 127.0.0.1 port, in a temporary directory.

PostgreSQL refuses to run as root: as root, ``initdb`` and ``pg_ctl`` run as the
``postgres`` user (Debian's package creates it) on a directory chowned to it; otherwise
as the current user. Local connections are trusted (the cluster lives for one test run),
fsync is off, and the unix socket lives inside the directory.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.servers import free_port

DATABASE = "partchat"
START_TIMEOUT_S = 30


def pg_bin_dir() -> Path:
    """Where ``pg_ctl`` lives: $PARTCHAT_PG_BIN, PATH, or Debian's newest version dir."""
    explicit = os.environ.get("PARTCHAT_PG_BIN")
    if explicit:
        return Path(explicit)
    on_path = shutil.which("pg_ctl")
    if on_path:
        return Path(on_path).resolve().parent  # a symlink: the real bin dir has createdb
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if not versions:
        raise FileNotFoundError(
            "PostgreSQL (pg_ctl) not found: run `make test` (it installs Debian's postgresql) "
            "or set PARTCHAT_PG_BIN"
        )
    return versions[-1].parent


def _as_owner(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class PostgresServer:
    """``start()`` creates the cluster on first use; ``stop()`` keeps its data (fault
    tests start it again on the same port); ``close()`` stops it and removes everything."""

    bin_dir: Path = field(default_factory=pg_bin_dir)
    port: int = 0
    root: Path | None = None
    running: bool = False

    @property
    def data_dir(self) -> Path:
        assert self.root is not None
        return self.root / "data"

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{DATABASE}"

    def _run(self, cmd: list[str], timeout: float = START_TIMEOUT_S) -> str:
        done = subprocess.run(
            _as_owner(cmd), capture_output=True, text=True, timeout=timeout, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"{cmd[0]} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
        return done.stdout

    def _create(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="partchat-pg-"))
        (self.root / "sock").mkdir()
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            for path in (self.root, self.root / "sock"):
                os.chown(path, owner.pw_uid, owner.pw_gid)
        self._run(
            [
                str(self.bin_dir / "initdb"),
                "-D",
                str(self.data_dir),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--no-sync",
            ],
            timeout=60,
        )

    def _configure(self) -> None:
        settings = {
            "listen_addresses": "'127.0.0.1'",
            "port": str(self.port),
            "unix_socket_directories": f"'{self.root}/sock'",
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "shared_buffers": "32MB",
            "max_connections": "200",
        }
        # Written last in postgresql.auto.conf: it wins over postgresql.conf.
        lines = "".join(f"{k} = {v}\n" for k, v in settings.items())
        auto = self.data_dir / "postgresql.auto.conf"
        auto.write_text(lines)
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(auto, owner.pw_uid, owner.pw_gid)

    def start(self) -> PostgresServer:
        if self.running:
            return self
        first = self.root is None
        if first:
            self._create()
        for attempt in range(3):
            if first or not self.port:
                self.port = free_port()
            self._configure()
            try:
                self._run(
                    [
                        str(self.bin_dir / "pg_ctl"),
                        "-D",
                        str(self.data_dir),
                        "-l",
                        str(self.data_dir.parent / "postgres.log"),
                        "-w",
                        "-t",
                        str(START_TIMEOUT_S),
                        "start",
                    ],
                    timeout=START_TIMEOUT_S + 10,
                )
                break
            except RuntimeError:
                # Another process took the free port between the probe and the bind.
                if attempt == 2 or not first:
                    raise RuntimeError(f"PostgreSQL did not start:\n{self.log()}") from None
        self.running = True
        if first:
            self._run(
                [
                    str(self.bin_dir / "createdb"),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    str(self.port),
                    "-U",
                    "postgres",
                    DATABASE,
                ]
            )
        return self

    def stop(self, mode: str = "fast") -> None:
        """Stop the server, keeping its data; ``mode`` is pg_ctl's (fast, immediate)."""
        if self.root is None or not (self.data_dir / "postmaster.pid").exists():
            self.running = False
            return
        cmd = [str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-w", "-t", "20"]
        try:
            self._run([*cmd, "-m", mode, "stop"], timeout=30)
        except (RuntimeError, subprocess.TimeoutExpired):
            self._run([*cmd, "-m", "immediate", "stop"], timeout=30)
        self.running = False
        deadline = time.monotonic() + 10
        while _port_open(self.port) and time.monotonic() < deadline:
            time.sleep(0.05)

    def close(self) -> None:
        try:
            self.stop()
        finally:
            if self.root is not None:
                shutil.rmtree(self.root, ignore_errors=True)
                self.root = None

    def log(self) -> str:
        if self.root is None:
            return ""
        path = self.root / "postgres.log"
        return path.read_text(errors="replace") if path.exists() else ""
