"""The async query layer over catalog.db (read-only).

Small things (symptom vocabulary, model index, install guides) are loaded into memory at
``open``; parts and compatibility stay in SQLite behind indexed lookups. Queries run on
the event loop (they take microseconds; a thread hop per query cost more than the query,
see ``partchat.catalog.loop_sqlite``); one that runs past its budget is re-run on a thread.

:class:`Catalog` is composed of one module per concern: the connection, indexes and
cached query runner (``store_core``, loading from ``store_load``), lookups by number,
fit and install guides (``store_lookup``), search (``store_search``) and symptoms and
diagnosis (``store_diagnosis``); the counts are here.
"""

from __future__ import annotations

from pathlib import Path

from .schema import APP_BITS
from .store_diagnosis import SymptomQueries
from .store_lookup import PartLookups
from .store_search import PartSearch
from .types import CatalogStats


class Catalog(PartLookups, PartSearch, SymptomQueries):
    """Implements ``CatalogReader``. Every method accepts any user string and never raises
    on it (bad input gives empty results)."""

    # ------------------------------------------------------------------ stats
    async def stats(self) -> CatalogStats:
        if self._stats is None:
            self._stats = await self._stats_via_queries()
        return self._stats

    async def _stats_via_queries(self) -> CatalogStats:
        async def one(sql: str) -> int:
            rows = await self._rows(sql, heavy=True)
            return int(rows[0][0]) if rows else 0

        by_app: dict[str, dict[str, int]] = {}
        for app, bit in APP_BITS.items():
            by_app[app] = {
                "parts": await one(f"SELECT count(*) FROM parts WHERE app_mask & {bit}"),
                "parts_with_details": await one(
                    f"SELECT count(*) FROM parts WHERE app_mask & {bit} AND details = 1"
                ),
                "models": await one(f"SELECT count(*) FROM models WHERE appliance = '{app}'"),
                "symptoms": await one(f"SELECT count(*) FROM symptoms WHERE appliance = '{app}'"),
                "repair_guides": await one(
                    f"SELECT count(*) FROM repair_guides WHERE appliance = '{app}'"
                ),
            }
        return CatalogStats(
            parts=await one("SELECT count(*) FROM parts"),
            models=await one("SELECT count(*) FROM models"),
            compatibility_pairs=await one("SELECT count(*) FROM compat"),
            symptoms=await one("SELECT count(*) FROM symptoms"),
            install_guides=await one(
                "SELECT count(*) FROM install_guides WHERE part_type_key != ''"
            ),
            brands=await one("SELECT count(DISTINCT brand) FROM parts WHERE brand IS NOT NULL"),
            by_appliance=by_app,
        )


async def catalog_stats(db_path: Path) -> CatalogStats:
    """Open, read the stats, close (for the CLI's ``catalog stats``)."""
    catalog = await Catalog.open(db_path)
    try:
        return await catalog.stats()
    finally:
        await catalog.close()
