"""The catalog file check: a replaced file is reopened once; a failure keeps the old."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from partchat.ops.catalog_watch import CatalogWatcher, close_after, identity

pytestmark = pytest.mark.asyncio


def replace(path: Path, content: bytes) -> None:
    tmp = path.with_name("new.tmp")
    tmp.write_bytes(content)
    os.replace(tmp, path)


async def test_a_replaced_file_is_reopened_once(tmp_path: Path) -> None:
    path = tmp_path / "catalog.db"
    path.write_bytes(b"old")
    opened: list[bytes] = []

    async def reopen() -> None:
        opened.append(path.read_bytes())

    watcher = CatalogWatcher(path, 5.0, reopen, identity(path))
    assert not await watcher.check()
    replace(path, b"new")
    assert await watcher.check()
    assert not await watcher.check()
    assert opened == [b"new"] and watcher.reloads == 1
    path.unlink()
    assert not await watcher.check()  # a missing file is not a new catalog


async def test_a_catalog_that_fails_to_open_is_tried_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "catalog.db"
    path.write_bytes(b"old")
    calls = 0

    async def reopen() -> None:
        nonlocal calls
        calls += 1
        raise ValueError("file is not a database")

    watcher = CatalogWatcher(path, 5.0, reopen, identity(path))
    replace(path, b"broken")
    assert not await watcher.check()
    assert not await watcher.check()
    assert calls == 1 and watcher.reloads == 0
    assert "cannot be opened (file is not a database)" in caplog.text


class FakeCatalog:
    closed = False

    async def close(self) -> None:
        self.closed = True


async def test_the_old_catalog_closes_after_its_turns() -> None:
    gate = asyncio.Event()
    turn = asyncio.create_task(gate.wait())
    old = FakeCatalog()
    closing = asyncio.create_task(close_after(old, [turn]))
    await asyncio.sleep(0.01)
    assert not old.closed
    gate.set()
    await closing
    assert old.closed
