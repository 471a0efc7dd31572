"""Build catalog.db from the normalised files in ``data/catalog/`` (or another dir).

The database is written to a temporary file next to the target and moved into place with
``os.replace``: readers never see a half-built database, and a failed build leaves the
previous one untouched. What else goes into catalog.db (the understanding model,
``nlu.store.CATALOG_EXTENSION``) is passed in by the caller as an :class:`Extension`, so
this layer imports nothing above it.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import uuid
from importlib.abc import Traversable
from pathlib import Path
from typing import Protocol

from . import build_rows as rows
from .files import (
    DATA_FILES,
    data_file,
    data_root,
)
from .schema import (
    APP_BITS,
    INDEXES,
    SCHEMA_VERSION,
    TABLES,
)
from .types import CatalogStats

SOURCE_SHIPPED = "shipped"
SOURCE_IMPORT = "import"


class Extension(Protocol):
    """Something built into catalog.db with the catalog: its inputs count in the source
    digest and the staleness check, and it writes its rows inside the build, before the
    database is moved into place (so a catalog is never served without it)."""

    def digest(self) -> str:
        """A digest of the extension's inputs (files and code versions)."""
        ...

    def mtimes(self) -> list[float]:
        """The modification times of its input files."""
        ...

    def insert(self, conn: sqlite3.Connection) -> None:
        """Write its rows; the catalog's own tables are filled, the indexes not yet."""
        ...


def source_digest(root: Traversable, extension: Extension) -> str:
    """sha256 over the names and bytes of the catalog's data files, and the extension's
    digest."""
    h = hashlib.sha256()
    for name in DATA_FILES:
        f = data_file(root, name)
        if f is None:
            continue
        h.update(name.encode() + b"\0")
        h.update(f.read_bytes())
    h.update(extension.digest().encode())
    return h.hexdigest()


def ro_uri(db_path: Path) -> str:
    """A read-only SQLite URI for ``db_path`` (percent-encoded, any characters)."""
    return Path(db_path).resolve().as_uri() + "?mode=ro"


class ImportedCatalogOutdated(Exception):
    """An imported catalog was built by another schema version: only a new import (or
    going back to the shipped catalog) can replace it."""


def catalog_meta(db_path: Path) -> dict[str, str]:
    """The ``meta`` table of a built catalog ({} when missing or unreadable).

    ``source``: ``shipped`` (the packaged data; also when absent, as in catalogs built
    before imports existed) or ``import`` (a store's own data, ``partchat catalog import``).
    """
    try:
        conn = sqlite3.connect(ro_uri(db_path), uri=True)
        try:
            rows = conn.execute("SELECT key, value FROM meta").fetchall()
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return {}
    meta = {str(k): str(v) for k, v in rows}
    meta.setdefault("source", SOURCE_SHIPPED)
    meta["user_version"] = str(version)
    return meta


def needs_build(db_path: Path, source_dir: Path | None = None, *, extension: Extension) -> bool:
    """True when the database is missing, has another schema version, or is older than
    the sources and was built from different data (a touched but unchanged file does
    not trigger a rebuild). An imported catalog is never rebuilt from the shipped data:
    it is kept, or, built by another schema version, refused
    (:class:`ImportedCatalogOutdated`)."""
    db_path = Path(db_path)
    if not db_path.is_file():
        return True
    meta = catalog_meta(db_path)
    if not meta:
        return True
    version = int(meta["user_version"])
    if meta["source"] == SOURCE_IMPORT:
        if version != SCHEMA_VERSION:
            raise ImportedCatalogOutdated(
                f"{db_path} was imported from a store's data by another partchat version: "
                "run `partchat catalog import --from DIR` again, or `partchat catalog build` "
                "for the shipped catalog"
            )
        return False
    digest = meta.get("source_digest")
    if version != SCHEMA_VERSION or digest is None:
        return True
    root = data_root(source_dir)
    db_mtime = db_path.stat().st_mtime
    newer = True  # unknown mtimes (zipped package): compare digests
    if isinstance(root, Path):
        mtimes = [
            root.joinpath(n).stat().st_mtime for n in DATA_FILES if root.joinpath(n).is_file()
        ]
        newer = any(m > db_mtime for m in [*mtimes, *extension.mtimes()])
    if not newer:
        return False
    return digest != source_digest(root, extension)


