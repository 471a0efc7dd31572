"""The open catalog: connection, in-memory indexes, the cached query runner, part rows."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, Self

import orjson

from partchat.catalog.loop_sqlite import LoopSqlite, fetch_all

from .build import ro_uri
from .models_index import ModelIndex
from .normalize import number_key, part_type_from_name, phrase_key
from .store_load import load_indexes, load_listed_types, load_shape
from .symptom_index import SymptomIndex
from .types import (
    CatalogStats,
    InstallGuide,
    Part,
    RepairGuide,
)

PART_COLS = (
    "p.id, p.ps_number, p.mfr_number, p.name, p.brand, p.part_type, p.appliances, "
    "p.price_cents, p.availability, p.video_url, p.rating_pct, p.review_count, p.replaces, "
    "p.symptoms, p.difficulty, p.install_time, p.details, p.pop_rank"
)
NCOLS = 18
CACHE_ENTRIES = 2048  # query results kept (a few MB at most)
# a query, its parameters and how its rows are sorted (None: as SQLite returned them)
_Key = tuple[str, tuple[Any, ...], Callable[[Any], Any] | None]


def part_from_row(row: Any) -> Part:
    return Part(
        ps_number=row[1],
        mfr_number=row[2],
        name=row[3],
        brand=row[4],
        part_type=row[5],
        appliances=orjson.loads(row[6]),
        price_cents=row[7],
        availability=row[8],
        video_url=row[9],
        rating_pct=row[10],
        review_count=row[11],
        replaces=orjson.loads(row[12]),
        symptoms=orjson.loads(row[13]),
        difficulty=row[14],
        install_time=row[15],
    )


# Part numbers in text when the catalog records no shape of its own (built before).
PS_PATTERN: Final = re.compile(r"\bPS\d{3,12}\b")


class CatalogCore:
    """The open catalog: its connection, in-memory indexes and cached query runner."""

    def __init__(
        self,
        db: LoopSqlite,
        models: ModelIndex,
        symptoms: SymptomIndex,
        guides: dict[str, RepairGuide],
        guide_types: dict[str, list[str]],
        install: dict[str, InstallGuide],
        part_types: dict[str, str],
        *,
        cache_entries: int = CACHE_ENTRIES,
    ) -> None:
        self._db = db
        self._cache_entries = cache_entries
        self._models = models
        self._symptoms = symptoms
        self._guides = guides
        self._guide_types = guide_types
        # symptom id -> the part types most often listed as fixing it (for symptoms no
        # repair guide names: "Frost buildup")
        self._listed_types: dict[str, list[str]] = {}
        self._install = install
        self._part_types = part_types
        self._stats: CatalogStats | None = None
        self._number_pattern: re.Pattern[str] = PS_PATTERN
        self._cache: OrderedDict[_Key, tuple[Any, ...]] = OrderedDict()
        self.cache_hits = 0
        self._pending: dict[_Key, asyncio.Future[tuple[Any, ...]]] = {}

    @classmethod
    async def open(cls, db_path: Path, *, cache_entries: int = CACHE_ENTRIES) -> Self:
        """Open ``db_path`` read-only and load the small in-memory indexes.

        ``cache_entries``: query results kept (0: none, e.g. to time the queries)."""
        db_path = Path(db_path)
        if not db_path.is_file():
            raise FileNotFoundError(f"catalog database not found: {db_path}")
        db = LoopSqlite.connect(ro_uri(db_path), uri=True, busy_timeout_ms=5000)
        try:
            loaded = await db.run(load_indexes)
            shape = await db.run(load_shape)
            listed_types = await db.run(load_listed_types)
        except BaseException:
            await db.close()
            raise
        catalog = cls(db, *loaded, cache_entries=cache_entries)
        catalog._listed_types = listed_types
        if shape:
            catalog._number_pattern = re.compile(rf"\b(?:{shape})\b")
        return catalog

    async def part_number_pattern(self) -> re.Pattern[str]:
        """Finds this catalog's own part numbers in text (``PS11752778``, ``AB-10234``),
        known or not: the shape the build found they share (``PS`` numbers when none)."""
        return self._number_pattern

    def warm(self) -> None:
        """Build the indexes otherwise built on first use (the server, before it
        freezes its heap; tests skip it)."""
        self._models.warm()

    async def close(self) -> None:
        await self._db.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ helpers
    async def _rows(
        self,
        sql: str,
        params: tuple[Any, ...] = (),
        *,
        heavy: bool = False,
        order: Callable[[Any], Any] | None = None,
    ) -> list[Any]:
        """The query's rows ([] if sqlite fails), sorted by ``order`` if given. ``heavy``:
        a scan (full-text search, a model's parts) that can take milliseconds, run on a
        thread so it never stalls the answers streaming meanwhile; lookups by key run on
        the loop.

        The catalog does not change while it is open, so results are kept (LRU), already
        sorted: shoppers ask about the same popular parts and symptoms again and again.
        The key includes ``order`` (a module-level function, so the same one each call):
        the same rows sorted another way, or not at all, are another result.
        """
        key: _Key = (sql, params, order)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            self.cache_hits += 1
            return list(cached)
        pending = self._pending.get(key)
        if pending is not None:  # the same query is running for another turn: share it
            try:
                shared = await asyncio.shield(pending)
            except asyncio.CancelledError:
                if not pending.cancelled():
                    raise  # this caller was cancelled
                # the first one was: run it again, ranked as this caller asked
                return await self._rows(sql, params, heavy=heavy, order=order)
            self.cache_hits += 1
            return list(shared)
        fut: asyncio.Future[tuple[Any, ...]] = asyncio.get_running_loop().create_future()
        self._pending[key] = fut
        try:
            rows = await self._db.run(fetch_all(sql, params), inline=not heavy)
        except sqlite3.OperationalError:
            rows = []  # not kept: the next ask tries again
            fut.cancel()  # nor shared: the callers waiting for it ask again themselves
        except BaseException:
            fut.cancel()
            raise
        else:
            if order is not None:
                rows.sort(key=order)
            self._cache[key] = tuple(rows)
            if len(self._cache) > self._cache_entries:
                self._cache.popitem(last=False)
        finally:
            del self._pending[key]
        if not fut.cancelled():
            fut.set_result(tuple(rows))
        return rows

    async def _part_row(self, number: str, model_id: int | None = None) -> Any | None:
        key = number_key(number)
        if not key or len(key) > 64:
            return None
        keys = (key, key[2:]) if key.startswith("PS") and key[2:].isdigit() else (key, key)
        fit = (
            "(SELECT evidence FROM compat c WHERE c.model_id = ? AND c.part_id = p.id)"
            if model_id is not None
            else "NULL"
        )
        params: tuple[Any, ...] = (model_id, *keys) if model_id is not None else keys
        rows = await self._rows(
            f"SELECT {PART_COLS}, {fit} FROM part_numbers n JOIN parts p ON p.id = n.part_id "
            "WHERE n.key IN (?, ?) ORDER BY n.kind, p.pop_rank LIMIT 1",
            params,
        )
        return rows[0] if rows else None

    def _resolve_type(self, text: str) -> str | None:
        key = phrase_key(text)
        return self._part_types.get(key) or part_type_from_name(text)
