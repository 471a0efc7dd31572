"""Storage faults injected below the session store's error mapping."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import pytest


class FailingConnection:
    """Stands in for aiosqlite's ``sqlite3.Connection``: a statement for which ``fails``
    is true raises ``sqlite3.OperationalError(message)``; everything else goes through.

    Installed as the aiosqlite connection's ``_connection``, it sees both the store's
    ``await db.execute(...)`` statements and the ones its one-hop transactions run on the
    connection's thread."""

    def __init__(self, real: sqlite3.Connection, fails: Callable[[str], bool], message: str):
        self._real = real
        self._fails = fails
        self._message = message

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if self._fails(sql.lstrip().upper()):
            raise sqlite3.OperationalError(self._message)
        return self._real.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def fail_statements(
    monkeypatch: pytest.MonkeyPatch, db: Any, fails: Callable[[str], bool], message: str
) -> None:
    """Make ``db`` (an ``aiosqlite.Connection``) fail the statements ``fails`` picks
    (it is given the statement upper-cased) until ``monkeypatch`` is undone."""
    monkeypatch.setattr(db, "_connection", FailingConnection(db._connection, fails, message))
