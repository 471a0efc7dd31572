"""Fixtures shared by the unit tests."""

from __future__ import annotations

import gc
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.support.stores import (
    Backend,
    PostgresBackend,
    SqliteBackend,
    create_database,
    drop_database,
)


@pytest.fixture
def gc_state() -> Iterator[None]:
    """Put the garbage collector and the GIL switch interval back as they were: they are
    process-wide, and a frozen heap would outlive the test."""
    threshold = gc.get_threshold()
    interval = sys.getswitchinterval()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)
    sys.setswitchinterval(interval)


@pytest.fixture(params=["sqlite", "postgres"])
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    """Each store backend on a database of the test's own: a fresh sessions.db, or a
    fresh PostgreSQL database on the run's throwaway cluster (dropped afterwards)."""
    if request.param == "sqlite":
        yield SqliteBackend(tmp_path / "data" / "sessions.db")
        return
    server_dsn: str = request.getfixturevalue("postgres_dsn")
    dsn = await create_database(server_dsn)
    try:
        yield PostgresBackend(dsn)
    finally:
        await drop_database(server_dsn, dsn)


@pytest.fixture
async def pg_backend(postgres_dsn: str) -> AsyncIterator[PostgresBackend]:
    """A fresh PostgreSQL database of the test's own (for PostgreSQL-only tests)."""
    dsn = await create_database(postgres_dsn)
    try:
        yield PostgresBackend(dsn)
    finally:
        await drop_database(postgres_dsn, dsn)
