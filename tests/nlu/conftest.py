"""Fixtures for the understanding metrics: the real catalog, its trained model, the graph."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio

from partchat.agent.graph import build_graph
from partchat.agent.offline import OfflineChatModel
from partchat.catalog import Catalog
from partchat.nlu.model import Understanding
from partchat.toolbox.dispatch import Toolbox


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def catalog(catalog_db: Path) -> AsyncIterator[Catalog]:
    c = await Catalog.open(catalog_db)
    yield c
    await c.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def graph(catalog: Catalog, understanding: Understanding) -> Any:
    return build_graph(OfflineChatModel(), Toolbox.load(catalog), catalog, understanding)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def labels(catalog: Catalog) -> dict[str, str]:
    return {s["id"]: s["label"] for s in await catalog.symptoms()}