def build_catalog(
    source_dir: Path | None,
    db_path: Path,
    *,
    extension: Extension,
    origin: dict[str, str] | None = None,
) -> CatalogStats:
    """Build ``db_path`` from ``source_dir`` (None: the packaged data) and ``extension``;
    atomic replace.

    ``origin``: extra ``meta`` rows; ``{"source": "import", …}`` marks a store's import,
    which ``needs_build`` then keeps."""
    root = data_root(source_dir)
    db_path = Path(db_path)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = db_path.with_name(f".{db_path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        conn = sqlite3.connect(tmp)
        try:
            _fill(conn, root, extension, {"source": SOURCE_SHIPPED, **(origin or {})})
            conn.commit()
            stats = stats_from_connection(conn)
        finally:
            conn.close()
        os.replace(tmp, db_path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return stats


def _fill(
    conn: sqlite3.Connection, root: Traversable, extension: Extension, origin: dict[str, str]
) -> None:
    conn.executescript(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY;"
        "PRAGMA cache_size = -200000;"
    )
    conn.executescript(TABLES)
    part_ids = rows.insert_parts(conn, root)
    rows.insert_symptoms(conn, root, part_ids)
    model_ids = rows.insert_models(conn, root)
    rows.insert_compat(conn, root, part_ids, model_ids)
    rows.insert_guides(conn, root)
    extension.insert(conn)
    conn.executescript(INDEXES)
    conn.execute(
        "UPDATE models SET part_count = "
        "(SELECT count(*) FROM compat WHERE compat.model_id = models.id)"
    )
    conn.execute("INSERT INTO parts_fts(parts_fts) VALUES ('optimize')")
    conn.executemany(
        "INSERT INTO meta VALUES (?, ?)",
        [
            ("schema_version", str(SCHEMA_VERSION)),
            ("source_digest", source_digest(root, extension)),
            ("part_number_shape", rows.part_number_shape(conn)),
            *sorted(origin.items()),
        ],
    )
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    conn.execute("ANALYZE")


def stats_from_connection(conn: sqlite3.Connection) -> CatalogStats:
    """The catalog's headline figures (sync; used by the build and the CLI)."""

    def one(sql: str) -> int:
        return int(conn.execute(sql).fetchone()[0])

    by_app: dict[str, dict[str, int]] = {}
    for app, bit in APP_BITS.items():
        by_app[app] = {
            "parts": one(f"SELECT count(*) FROM parts WHERE app_mask & {bit}"),
            "parts_with_details": one(
                f"SELECT count(*) FROM parts WHERE app_mask & {bit} AND details = 1"
            ),
            "models": one(f"SELECT count(*) FROM models WHERE appliance = '{app}'"),
            "symptoms": one(f"SELECT count(*) FROM symptoms WHERE appliance = '{app}'"),
            "repair_guides": one(f"SELECT count(*) FROM repair_guides WHERE appliance = '{app}'"),
        }
    return CatalogStats(
        parts=one("SELECT count(*) FROM parts"),
        models=one("SELECT count(*) FROM models"),
        compatibility_pairs=one("SELECT count(*) FROM compat"),
        symptoms=one("SELECT count(*) FROM symptoms"),
        install_guides=one("SELECT count(*) FROM install_guides WHERE part_type_key != ''"),
        brands=one("SELECT count(DISTINCT brand) FROM parts WHERE brand IS NOT NULL"),
        by_appliance=by_app,
    )


def stats_sync(db_path: Path) -> CatalogStats:
    """Read the stats of a built catalog without an event loop (for the CLI)."""
    conn = sqlite3.connect(ro_uri(db_path), uri=True)
    try:
        return stats_from_connection(conn)
    finally:
        conn.close()
