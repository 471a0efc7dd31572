"""The session store's backends, as the backend-neutral store tests see them: open a
store (again) on one database, and read what is committed through a connection of
their own."""

from __future__ import annotations

import re
import secrets
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import asyncpg

from partchat.store.postgres import PostgresStore
from partchat.store.sqlite import SqliteStore

Store = SqliteStore | PostgresStore


class Backend(Protocol):
    name: str

    async def open(self, clock: Callable[[], float] = ...) -> Store: ...

    async def rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        """Committed rows, read on a separate connection (``?`` placeholders)."""
        ...

    async def count(self, table: str) -> int: ...


@dataclass
class SqliteBackend:
    path: Path
    name: str = "sqlite"

    async def open(self, clock: Callable[[], float] | None = None, **kwargs: Any) -> Store:
        return await SqliteStore.open(self.path, **({"clock": clock} if clock else {}), **kwargs)

    async def rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.path) as conn:
            return list(conn.execute(sql, params))

    async def count(self, table: str) -> int:
        return int((await self.rows(f"SELECT COUNT(*) FROM {table}"))[0][0])


def _dollar(sql: str) -> str:
    counter = iter(range(1, 1000))
    return re.sub(r"\?", lambda _: f"${next(counter)}", sql)


@dataclass
class PostgresBackend:
    dsn: str
    name: str = "postgres"

    async def open(self, clock: Callable[[], float] | None = None, **kwargs: Any) -> Store:
        return await PostgresStore.open(self.dsn, **({"clock": clock} if clock else {}), **kwargs)

    async def rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        conn = await asyncpg.connect(self.dsn)
        try:
            return [tuple(r) for r in await conn.fetch(_dollar(sql), *params)]
        finally:
            await conn.close()

    async def count(self, table: str) -> int:
        return int((await self.rows(f"SELECT COUNT(*) FROM {table}"))[0][0])


def database_dsn(server_dsn: str, name: str) -> str:
    """``server_dsn`` with its database replaced by ``name``."""
    return server_dsn.rsplit("/", 1)[0] + "/" + name


async def create_database(server_dsn: str) -> str:
    """A fresh, empty database on the server of ``server_dsn``; returns its DSN."""
    name = "t_" + secrets.token_hex(6)
    conn = await asyncpg.connect(server_dsn)
    try:
        await conn.execute(f"CREATE DATABASE {name}")
    finally:
        await conn.close()
    return database_dsn(server_dsn, name)


async def drop_database(server_dsn: str, dsn: str) -> None:
    name = dsn.rsplit("/", 1)[1]
    conn = await asyncpg.connect(server_dsn)
    try:
        await conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    finally:
        await conn.close()
