from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from partchat.catalog import build, build_catalog, build_rows, needs_build
from partchat.catalog.schema import SCHEMA_VERSION
from partchat.catalog.types import CatalogStats
from partchat.nlu.store import CATALOG_EXTENSION

DATA_DIR = Path(__file__).resolve().parents[3] / "data" / "catalog"


def test_stats_meet_targets(built_catalog: tuple[Path, CatalogStats]) -> None:
    _, stats = built_catalog
    assert stats["parts"] >= 7_500
    assert stats["models"] >= 17_000
    assert stats["compatibility_pairs"] >= 70_000
    assert stats["install_guides"] >= 40
    assert stats["brands"] >= 5
    for app in ("refrigerator", "dishwasher"):
        assert stats["by_appliance"][app]["symptoms"] >= 15
        assert stats["by_appliance"][app]["parts"] > 1_000
        assert stats["by_appliance"][app]["models"] > 1_000


async def test_async_stats_match_build(built_catalog: tuple[Path, CatalogStats]) -> None:
    from partchat.catalog import catalog_stats

    db, stats = built_catalog
    assert await catalog_stats(db) == stats


def test_database_is_read_only_and_versioned(catalog_db: Path) -> None:
    conn = sqlite3.connect(build.ro_uri(catalog_db), uri=True)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        with pytest.raises(sqlite3.OperationalError):
            conn.execute("DELETE FROM parts")
    finally:
        conn.close()


def test_needs_build(tmp_path: Path, catalog_db: Path) -> None:
    db = tmp_path / "catalog.db"
    assert needs_build(db, DATA_DIR, extension=CATALOG_EXTENSION)  # missing
    shutil.copy(catalog_db, db)
    os.utime(db)  # now newer than the data
    assert not needs_build(db, DATA_DIR, extension=CATALOG_EXTENSION)
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    assert needs_build(db, DATA_DIR, extension=CATALOG_EXTENSION)  # schema mismatch


def test_needs_build_when_sources_change(tmp_path: Path, catalog_db: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    db = tmp_path / "catalog.db"
    shutil.copy(catalog_db, db)
    os.utime(db, (1, 1))  # older than the data, but same content
    assert not needs_build(db, data, extension=CATALOG_EXTENSION)
    guides = data / "install_guides.json"
    guides.write_text(guides.read_text("utf-8").replace("Unplug", "Disconnect", 1), "utf-8")
    assert needs_build(db, data, extension=CATALOG_EXTENSION)


def test_crash_mid_build_keeps_old_database(
    tmp_path: Path, catalog_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "catalog.db"
    shutil.copy(catalog_db, db)
    before = db.read_bytes()

    def boom(*args: object) -> None:
        raise RuntimeError("simulated crash while inserting compatibility pairs")

    monkeypatch.setattr(build_rows, "insert_compat", boom)
    with pytest.raises(RuntimeError):
        build_catalog(DATA_DIR, db, extension=CATALOG_EXTENSION)
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["catalog.db"]  # no temp left over


def test_build_is_deterministic_in_content(
    tmp_path: Path, built_catalog: tuple[Path, CatalogStats]
) -> None:
    stats = build_catalog(DATA_DIR, tmp_path / "again.db", extension=CATALOG_EXTENSION)
    assert stats == built_catalog[1]


def test_data_files_are_small_and_compressed() -> None:
    total = sum(p.stat().st_size for p in DATA_DIR.iterdir() if p.is_file())
    assert total < 20 * 1024 * 1024
    assert (DATA_DIR / "parts.jsonl.gz").is_file()
    assert (DATA_DIR / "compatibility.jsonl.gz").is_file()
