"""Build the real catalog once per session from the project's own data/catalog/."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
DATA_DIR = REPO / "data" / "catalog"

try:  # the package may not be installed in a bare checkout
    import partchat.catalog  # noqa: F401
except ImportError:  # pragma: no cover
    sys.path.insert(0, str(REPO / "backend"))

from partchat.catalog import Catalog, build_catalog  # noqa: E402
from partchat.catalog.types import CatalogStats  # noqa: E402
from partchat.nlu.store import CATALOG_EXTENSION  # noqa: E402


@pytest.fixture(scope="session")
def built_catalog(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CatalogStats]:
    db = tmp_path_factory.mktemp("catalog") / "catalog.db"
    stats = build_catalog(DATA_DIR, db, extension=CATALOG_EXTENSION)
    return db, stats


@pytest.fixture(scope="session")
def catalog_db(built_catalog: tuple[Path, CatalogStats]) -> Path:
    return built_catalog[0]


@pytest.fixture
async def catalog(catalog_db: Path) -> AsyncIterator[Catalog]:
    cat = await Catalog.open(catalog_db)
    try:
        yield cat
    finally:
        await cat.close()
