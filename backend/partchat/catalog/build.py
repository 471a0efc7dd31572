"""Build catalog.db from the normalised files in ``data/catalog/`` (or another dir).

The database is written to a temporary file next to the target and moved into place with
``os.replace``: readers never see a half-built database, and a failed build leaves the
previous one untouched. What else goes into catalog.db (the understanding model,
``nlu.store.CATALOG_EXTENSION``) is passed in by the caller as an :class:`Extension`, so
this layer imports nothing above it.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import sqlite3
import uuid
from collections.abc import Iterator
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any, Protocol

import orjson

from .files import (
    COMPAT_FILE,
    DATA_FILES,
    GUIDES_FILE,
    INSTALL_FILE,
    MODELS_FILE,
    PARTS_FILE,
    SYMPTOMS_FILE,
)
from .normalize import number_key, phrase_key
from .schema import (
    APP_BITS,
    EVIDENCE_CODES,
    INDEXES,
    KIND_MFR,
    KIND_PS,
    KIND_PS_DIGITS,
    KIND_REPLACED,
    SCHEMA_VERSION,
    TABLES,
)
from .types import CatalogStats

PACKAGE_DATA = "partchat.catalog_data"
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


def data_root(source_dir: Path | None) -> Traversable:
    """The directory with the normalised files: ``source_dir`` or the packaged data."""
    if source_dir is not None:
        return Path(source_dir)
    return resources.files(PACKAGE_DATA)


def _data_file(root: Traversable, name: str) -> Traversable | None:
    for candidate in (name, name.removesuffix(".gz")):
        f = root.joinpath(candidate)
        if f.is_file():
            return f
    return None


def source_digest(root: Traversable, extension: Extension) -> str:
    """sha256 over the names and bytes of the catalog's data files, and the extension's
    digest."""
    h = hashlib.sha256()
    for name in DATA_FILES:
        f = _data_file(root, name)
        if f is None:
            continue
        h.update(name.encode() + b"\0")
        h.update(f.read_bytes())
    h.update(extension.digest().encode())
    return h.hexdigest()


def read_jsonl(root: Traversable, name: str) -> Iterator[dict[str, Any]]:
    f = _data_file(root, name)
    if f is None:
        raise FileNotFoundError(f"catalog data file {name} not found in {root}")
    with f.open("rb") as raw:
        if f.name.endswith(".gz"):
            with gzip.GzipFile(fileobj=raw) as gz:
                yield from (orjson.loads(line) for line in gz if line.strip())
        else:
            yield from (orjson.loads(line) for line in raw if line.strip())


def read_json(root: Traversable, name: str, default: Any = None) -> Any:
    f = _data_file(root, name)
    if f is None:
        if default is not None:
            return default
        raise FileNotFoundError(f"catalog data file {name} not found in {root}")
    return orjson.loads(f.read_bytes())


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
    part_ids = _insert_parts(conn, root)
    _insert_symptoms(conn, root, part_ids)
    model_ids = _insert_models(conn, root)
    _insert_compat(conn, root, part_ids, model_ids)
    _insert_guides(conn, root)
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
            ("part_number_shape", part_number_shape(conn)),
            *sorted(origin.items()),
        ],
    )
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    conn.execute("ANALYZE")


def part_number_shape(conn: sqlite3.Connection) -> str:
    """A regular expression for the catalog's own part numbers, so a number the catalog
    does not know is still recognised as one: the letter prefixes nearly all of them share
    (``PS``, ``AB``), a dash when the catalog writes one, then digits; "" when the numbers
    share no such shape."""
    prefixes: dict[str, int] = {}
    dashed = 0
    total = 0
    for (number,) in conn.execute("SELECT ps_number FROM parts"):
        total += 1
        m = _SHAPE.match(number)
        if m:
            prefixes[m.group(1)] = prefixes.get(m.group(1), 0) + 1
            dashed += bool(m.group(2))
    common = sorted(p for p, n in prefixes.items() if n * 20 >= total)
    if not common or sum(prefixes[p] for p in common) * 10 < total * 9:
        return ""
    dash = "-?" if dashed else ""
    return f"(?:{'|'.join(common)}){dash}\\d{{3,12}}"


_SHAPE = re.compile(r"^([A-Z]{1,4})(-?)\d{3,12}$")


def _pop_key(p: dict[str, Any]) -> tuple[Any, ...]:
    return (
        0 if p.get("details", True) else 1,
        -(p.get("review_count") or 0),
        -(p.get("rating_pct") or 0),
        0 if (p.get("availability") or "") == "In Stock" else 1,
        p["ps_number"],
    )


def _insert_parts(conn: sqlite3.Connection, root: Traversable) -> dict[str, tuple[int, int]]:
    # ids follow popularity, so full-text matches stream best-known parts first
    parts = sorted(read_jsonl(root, PARTS_FILE), key=_pop_key)
    rows: list[tuple[Any, ...]] = []
    numbers: list[tuple[str, int, int]] = []
    fts: list[tuple[Any, ...]] = []
    ids: dict[str, tuple[int, int]] = {}
    for pid, p in enumerate(parts, start=1):
        ps = p["ps_number"]
        rank = pid - 1
        ids[ps] = (pid, rank)
        apps = [a for a in p.get("appliances") or [] if a in APP_BITS]
        mask = sum(APP_BITS[a] for a in set(apps))
        replaces = list(p.get("replaces") or [])
        symptoms = list(p.get("symptoms") or [])
        rows.append(
            (
                pid,
                ps,
                p.get("mfr_number"),
                p["name"],
                p.get("brand"),
                p.get("part_type"),
                orjson.dumps(apps).decode(),
                mask,
                p.get("price_cents"),
                p.get("availability"),
                p.get("video_url"),
                p.get("rating_pct"),
                p.get("review_count"),
                orjson.dumps(replaces).decode(),
                orjson.dumps(symptoms).decode(),
                p.get("difficulty"),
                p.get("install_time"),
                int(bool(p.get("details", True))),
                rank,
            )
        )
        keys = {(number_key(ps), KIND_PS)}
        if ps[2:].isdigit():
            keys.add((ps[2:], KIND_PS_DIGITS))
        if p.get("mfr_number"):
            keys.add((number_key(p["mfr_number"]), KIND_MFR))
        keys.update((number_key(r), KIND_REPLACED) for r in replaces)
        numbers.extend((k, kind, pid) for k, kind in keys if k)
        nums = " ".join([ps, ps[2:], p.get("mfr_number") or "", *replaces])
        fts.append(
            (
                pid,
                p["name"],
                p.get("part_type") or "",
                p.get("brand") or "",
                " ".join(symptoms),
                nums,
            )
        )
    conn.executemany(f"INSERT INTO parts VALUES ({','.join('?' * 19)})", rows)
    conn.executemany("INSERT OR IGNORE INTO part_numbers VALUES (?, ?, ?)", numbers)
    conn.executemany(
        "INSERT INTO parts_fts(rowid, name, part_type, brand, symptoms, numbers) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        fts,
    )
    conn.execute("CREATE TEMP TABLE part_labels (ps TEXT, labels TEXT, apps TEXT, ptype TEXT)")
    conn.executemany(
        "INSERT INTO part_labels VALUES (?, ?, ?, ?)", [(r[1], r[14], r[6], r[5]) for r in rows]
    )
    return ids


def _insert_symptoms(
    conn: sqlite3.Connection, root: Traversable, part_ids: dict[str, tuple[int, int]]
) -> None:
    vocab = read_json(root, SYMPTOMS_FILE)
    conn.executemany(
        "INSERT INTO symptoms VALUES (?, ?, ?, ?)",
        [
            (s["id"], s["appliance"], s["label"], orjson.dumps(s["synonyms"]).decode())
            for s in vocab
        ],
    )
    by_label = {(s["appliance"], phrase_key(s["label"])): s["id"] for s in vocab}
    rows = []
    for ps, labels, apps, ptype in conn.execute("SELECT ps, labels, apps, ptype FROM part_labels"):
        pid, rank = part_ids[ps]
        for pos, label in enumerate(orjson.loads(labels)):
            for app in orjson.loads(apps):
                sid = by_label.get((app, phrase_key(label)))
                if sid:
                    rows.append((sid, pos, rank, pid, ptype))
    conn.executemany("INSERT OR IGNORE INTO part_symptoms VALUES (?, ?, ?, ?, ?)", rows)
    conn.execute("DROP TABLE part_labels")


def _insert_models(conn: sqlite3.Connection, root: Traversable) -> dict[str, int]:
    models = sorted(read_jsonl(root, MODELS_FILE), key=lambda m: m["model_number"])
    ids: dict[str, int] = {}
    rows = []
    for m in models:
        key = number_key(m["model_number"])
        if not key or key in ids:
            continue
        ids[key] = len(ids) + 1
        rows.append(
            (
                ids[key],
                key,
                m.get("brand"),
                m.get("appliance"),
                int(bool(m.get("has_model_page"))),
                0,
            )
        )
    conn.executemany("INSERT INTO models VALUES (?, ?, ?, ?, ?, ?)", rows)
    return ids


def _insert_compat(
    conn: sqlite3.Connection,
    root: Traversable,
    part_ids: dict[str, tuple[int, int]],
    model_ids: dict[str, int],
) -> None:
    pairs: dict[tuple[int, int], int] = {}
    for rec in read_jsonl(root, COMPAT_FILE):
        part = part_ids.get(rec["part"])
        model = model_ids.get(number_key(rec["model"]))
        if part is None or model is None:
            continue
        ev = EVIDENCE_CODES.get(rec.get("evidence", ""), EVIDENCE_CODES["part_page"])
        key = (model, part[0])
        pairs[key] = min(ev, pairs.get(key, ev))
    conn.executemany(
        "INSERT INTO compat VALUES (?, ?, ?)", ((m, p, ev) for (m, p), ev in sorted(pairs.items()))
    )


def _insert_guides(conn: sqlite3.Connection, root: Traversable) -> None:
    guides = read_json(root, GUIDES_FILE, default=[])
    conn.executemany(
        "INSERT OR REPLACE INTO repair_guides VALUES (?, ?, ?, ?)",
        [
            (g["appliance"], g["symptom_id"], i, orjson.dumps(g).decode())
            for i, g in enumerate(guides)
        ],
    )
    install = read_json(root, INSTALL_FILE, default={"general": None, "guides": []})
    rows = []
    if install.get("general"):
        rows.append(("", orjson.dumps(install["general"]).decode()))
    for g in install.get("guides", []):
        rows.append((phrase_key(g["part_type"]), orjson.dumps(g).decode()))
    conn.executemany("INSERT OR REPLACE INTO install_guides VALUES (?, ?)", rows)


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
