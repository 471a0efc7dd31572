"""Which server process runs which turn, and which processes are still alive.

Several processes may serve one ``sessions.db`` (``partchat serve --workers N``, or separate
``partchat serve`` processes sharing ``PARTCHAT_DATA_DIR``). Each has a random *boot id*,
recorded as the ``owner`` of every turn it begins, and a row in the ``workers`` table whose
``heartbeat_at`` it refreshes every ``PARTCHAT_WORKER_HEARTBEAT_S`` seconds.

A turn left ``running`` is *orphaned*, and is marked ``interrupted``, when its owner is dead:

* the owner has no ``workers`` row (it shut down cleanly, or was found dead before), or
* its heartbeat is older than three heartbeat intervals, or
* it ran on this machine (same host name and PID namespace) and its pid no longer exists,
  or is our own pid (a container restarted: the old process had the same pid).

The last rule makes a ``kill -9`` and an immediate restart find the dead process's turns at
once, while its heartbeat still looks fresh; the staleness rule covers everything else (a
pid reused by an unrelated process, a frozen process). A process that was merely frozen for
longer than the limit finds its turns interrupted when it wakes up: its late answer is not
stored (``finish_turn`` leaves an interrupted turn alone).

Turns without an owner (written before schema version 2) are interrupted at start-up only,
as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path

from partchat.store import SessionStore, TurnRecord, WorkerRecord

log = logging.getLogger(__name__)

DEFAULT_HEARTBEAT_S = 5.0
STALE_AFTER_HEARTBEATS = 3


def new_boot_id() -> str:
    """A random id for this process (96 bits, the shape of every store id)."""
    return "w_" + secrets.token_urlsafe(12)


def host_key() -> str:
    """This machine and PID namespace: pids compare only between processes that share it."""
    parts = [socket.gethostname()]
    with contextlib.suppress(OSError):  # Linux: the kernel's boot, so a reboot is another host
        parts.append(Path("/proc/sys/kernel/random/boot_id").read_text().strip())
    with contextlib.suppress(OSError):  # Linux: containers have their own pid numbering
        parts.append(os.readlink("/proc/self/ns/pid"))
    return "|".join(parts)


def pid_alive(pid: int) -> bool:
    """True when a process with that pid exists (zombies included)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, belongs to another user
        return True
    except OSError:
        return True  # cannot tell: let the heartbeat decide
    return True


class WorkerRegistry:
    """This process's identity in ``sessions.db`` and the liveness rule for the others."""

    def __init__(
        self,
        store: SessionStore,
        *,
        heartbeat_s: float = DEFAULT_HEARTBEAT_S,
        boot_id: str | None = None,
        pid: int | None = None,
        host: str | None = None,
        is_pid_alive: Callable[[int], bool] = pid_alive,
        recover: Callable[[list[TurnRecord]], Awaitable[dict[str, str]]] | None = None,
    ) -> None:
        self.store = store
        self.heartbeat_s = heartbeat_s
        self.stale_after = heartbeat_s * STALE_AFTER_HEARTBEATS
        self.boot_id = boot_id or new_boot_id()
        self.pid = os.getpid() if pid is None else pid
        self.host = host_key() if host is None else host
        self._is_pid_alive = is_pid_alive
        self.recover = recover
        self._task: asyncio.Task[None] | None = None

    # --- the rule ------------------------------------------------------------------
    def is_alive(self, worker: WorkerRecord | None, now: float) -> bool:
        if worker is None:
            return False
        if worker.boot_id == self.boot_id:
            return True
        if now - worker.heartbeat_at > self.stale_after:
            return False
        if worker.host == self.host:
            return worker.pid != self.pid and self._is_pid_alive(worker.pid)
        return True

    async def owner_alive(self, owner: str | None) -> bool:
        """Whether the process that owns a turn is alive (no owner: a legacy turn, dead)."""
        if owner is None:
            return False
        if owner == self.boot_id:
            return True
        return self.is_alive(await self.store.get_worker(owner), self.store.clock())

    # --- actions -------------------------------------------------------------------
    async def heartbeat(self) -> None:
        await self.store.heartbeat(self.boot_id, pid=self.pid, host=self.host)

    async def interrupt(self, owner: str | None) -> int:
        """Mark the running turns of one dead owner (None: the legacy ones) interrupted."""
        if owner is None:
            return await self.store.mark_interrupted((), unowned=True)
        return await self._mark([owner])

    async def _mark(self, owners: list[str], *, unowned: bool = False) -> int:
        """``mark_interrupted``, with what the turns had streamed when ``recover`` can
        tell (the Redis live log keeps it); without it the answers stay empty."""
        texts: dict[str, str] = {}
        if self.recover is not None and owners:
            try:
                texts = await self.recover(await self.store.running_turns(owners))
            except Exception as exc:
                log.warning("could not recover interrupted answers: %s", type(exc).__name__)
        return await self.store.mark_interrupted(owners, unowned=unowned, texts=texts)

    async def reap(self, *, startup: bool = False) -> int:
        """Mark the turns of dead owners interrupted and forget dead processes' rows.

        ``startup`` also interrupts turns without an owner. Returns how many turns.
        """
        owners = await self.store.running_owners()
        now = self.store.clock()
        dead = [o for o, w in owners.items() if o != self.boot_id and not self.is_alive(w, now)]
        interrupted = 0
        if dead or startup:
            interrupted = await self._mark(dead, unowned=startup)
        gone = [
            w.boot_id
            for w in await self.store.workers()
            if w.boot_id != self.boot_id and not self.is_alive(w, now)
        ]
        await self.store.forget_workers(gone)
        return interrupted

    async def start(self) -> int:
        """Register this process, interrupt what dead processes left running, and keep
        beating in a background task until :meth:`stop`. Returns how many turns."""
        await self.heartbeat()
        interrupted = await self.reap(startup=True)
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name="partchat-worker-heartbeat")
        return interrupted

    async def run(self) -> None:
        """Heartbeat and reap every ``heartbeat_s`` until cancelled; errors are logged."""
        while True:
            await asyncio.sleep(self.heartbeat_s)
            try:
                await self.heartbeat()
                interrupted = await self.reap()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("worker heartbeat failed: %s: %s", type(exc).__name__, exc)
                continue
            if interrupted:
                log.warning("marked %d turns of a dead server process interrupted", interrupted)

    async def stop(self) -> None:
        """Clean shutdown (after the turns are finished): stop beating, drop our row.

        A turn whose answer could not be stored is left ``running``; without our row it
        counts as orphaned and the next process to look marks it interrupted."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.store.forget_workers((self.boot_id,))
