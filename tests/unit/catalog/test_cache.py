"""The catalog's query-result cache (LRU over ``Catalog._rows``)."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from partchat.catalog import Catalog

WHEEL, ICE_MAKER, PUMP = "PS3406971", "PS11752778", "PS11753379"


def runs(catalog: Catalog) -> int:
    """Units the catalog has sent to SQLite so far (inline or on a thread)."""
    return catalog._db.inline_runs + catalog._db.thread_runs


async def test_same_search_twice_is_served_from_the_cache(catalog: Catalog) -> None:
    first = await catalog.search("drain pump", appliance="dishwasher")
    assert first
    hits, queries = catalog.cache_hits, runs(catalog)
    second = await catalog.search("drain pump", appliance="dishwasher")
    assert second == first
    assert catalog.cache_hits > hits
    assert runs(catalog) == queries  # not one query ran


async def test_heavy_query_is_cached_too(catalog: Catalog) -> None:
    threads = catalog._db.thread_runs
    parts = await catalog.parts_for_model("WDT780SAEM1")
    assert parts
    assert catalog._db.thread_runs == threads + 1  # heavy: sent to the thread
    assert await catalog.parts_for_model("WDT780SAEM1") == parts
    assert catalog._db.thread_runs == threads + 1


async def test_mutating_results_does_not_change_the_cache(catalog: Catalog) -> None:
    hits = await catalog.search("drain pump", appliance="dishwasher")
    expected = copy.deepcopy(hits)
    hits[0]["part"]["name"] = "changed"
    hits.reverse()
    hits.clear()
    assert await catalog.search("drain pump", appliance="dishwasher") == expected

    sql, params = "SELECT ps_number FROM parts ORDER BY id LIMIT ?", (3,)
    rows = await catalog._rows(sql, params)  # a miss: the list the query built
    assert len(rows) == 3
    expected_rows = list(rows)
    rows.clear()
    again = await catalog._rows(sql, params)  # a hit
    assert again == expected_rows
    again.append(("extra",))
    again.pop(0)
    assert await catalog._rows(sql, params) == expected_rows


@pytest.fixture
async def small_cache(catalog_db: Path) -> AsyncIterator[Catalog]:
    cat = await Catalog.open(catalog_db, cache_entries=2)
    try:
        yield cat
    finally:
        await cat.close()


async def test_cache_is_bounded_and_evicts_the_oldest(small_cache: Catalog) -> None:
    catalog = small_cache
    for number in (WHEEL, ICE_MAKER, PUMP):  # one query each
        part = await catalog.get_part(number)
        assert part is not None and part["ps_number"] == number
        assert len(catalog._cache) <= 2
    assert len(catalog._cache) == 2

    hits, queries = catalog.cache_hits, runs(catalog)
    assert (await catalog.get_part(PUMP) or {}).get("ps_number") == PUMP  # newest: kept
    assert (catalog.cache_hits, runs(catalog)) == (hits + 1, queries)
    assert (await catalog.get_part(WHEEL) or {}).get("ps_number") == WHEEL  # oldest: evicted
    assert (catalog.cache_hits, runs(catalog)) == (hits + 1, queries + 1)
    assert len(catalog._cache) == 2


async def test_cache_evicts_the_least_recently_used(small_cache: Catalog) -> None:
    catalog = small_cache
    await catalog.get_part(WHEEL)
    await catalog.get_part(ICE_MAKER)
    hits = catalog.cache_hits
    await catalog.get_part(WHEEL)  # a hit: now the most recently used
    assert catalog.cache_hits == hits + 1
    await catalog.get_part(PUMP)  # evicts ICE_MAKER, not WHEEL

    queries = runs(catalog)
    await catalog.get_part(WHEEL)
    assert (catalog.cache_hits, runs(catalog)) == (hits + 2, queries)
    await catalog.get_part(ICE_MAKER)
    assert (catalog.cache_hits, runs(catalog)) == (hits + 2, queries + 1)


async def test_failed_query_is_not_cached(catalog: Catalog) -> None:
    sql = "SELECT no_such_column FROM parts"
    assert await catalog._rows(sql) == []
    assert (sql, (), None) not in catalog._cache
    hits, queries = catalog.cache_hits, runs(catalog)
    assert await catalog._rows(sql) == []
    assert (catalog.cache_hits, runs(catalog)) == (hits, queries + 1)


async def test_concurrent_identical_queries_share_one_run(catalog: Catalog) -> None:
    sql = "SELECT ps_number FROM parts ORDER BY ps_number LIMIT 5"
    queries = runs(catalog)
    # heavy: on a thread, so all five are waiting at once (a cold cache under load)
    results = await asyncio.gather(*(catalog._rows(sql, heavy=True) for _ in range(5)))
    assert runs(catalog) == queries + 1
    assert all(r == results[0] for r in results) and len(results[0]) == 5
    results[1].clear()  # each caller has its own list
    assert len(results[2]) == 5


def _descending(row: tuple[str]) -> tuple[int, ...]:
    return tuple(-ord(c) for c in row[0])


async def test_waiter_of_a_cancelled_query_still_sorts_and_caches_sorted(
    catalog: Catalog,
) -> None:
    sql = "SELECT ps_number FROM parts ORDER BY ps_number LIMIT 5"
    first = asyncio.create_task(catalog._rows(sql, heavy=True, order=_descending))
    await asyncio.sleep(0)  # the first caller's query is running on the thread
    second = asyncio.create_task(catalog._rows(sql, heavy=True, order=_descending))
    await asyncio.sleep(0)  # the second one shares it
    first.cancel()
    rows = await second
    assert len(rows) == 5
    assert rows == sorted(rows, key=_descending)  # ranked, though it ran the query again
    assert await catalog._rows(sql, order=_descending) == rows  # and cached ranked
    with pytest.raises(asyncio.CancelledError):
        await first


async def test_same_query_with_another_order_is_not_served_from_the_cache(
    catalog: Catalog,
) -> None:
    sql = "SELECT ps_number FROM parts ORDER BY ps_number LIMIT 5"
    plain = await catalog._rows(sql)
    ranked = await catalog._rows(sql, order=_descending)
    assert ranked == sorted(plain, key=_descending) != plain
    assert await catalog._rows(sql) == plain
