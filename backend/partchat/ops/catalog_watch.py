"""Serve a replaced ``catalog.db`` without a restart.

An import or a build ``os.replace``s the file, so its identity (device, inode, size,
modification time) changes. Every ``PARTCHAT_CATALOG_CHECK_S`` each server process
compares it with the catalog it serves; on a change it opens the new one (catalog,
understanding model, toolbox, graph) and new turns use it. A turn in flight keeps the
graph it started with, so it finishes on the old catalog, whose connection stays open
(the replaced file lives on while open) until those turns end. Several processes or
machines sharing the file each notice on their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Protocol

log = logging.getLogger(__name__)

Identity = tuple[int, int, int, int]


class Closable(Protocol):
    async def close(self) -> None: ...


def identity(path: Path) -> Identity | None:
    """What changes when the file is replaced; None when it is missing."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class CatalogWatcher:
    """Calls ``reopen`` when ``path`` is replaced (checked every ``interval_s``)."""

    def __init__(
        self,
        path: Path,
        interval_s: float,
        reopen: Callable[[], Awaitable[None]],
        served: Identity | None,
    ) -> None:
        self.path = path
        self.interval_s = interval_s
        self.reopen = reopen
        self.served = served
        self.reloads = 0
        self._retiring: set[asyncio.Task[None]] = set()

    async def check(self) -> bool:
        """Reopen when the file changed; True when the new catalog is now served. A
        catalog that fails to open is logged once and the old one keeps serving."""
        current = identity(self.path)
        if current is None or current == self.served:
            return False
        self.served = current  # also on failure: one error per replaced file, not a loop
        try:
            await self.reopen()
        except Exception as exc:
            log.error(
                "catalog %s changed but cannot be opened (%s); still serving the old one",
                self.path,
                exc,
            )
            return False
        self.reloads += 1
        log.info("serving the replaced catalog %s", self.path)
        return True

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            await self.check()

    def retire(self, old: Closable, turns: Iterable[asyncio.Task[None]]) -> None:
        """Close ``old`` once ``turns`` (the ones that may still read it) have ended."""
        task = asyncio.create_task(close_after(old, turns))
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)

    async def close(self) -> None:
        """Wait for the retired catalogs to close (their turns have ended by now)."""
        if self._retiring:
            await asyncio.wait(list(self._retiring))


async def close_after(old: Closable, turns: Iterable[asyncio.Task[None]]) -> None:
    """Close the retired catalog once the turns that may still read it have ended."""
    pending = [t for t in turns if not t.done()]
    if pending:
        await asyncio.wait(pending)
    with contextlib.suppress(Exception):
        await old.close()
