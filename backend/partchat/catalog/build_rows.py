"""The catalog's rows: each normalised data file into its tables (parts, symptoms, models,
compatibility, guides), and the part-number shape the rows share."""

from __future__ import annotations

import re
import sqlite3
from functools import cache
from importlib.abc import Traversable
from typing import Any

import orjson

from .files import (
    COMPAT_FILE,
    GUIDES_FILE,
    INSTALL_FILE,
    MODELS_FILE,
    PARTS_FILE,
    SYMPTOMS_FILE,
    read_json,
    read_jsonl,
)
from .normalize import number_key, phrase_key
from .schema import (
    APP_BITS,
    EVIDENCE_CODES,
    KIND_MFR,
    KIND_PS,
    KIND_PS_DIGITS,
    KIND_REPLACED,
)
from .types import Appliance
from .vocab import appliance_words


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


def insert_parts(conn: sqlite3.Connection, root: Traversable) -> dict[str, tuple[int, int]]:
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
        "INSERT INTO part_labels VALUES (?, ?, ?, ?)",
        [(r[1], r[14], _symptom_appliances(r[3], r[6]), r[5]) for r in rows],
    )
    return ids


@cache
def _appliance_named() -> tuple[re.Pattern[str], dict[str, Appliance]]:
    """A part name's appliance words (``appliance_words.json``: names, plurals and the
    compartments, "Freezer Door Gasket"), and the appliance each names."""
    words = dict(appliance_words(("name", "plural", "compartment")))
    alts = "|".join(re.escape(w) for w in words)
    return re.compile(rf"\b({alts})\b", re.IGNORECASE), words


def _symptom_appliances(name: str, apps: str) -> str:
    """The appliances (a JSON list) whose symptoms a part's labels stand for: a part listed
    for both whose name names one fixes that one's ("Refrigerator Screw", listed for
    dishwashers too, is no fix for a dishwasher's *Clicking sound*)."""
    pattern, words = _appliance_named()
    named = {words[m.lower()] for m in pattern.findall(name)}
    listed = orjson.loads(apps)
    if len(named) != 1 or len(listed) < 2 or not named <= set(listed):
        return apps
    return orjson.dumps(sorted(named)).decode()


def insert_symptoms(
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


def insert_models(conn: sqlite3.Connection, root: Traversable) -> dict[str, int]:
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


def insert_compat(
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


def insert_guides(conn: sqlite3.Connection, root: Traversable) -> None:
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
