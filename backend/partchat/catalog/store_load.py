"""What a catalog keeps in memory, read from catalog.db at ``open``."""

from __future__ import annotations

import orjson

from partchat.catalog.loop_sqlite import LoopConnection

from .models_index import ModelIndex
from .normalize import phrase_key
from .symptom_index import SymptomIndex
from .types import (
    InstallGuide,
    RepairGuide,
    Symptom,
)

Indexes = tuple[
    ModelIndex,
    SymptomIndex,
    dict[str, RepairGuide],
    dict[str, list[str]],
    dict[str, InstallGuide],
    dict[str, str],
]


def load_indexes(conn: LoopConnection) -> Indexes:
    """Configure the connection and read the small tables kept in memory."""
    conn.execute("PRAGMA query_only = 1")
    conn.execute("PRAGMA cache_size = -65536")
    conn.execute("PRAGMA mmap_size = 268435456")
    models = ModelIndex(
        conn.execute(
            "SELECT model_number, id, brand, appliance, part_count, has_model_page FROM models"
        ).fetchall()
    )
    symptoms = SymptomIndex(
        [
            Symptom(id=r[0], appliance=r[1], label=r[2], synonyms=orjson.loads(r[3]))
            for r in conn.execute("SELECT id, appliance, label, synonyms FROM symptoms ORDER BY id")
        ]
    )
    guides: dict[str, RepairGuide] = {}
    guide_types: dict[str, list[str]] = {}
    for (data,) in conn.execute("SELECT data FROM repair_guides ORDER BY rank").fetchall():
        g = orjson.loads(data)
        guides[g["symptom_id"]] = RepairGuide(
            appliance=g["appliance"],
            symptom=g["symptom"],
            part_types=g["part_types"],
            reported_pct=g.get("reported_pct"),
            difficulty=g.get("difficulty"),
            video_url=g.get("video_url"),
        )
        guide_types[g["symptom_id"]] = list(g.get("catalog_part_types") or [])
    install: dict[str, InstallGuide] = {
        key: orjson.loads(data)
        for key, data in conn.execute("SELECT part_type_key, data FROM install_guides").fetchall()
    }
    part_types = {
        phrase_key(t): t
        for (t,) in conn.execute(
            "SELECT DISTINCT part_type FROM parts WHERE part_type IS NOT NULL"
        ).fetchall()
    }
    return models, symptoms, guides, guide_types, install, part_types


def load_listed_types(conn: LoopConnection) -> dict[str, list[str]]:
    """symptom id -> the (up to 6) part types most often among the parts that list it."""
    out: dict[str, list[str]] = {}
    for sid, ptype, n in conn.execute(
        "SELECT symptom_id, part_type, COUNT(*) AS n FROM part_symptoms "
        "WHERE part_type IS NOT NULL GROUP BY symptom_id, part_type "
        "ORDER BY symptom_id, n DESC, part_type"
    ).fetchall():
        types = out.setdefault(sid, [])
        if n >= 2 and len(types) < 6:
            types.append(ptype)
    return out


def load_shape(conn: LoopConnection) -> str:
    row = conn.execute("SELECT value FROM meta WHERE key = 'part_number_shape'").fetchone()
    return str(row[0]) if row else ""
