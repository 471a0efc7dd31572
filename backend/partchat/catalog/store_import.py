"""``partchat catalog import --from DIR``: a store's own catalog replaces ``catalog.db``.

Everything is checked first (every row against its kind's schema, then across records);
any error and nothing is written. Then the rows become the normalised files the build
reads (``data/catalog``'s shapes, in a temporary directory) and ``build_catalog`` builds
and trains the new database beside the old one and ``os.replace``s it: readers see the
old catalog or the new one, never a half-import.
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from pathlib import Path
from typing import Any

import orjson

from .build import SOURCE_IMPORT, Extension, build_catalog
from .files import (
    COMPAT_FILE,
    GUIDES_FILE,
    INSTALL_FILE,
    MODELS_FILE,
    PARTS_FILE,
    SYMPTOMS_FILE,
    data_root,
    read_json,
)
from .normalize import model_key, phrase_key, slugify
from .store_checks import GENERAL_GUIDE, Rows, cross_errors
from .store_format import RowError, find_files, read_rows, schema_errors
from .types import CatalogStats

ERROR_LIMIT = 50


class ImportRejected(Exception):
    """The store's files have errors; nothing was written."""

    def __init__(self, errors: list[RowError]) -> None:
        super().__init__(f"{len(errors)} errors")
        self.errors = errors


def format_errors(errors: list[RowError], limit: int = ERROR_LIMIT) -> list[str]:
    """``file:line: field: message`` lines, at most ``limit``, then "… and N more"."""
    lines = []
    for e in errors[:limit]:
        where = f"{e['file']}:{e['line']}" if e["line"] else e["file"]
        lines.append(
            f"{where}: {e['field']}: {e['message']}" if e["field"] else f"{where}: {e['message']}"
        )
    if len(errors) > limit:
        lines.append(f"… and {len(errors) - limit} more")
    return lines


def validate(src: Path) -> tuple[Rows, list[RowError]]:
    """Every record of ``src`` by kind, and every error found in it."""
    src = Path(src)
    if not src.is_dir():
        return {}, [RowError(file=str(src), line=0, field="", message="not a directory")]
    files, errors = find_files(src)
    rows: Rows = {}
    for kind, path in files.items():
        rows[kind] = []
        for item in read_rows(path, kind):
            if item["error"] is not None:
                errors.append(item["error"])
                continue
            row_errors = schema_errors(item, kind)
            errors += row_errors
            if not row_errors:
                rows[kind].append(item)
    if not errors:
        errors = cross_errors(rows)
    return rows, errors


def import_catalog(src: Path, db_path: Path, *, extension: Extension) -> CatalogStats:
    """Validate ``src``, then build ``db_path`` from it and ``extension`` atomically
    (raises :class:`ImportRejected` with every error, having written nothing)."""
    rows, errors = validate(src)
    if errors:
        raise ImportRejected(errors)
    db_path = Path(db_path)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".import-", dir=db_path.parent) as tmp:
        write_normalised(rows, Path(tmp))
        origin = {
            "source": SOURCE_IMPORT,
            "imported_from": str(Path(src).resolve()),
            "imported_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        }
        return build_catalog(Path(tmp), db_path, extension=extension, origin=origin)


def _records(rows: Rows, kind: str) -> list[dict[str, Any]]:
    return [r["record"] for r in rows.get(kind, []) if r["record"] is not None]


def write_normalised(rows: Rows, out: Path) -> None:
    """The store's records in the build's input shapes (``docs/catalog.md``, "Data")."""
    guides = _records(rows, "install_guides")
    by_type = {phrase_key(g["part_type"]): g for g in guides}
    models = {model_key(m["model_number"]): m for m in _records(rows, "models")}
    _jsonl(
        out / PARTS_FILE,
        (_part(p, by_type.get(phrase_key(p["part_type"]))) for p in _records(rows, "parts")),
    )
    _jsonl(
        out / MODELS_FILE,
        (
            {
                "model_number": key,
                "brand": m["brand"],
                "appliance": m["appliance"],
                "has_model_page": bool(m.get("complete_parts_list")),
            }
            for key, m in models.items()
        ),
    )
    _jsonl(
        out / COMPAT_FILE,
        (
            {
                "part": c["part_number"],
                "model": c["model_number"],
                "evidence": "model_page"
                if models[model_key(c["model_number"])].get("complete_parts_list")
                else "part_page",
            }
            for c in _records(rows, "compatibility")
        ),
    )
    symptoms = _records(rows, "symptoms")
    _json(out / SYMPTOMS_FILE, [_symptom(s) for s in symptoms])
    _json(out / GUIDES_FILE, [_repair_guide(s) for s in symptoms])
    general = by_type.get(GENERAL_GUIDE)
    _json(
        out / INSTALL_FILE,
        {
            "general": _guide(general, generic=True) if general else _shipped_general(),
            "guides": [_guide(g, generic=False) for k, g in by_type.items() if k != GENERAL_GUIDE],
        },
    )


def _part(p: dict[str, Any], guide: dict[str, Any] | None) -> dict[str, Any]:
    price = p.get("price")
    return {
        "ps_number": p["part_number"],
        "mfr_number": p.get("mfr_number"),
        "name": p["name"],
        "brand": p.get("brand"),
        "part_type": p["part_type"],
        "appliances": p["appliances"],
        "price_cents": round(price * 100) if price is not None else None,
        "availability": p.get("availability"),
        "video_url": p.get("video_url"),
        "rating_pct": p.get("rating_pct"),
        "review_count": p.get("review_count"),
        "replaces": p.get("replaces", []),
        "symptoms": p.get("symptoms", []),
        "difficulty": p.get("difficulty") or (guide or {}).get("difficulty"),
        "install_time": p.get("install_time") or (guide or {}).get("time"),
        "details": True,
    }


def _symptom(s: dict[str, Any]) -> dict[str, Any]:
    synonyms = list(dict.fromkeys([s["label"].lower(), *(x.lower() for x in s["synonyms"])]))
    return {
        "id": f"{s['appliance']}/{slugify(s['label'])}",
        "appliance": s["appliance"],
        "label": s["label"],
        "synonyms": synonyms,
    }


def _repair_guide(s: dict[str, Any]) -> dict[str, Any]:
    return {
        "appliance": s["appliance"],
        "symptom": s["label"],
        "symptom_id": f"{s['appliance']}/{slugify(s['label'])}",
        "part_types": s["part_types"],
        "catalog_part_types": s["part_types"],
        "reported_pct": s.get("reported_pct"),
        "difficulty": s.get("difficulty"),
        "video_url": s.get("video_url"),
    }


def _guide(g: dict[str, Any], *, generic: bool) -> dict[str, Any]:
    return {
        "generic": generic,
        "part_type": None if generic else g["part_type"],
        "title": g["title"],
        "safety": g.get("safety", []),
        "tools": g.get("tools", []),
        "steps": g["steps"],
        "test": g.get("test", []),
    }


def _shipped_general() -> Any:
    """The project's general install guide (no part facts in it: safety and the usual
    steps) for stores that write none."""
    return read_json(data_root(None), INSTALL_FILE)["general"]


def _jsonl(path: Path, records: Any) -> None:
    """Plain JSON Lines (the build reads ``parts.jsonl`` when ``parts.jsonl.gz`` is absent)."""
    with path.with_name(path.name.removesuffix(".gz")).open("wb") as f:
        for rec in records:
            f.write(orjson.dumps(rec) + b"\n")


def _json(path: Path, obj: Any) -> None:
    path.write_text(json.dumps(obj), encoding="utf-8")
