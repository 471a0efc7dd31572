"""Import the raw scraped sources into normalised catalog facts under ``data/catalog/``.

A developer tool, not shipped in the wheel; never run at install or run time (from a
checkout with the project installed, e.g. ``pip install -e .``)::

    python scripts/import_sources.py /path/to/catalog-sources [--out data/catalog]

Only facts are carried over (numbers, names, prices, labels, URLs); prose columns are
ignored. Output is deterministic: records sorted, keys sorted, gzip without timestamps.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from partchat.catalog.files import (
    COMPAT_FILE,
    GUIDES_FILE,
    INSTALL_FILE,
    MODELS_FILE,
    PARTS_FILE,
    SYMPTOMS_FILE,
)
from partchat.catalog.normalize import (
    appliances_from_text,
    clean_text,
    model_key,
    number_key,
    part_type_from_name,
    phrase_key,
    price_to_cents,
    slugify,
    split_list,
    youtube_watch_url,
)
from partchat.catalog.vocab import guide_type_overrides, symptom_specs

# The one pair the sources README flags as hand-added and not real.
BOGUS_PAIRS = frozenset({("PS11752778", "WDT780SAEM1")})

SOURCES_FILE = "SOURCES.md"

# Source short names, in the order used for prices (first with a value wins).
PC, AP, PIE, FJ, DJ, OM, MM = "PC", "AP", "PIE", "FJ", "DJ", "OM", "MM"
SOURCE_FILES = {
    PC: "parts_catalog.csv",
    PIE: "parts_install_effort.csv",
    AP: "appliance_parts_{dishwasher,refrigerator}.csv",
    DJ: "dishwasher_parts_with_models.json",
    FJ: "fridge_dishwasher_parts_with_models.json",
    OM: "original_model_WDT780SAEM1.json",
    MM: "model_parts_map_{dishwasher,refrigerator}.csv",
}
PRIORITY: dict[str, tuple[str, ...]] = {
    "name": (OM, AP, DJ, FJ, PC, PIE),
    "mfr_number": (PC, PIE, AP, DJ, FJ, OM),
    "brand": (PC, PIE, AP, DJ),
    "price_cents": (PC, AP, PIE, FJ, DJ, OM),
    "availability": (PC, PIE, AP),
    "video_url": (PC, PIE, AP, OM),
    "rating_pct": (FJ, AP),
    "review_count": (FJ,),
    "difficulty": (PIE, AP),
    "install_time": (PIE, AP),
    "symptoms": (PC, PIE, AP, DJ, FJ, OM),
}
APPLIANCES = ("dishwasher", "refrigerator")
_PS = re.compile(r"^PS\d+$")


# --------------------------------------------------------------------------- symptoms


def _symptom_id(appliance: str, label: str) -> str:
    return f"{appliance}/{slugify(label)}"


def symptom_records() -> list[dict[str, Any]]:
    """The vocabulary, one record per (appliance, canonical label)."""
    out: list[dict[str, Any]] = []
    for appliance, specs in symptom_specs().items():
        for label, _variants, synonyms in specs:
            syns: list[str] = []
            for s in (label.lower(), *synonyms):
                s = s.lower().strip()
                if s not in syns:
                    syns.append(s)
            out.append(
                {
                    "id": _symptom_id(appliance, label),
                    "appliance": appliance,
                    "label": label,
                    "synonyms": syns,
                }
            )
    return sorted(out, key=lambda r: r["id"])


def _variant_map() -> dict[str, dict[str, str]]:
    """appliance → phrase key of a raw source label → canonical label."""
    out: dict[str, dict[str, str]] = {a: {} for a in symptom_specs()}
    for appliance, specs in symptom_specs().items():
        for label, variants, _ in specs:
            for v in (label, *variants):
                out[appliance][phrase_key(v)] = label
    return out


# --------------------------------------------------------------------------- readers


@dataclass
class Raw:
    """Everything the sources say about one PS number, per source."""

    values: dict[str, dict[str, list[Any]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    appliances: set[str] = field(default_factory=set)
    replaces: list[str] = field(default_factory=list)
    symptoms: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    name_hints: list[str] = field(default_factory=list)

    def put(self, source: str, fld: str, value: Any) -> None:
        if value is not None and value != "":
            self.values[fld][source].append(value)


def _rows(path: Path) -> Iterator[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        yield from csv.DictReader(fh)


def _title_from_url(name: str | None, url: str | None) -> str | None:
    """The product title: the tail of a listing name whose slug ends the product URL."""
    if not name or not url:
        return None
    m = re.search(r"/PS\d+-[^/]*?\.htm", url)
    if not m:
        return None
    slug = m.group(0)[:-4].lower()
    words = name.split()
    for i in range(len(words)):
        tail = " ".join(words[i:])
        s = slugify(tail)
        if s and slug.endswith("-" + s):
            return tail
    return None


def _strip_number(title: str | None, number: str | None) -> str | None:
    title = clean_text(title)
    if title and number and title.upper().endswith(" " + number.upper()):
        title = title[: -len(number) - 1].strip()
    return title


def _symptom_list(text: str | None) -> list[str]:
    return [s for s in split_list(text, "|")]


def _re_section(text: str, start: str, ends: Iterable[str]) -> str | None:
    i = text.find(start)
    if i < 0:
        return None
    rest = text[i + len(start) :]
    cut = len(rest)
    for e in ends:
        j = rest.find(e)
        if 0 <= j < cut:
            cut = j
    return rest[:cut]


# A list's "Show less" / "... Read more" link text, and stray marks after a number
_LINK_TAIL = re.compile(r"\s*(\.\.\.\s*)?(show (less|more)|read more)\s*$", re.IGNORECASE)
_NUMBER_SHAPE = re.compile(r"[A-Z0-9][A-Z0-9./#-]*( [A-Z0-9./#-]+)?")


def _replaced_number(text: str) -> str | None:
    """A replaced-number list's item as a number ("WS7201 Show less" → "WS7201"), or None
    for the repair stories some source rows carry in that column ("laid it on its side",
    "Simple fix"): a number is upper case, at most two pieces, no sentence marks."""
    item = re.sub(r"[^A-Za-z0-9]+$", "", _LINK_TAIL.sub("", text))
    return item if _NUMBER_SHAPE.fullmatch(item) else None


class Importer:
    def __init__(self, src: Path) -> None:
        self.src = src
        self.parts: dict[str, Raw] = defaultdict(Raw)
        self.pairs: dict[tuple[str, str], str] = {}
        self.models: dict[str, dict[str, Any]] = {}
        self.counts: Counter[str] = Counter()
        self.dropped: Counter[str] = Counter()
        self.variants = _variant_map()

    # -- sources
    def read_all(self) -> None:
        self._read_pc()
        self._read_pie()
        self._read_ap()
        self._read_dj()
        self._read_fj()
        self._read_om()
        self._read_mm()

    def _common(self, raw: Raw, src: str, r: dict[str, Any]) -> None:
        for key in ("mfr_number", "brand", "availability"):
            raw.put(src, key, clean_text(r.get(key)))
        raw.put(src, "price_cents", price_to_cents(r.get("price")))
        raw.put(src, "video_url", youtube_watch_url(r.get("video_url")))
        raw.put(src, "difficulty", clean_text(r.get("difficulty")))
        raw.put(src, "install_time", clean_text(r.get("install_time")))
        raw.appliances |= appliances_from_text(r.get("types"))
        raw.replaces += split_list(r.get("replaces"))
        syms = _symptom_list(r.get("symptoms"))
        if syms and not raw.symptoms.get(src):
            raw.symptoms[src] = syms

    def _read_pc(self) -> None:
        for r in _rows(self.src / "parts_catalog.csv"):
            ps = clean_text(r["part_number"])
            if not ps or not _PS.match(ps):
                continue
            self.counts[PC] += 1
            raw = self.parts[ps]
            raw.put(PC, "name", _title_from_url(clean_text(r["name"]), r["product_url"]))
            if r["name"]:
                raw.name_hints.append(r["name"])
            self._common(
                raw,
                PC,
                {
                    "mfr_number": r["manufacturer_id"],
                    "brand": r["manufacturer"],
                    "availability": r["availability"],
                    "price": r["price"],
                    "video_url": r["video_url"],
                    "types": r["product_types"],
                    "replaces": r["replacement_parts"],
                    "symptoms": r["symptoms"],
                    "difficulty": r["installation_difficulty"],
                    "install_time": r["installation_time"],
                },
            )

    def _read_pie(self) -> None:
        for r in _rows(self.src / "parts_install_effort.csv"):
            ps = clean_text(r["part_id"])
            if not ps or not _PS.match(ps):
                continue
            self.counts[PIE] += 1
            raw = self.parts[ps]
            raw.put(PIE, "name", _title_from_url(clean_text(r["part_name"]), r["product_url"]))
            if r["part_name"]:
                raw.name_hints.append(r["part_name"])
            self._common(
                raw,
                PIE,
                {
                    "mfr_number": r["mpn_id"],
                    "brand": r["brand"],
                    "availability": r["availability"],
                    "price": r["part_price"],
                    "video_url": r["install_video_url"],
                    "types": r["appliance_types"],
                    "replaces": r["replace_parts"],
                    "symptoms": r["symptoms"],
                    "difficulty": r["install_difficulty"],
                    "install_time": r["install_time"],
                },
            )

    def _read_ap(self) -> None:
        for appliance in APPLIANCES:
            for r in _rows(self.src / f"appliance_parts_{appliance}.csv"):
                ps = clean_text(r["part_id"])
                if not ps or not _PS.match(ps):
                    continue
                self.counts[AP] += 1
                raw = self.parts[ps]
                m = re.search(r"/PS\d+-(.+?)-([^-]+)-.*\.htm", r.get("url") or "")
                mfr = m.group(2) if m else None
                title = clean_text(r["title"])
                if mfr and title and not title.upper().endswith(" " + mfr.upper()):
                    mfr = None
                raw.put(AP, "name", _strip_number(title, mfr))
                rating = clean_text(r.get("rating"))
                if rating and rating.isdigit() and 0 <= int(rating) <= 100:
                    raw.put(AP, "rating_pct", int(rating))
                self._common(
                    raw,
                    AP,
                    {
                        "mfr_number": mfr,
                        "brand": r["brand"],
                        "availability": r["availability"],
                        "price": r["price"],
                        "video_url": r["video_url"],
                        "types": r["product_types"],
                        "replaces": r["replacement_parts"],
                        "symptoms": r["symptoms"],
                        "difficulty": r["installation_difficulty"],
                        "install_time": r["installation_time"],
                    },
                )

    def _add_models(self, ps: str, models: Iterable[str], appliance: str | None) -> None:
        for m in models:
            key = model_key(m)
            if len(key) < 3:
                continue
            if (ps, key) in BOGUS_PAIRS:
                self.dropped["hand-added pair PS11752778–WDT780SAEM1"] += 1
                continue
            self.pairs.setdefault((ps, key), "part_page")
            info = self.models.setdefault(
                key, {"brand": None, "appliance": None, "has_model_page": False, "votes": Counter()}
            )
            if appliance:
                info["votes"][appliance] += 1

    def _read_dj(self) -> None:
        data = json.loads((self.src / "dishwasher_parts_with_models.json").read_text("utf-8"))
        for p in data:
            ps = clean_text(p.get("PartSelect_Number"))
            if not ps or not _PS.match(ps):
                continue
            self.counts[DJ] += 1
            raw = self.parts[ps]
            mfr = clean_text(p.get("Manufacturer_Part_Number"))
            raw.put(DJ, "name", _strip_number(p.get("Product_Name"), mfr))
            raw.put(DJ, "mfr_number", mfr)
            raw.put(DJ, "brand", clean_text(p.get("Manufactured_by")))
            raw.put(DJ, "price_cents", price_to_cents(p.get("Price")))
            raw.appliances.add("dishwasher")
            raw.replaces += [x for x in (clean_text(v) for v in p.get("Replaces_parts") or []) if x]
            blobs = (clean_text(p.get("Issues_Fixed")), clean_text(p.get("Works_with")))
            for blob in (b or "" for b in blobs):
                syms = _re_section(blob, "fixes the following symptoms:", ["This part"])
                if syms and not raw.symptoms.get(DJ):
                    raw.symptoms[DJ] = _symptom_list(syms)
                rep = _re_section(blob, "replaces these:", ["Back to Top"])
                if rep:
                    raw.replaces += split_list(rep)
            self._add_models(ps, p.get("Compatible Models") or [], "dishwasher")

    def _read_fj(self) -> None:
        path = self.src / "fridge_dishwasher_parts_with_models.json"
        data = json.loads(path.read_text("utf-8"))
        for p in data:
            ps = clean_text(p.get("part_number"))
            if not ps or not _PS.match(ps):
                continue
            self.counts[FJ] += 1
            raw = self.parts[ps]
            tips = clean_text(p.get("troubleshooting_tips")) or ""
            m = re.search(r"Part# (\S+) replaces these:", tips)
            mfr = m.group(1) if m else None
            raw.put(FJ, "name", _strip_number(p.get("part_name"), mfr))
            raw.put(FJ, "mfr_number", mfr)
            raw.put(FJ, "price_cents", price_to_cents(p.get("price")))
            rating = clean_text(p.get("rating"))
            if rating and rating.isdigit() and 0 <= int(rating) <= 100:
                raw.put(FJ, "rating_pct", int(rating))
            reviews = clean_text(p.get("review_count"))
            if reviews and reviews.isdigit():
                raw.put(FJ, "review_count", int(reviews))
            appliance = clean_text(p.get("appliance"))
            if appliance in APPLIANCES:
                raw.appliances.add(appliance)
            syms = _re_section(tips, "fixes the following symptoms:", ["This part", "Part#"])
            if syms and not raw.symptoms.get(FJ):
                raw.symptoms[FJ] = _symptom_list(syms)
            products = _re_section(tips, "works with the following products:", ["Part#"])
            raw.appliances |= appliances_from_text(products)
            rep = _re_section(tips, "replaces these:", ["Back to Top"])
            if rep:
                raw.replaces += split_list(rep)
            self._add_models(ps, p.get("compatible_models") or [], appliance)

    def _read_om(self) -> None:
        data = json.loads((self.src / "original_model_WDT780SAEM1.json").read_text("utf-8"))
        for model, info in data.items():
            appliance = next(iter(appliances_from_text(info.get("type"))), None)
            brand_words = (clean_text(info.get("name")) or "").split()
            for ps, p in (info.get("parts") or {}).items():
                ps = clean_text(ps) or ""
                if not _PS.match(ps):
                    continue
                self.counts[OM] += 1
                raw = self.parts[ps]
                raw.put(OM, "name", clean_text(p.get("name")))
                raw.put(OM, "mfr_number", clean_text(p.get("Manufacturer#")))
                raw.put(OM, "price_cents", price_to_cents(p.get("price")))
                raw.put(OM, "video_url", youtube_watch_url(p.get("repair_video_url")))
                if appliance:
                    raw.appliances.add(appliance)
                syms = [clean_text(s) or "" for s in p.get("solves_symptoms") or []]
                if syms and not raw.symptoms.get(OM):
                    raw.symptoms[OM] = [s for s in syms if s]
                self._add_models(ps, [model], appliance)
            key = model_key(model)
            if key in self.models and brand_words:
                self.models[key]["brand"] = brand_words[0]
                self.models[key]["appliance"] = appliance

    def _read_mm(self) -> None:
        for appliance in APPLIANCES:
            for r in _rows(self.src / f"model_parts_map_{appliance}.csv"):
                words = (clean_text(r["model_name"]) or "").split()
                if len(words) < 3:
                    continue
                self.counts[MM] += 1
                key = model_key(words[0])
                if len(key) < 3:
                    self.dropped["model page with a junk model number"] += 1
                    continue
                page_app = next(iter(appliances_from_text(words[-1])), appliance)
                self.models[key] = {
                    "brand": " ".join(words[1:-1]),
                    "appliance": page_app,
                    "has_model_page": True,
                    "votes": Counter(),
                }
                for ps in split_list(r["part_ids"], "|"):
                    if _PS.match(ps):
                        self.pairs[(ps, key)] = "model_page"
                        self.parts[ps].put(MM, "appliance", page_app)

    # -- resolution
    def _pick(self, raw: Raw, fld: str) -> Any:
        for src in PRIORITY[fld]:
            vals = raw.values[fld].get(src)
            if vals:
                # Sources with many rows per part (one per listing brand): the most
                # common value wins, ties to the first seen.
                return Counter(vals).most_common(1)[0][0]
        return None

    def _symptoms(self, raw: Raw, appliances: list[str]) -> list[str]:
        ordered: list[str] = []
        for src in PRIORITY["symptoms"]:
            for s in raw.symptoms.get(src, []):
                key = phrase_key(s)
                for app in appliances:
                    label = self.variants[app].get(key)
                    if label is None:
                        self.dropped[f"symptom label outside the {app} vocabulary"] += 1
                    elif label not in ordered:
                        ordered.append(label)
        return ordered

    def resolve(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for ps in sorted(self.parts):
            raw = self.parts[ps]
            apps = set(raw.appliances) | set(raw.values["appliance"].get(MM, []))
            if not apps:
                for hint in raw.name_hints:
                    apps |= appliances_from_text(hint)
            appliances = sorted(apps & set(APPLIANCES))
            if not appliances:
                self.dropped["part for other appliances only"] += 1
                continue
            name = self._pick(raw, "name")
            stub = False
            if name is None and raw.name_hints:
                name = Counter(raw.name_hints).most_common(1)[0][0]
            mfr = self._pick(raw, "mfr_number")
            if name is None:
                stub = True
                name = f"{appliances[0].capitalize()} part (no details on record)"
            name = clean_text(name) or name
            mfr_k = number_key(mfr) if mfr else ""
            replaces: dict[str, str] = {}
            for rep in filter(None, map(_replaced_number, raw.replaces)):
                k = number_key(rep)
                if k and k != mfr_k and k != ps and k not in replaces:
                    replaces[k] = rep.upper().replace(" ", "")
            out.append(
                {
                    "ps_number": ps,
                    "mfr_number": mfr,
                    "name": name,
                    "brand": self._pick(raw, "brand"),
                    "part_type": None if stub else part_type_from_name(name),
                    "appliances": appliances,
                    "price_cents": self._pick(raw, "price_cents"),
                    "availability": self._pick(raw, "availability"),
                    "video_url": self._pick(raw, "video_url"),
                    "rating_pct": self._pick(raw, "rating_pct"),
                    "review_count": self._pick(raw, "review_count"),
                    "replaces": sorted(replaces.values()),
                    "symptoms": self._symptoms(raw, appliances),
                    "difficulty": self._pick(raw, "difficulty"),
                    "install_time": self._pick(raw, "install_time"),
                    "details": not stub,
                }
            )
        return out

    def resolve_models(self, parts: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
        brand_votes: dict[str, Counter[str]] = defaultdict(Counter)
        app_votes: dict[str, Counter[str]] = defaultdict(Counter)
        for ps, key in self.pairs:
            part = parts.get(ps)
            if part is None:
                continue
            if part["brand"]:
                brand_votes[key][part["brand"]] += 1
            for a in part["appliances"]:
                app_votes[key][a] += 1
        out = []
        for key in sorted(self.models):
            info = self.models[key]
            brand = info["brand"] or None
            appliance = info["appliance"]
            if brand is None and brand_votes[key]:
                brand = sorted(brand_votes[key].items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
            if appliance is None:
                votes = info["votes"] + app_votes[key]
                if votes:
                    appliance = sorted(votes.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
            out.append(
                {
                    "model_number": key,
                    "brand": brand,
                    "appliance": appliance,
                    "has_model_page": info["has_model_page"],
                }
            )
        return out

    def repair_guides(self) -> list[dict[str, Any]]:
        out = []
        for r in _rows(self.src / "symptom_repairs.csv"):
            appliance = next(iter(appliances_from_text(r["product"])), None)
            if appliance is None:
                continue
            label = self.variants[appliance].get(phrase_key(r["symptom"]))
            if label is None:
                self.dropped["repair guide outside the vocabulary"] += 1
                continue
            pct = re.search(r"(\d+)", r["percentage"] or "")
            phrases = split_list(r["parts"])
            out.append(
                {
                    "appliance": appliance,
                    "symptom": label,
                    "symptom_id": _symptom_id(appliance, label),
                    "part_types": phrases,
                    "catalog_part_types": guide_catalog_types(phrases),
                    "reported_pct": int(pct.group(1)) if pct else None,
                    "difficulty": (clean_text(r["difficulty"]) or "").title() or None,
                    "video_url": youtube_watch_url(r["repair_video_url"]),
                }
            )
        return sorted(out, key=lambda g: (g["appliance"], -(g["reported_pct"] or 0), g["symptom"]))


def guide_catalog_types(phrases: list[str]) -> list[str]:
    """Map repair-guide part phrases ("Drain Pump & Motor") to catalog part types, in order."""
    out: list[str] = []
    for phrase in phrases:
        key = phrase.lower().strip()
        found: list[str] = list(guide_type_overrides().get(key, ()))
        if not found:
            whole = part_type_from_name(phrase)
            if whole:
                found.append(whole)
            for frag in re.split(r"\s+(?:or|and|&)\s+|,", phrase, flags=re.I):
                t = part_type_from_name(frag)
                if t and t not in found:
                    found.append(t)
        for t in found:
            if t not in out:
                out.append(t)
    return out


# --------------------------------------------------------------------------- writers


def _dumps(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)


def write_jsonl_gz(path: Path, records: Iterable[dict[str, Any]]) -> int:
    """Deterministic gzip JSONL (no file name or timestamp in the header)."""
    n = 0
    tmp = path.with_name(path.name + ".tmp")
    with (
        tmp.open("wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", filename="", mtime=0, compresslevel=9) as gz,
    ):
        for rec in records:
            gz.write(_dumps(rec) + b"\n")
            n += 1
    tmp.replace(path)
    return n


def write_json(path: Path, obj: Any) -> None:
    path.write_bytes(orjson.dumps(obj, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2) + b"\n")


def import_sources(src: Path, out: Path) -> dict[str, Any]:
    """Read the raw sources in ``src``, write normalised facts into ``out``; return counts."""
    src, out = Path(src), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    imp = Importer(src)
    imp.read_all()
    parts = imp.resolve()
    by_ps = {p["ps_number"]: p for p in parts}
    pairs = sorted((ps, m, ev) for (ps, m), ev in imp.pairs.items() if ps in by_ps)
    imp.dropped["pair whose part is for other appliances"] = sum(
        1 for (ps, _m) in imp.pairs if ps not in by_ps
    )
    used_models = {m for _, m, _ in pairs}
    models = [
        m
        for m in imp.resolve_models(by_ps)
        if m["model_number"] in used_models or m["has_model_page"]
    ]
    symptoms = symptom_records()
    guides = imp.repair_guides()

    write_jsonl_gz(out / PARTS_FILE, parts)
    write_jsonl_gz(out / MODELS_FILE, models)
    write_jsonl_gz(
        out / COMPAT_FILE, ({"part": ps, "model": m, "evidence": ev} for ps, m, ev in pairs)
    )
    write_json(out / SYMPTOMS_FILE, symptoms)
    write_json(out / GUIDES_FILE, guides)
    counts: dict[str, Any] = {
        "parts": len(parts),
        "parts_with_details": sum(1 for p in parts if p["details"]),
        "models": len(models),
        "compatibility_pairs": len(pairs),
        "model_page_pairs": sum(1 for p in pairs if p[2] == "model_page"),
        "symptoms": len(symptoms),
        "repair_guides": len(guides),
        "source_rows": dict(sorted(imp.counts.items())),
        "dropped": dict(sorted(imp.dropped.items())),
    }
    (out / SOURCES_FILE).write_text(sources_md(counts), encoding="utf-8")
    return counts


def sources_md(counts: dict[str, Any]) -> str:
    """SOURCES.md: where every field comes from and how disagreements are settled."""
    names = {k: f"`{v}`" for k, v in SOURCE_FILES.items()}

    def order(fld: str) -> str:
        return " > ".join(names[s] for s in PRIORITY[fld])

    lines = [
        "# Catalog data: sources and rules",
        "",
        "Generated by `python -m partchat.catalog.importer <sources-dir>`; do not edit by hand",
        "(except `install_guides.json`, which is the project's own writing).",
        "Raw sources: see the sources README (scraped public catalog pages; facts only, no",
        "prose carried over: descriptions, Q&A and reviews are ignored).",
        "",
        "## Files",
        "",
        "| file | what |",
        "| --- | --- |",
        f"| `{PARTS_FILE}` | one part per line (PS number order) |",
        f"| `{MODELS_FILE}` | one model per line: canonical number, brand, appliance, model page |",
        f"| `{COMPAT_FILE}` | part–model pairs with evidence (`model_page` or `part_page`) |",
        f"| `{SYMPTOMS_FILE}` | symptom vocabulary per appliance with shopper phrasings |",
        f"| `{GUIDES_FILE}` | repair guides: appliance + symptom → part types in order |",
        f"| `{INSTALL_FILE}` | the project's own install guides, one per part type + general |",
        "",
        "## Field sources (first source with a value wins)",
        "",
        "Several sources list one part many times (one row per listing brand); within a",
        "source the most common value wins, ties to the first row.",
        "",
        "| field | sources, in priority order |",
        "| --- | --- |",
    ]
    for fld in PRIORITY:
        lines.append(f"| `{fld}` | {order(fld)} |")
    lines += [
        "| `appliances` | union of all appliance-type fields, model pages and the JSON "
        "`appliance`; freezer and ice maker count as refrigerator; a part with neither "
        "refrigerator nor dishwasher is dropped |",
        "| `replaces` | union of every replaced-numbers list, minus the part's own numbers |",
        "| `part_type` | derived from `name` (see below) |",
        "",
        "## Rules where sources disagree",
        "",
        "- **Prices** differ by scrape date. `parts_catalog.csv` wins: it is the largest single",
        "  scrape, so most prices come from one date; then `appliance_parts_*.csv`,",
        "  `parts_install_effort.csv`, the two JSON files, and the original demo catalog.",
        '  Strings such as `"91.96"` become integer cents (9196).',
        "- **Names**: the original demo catalog's names, then the titles of the",
        "  `appliance_parts` and JSON files with the trailing manufacturer number removed,",
        "  then the product title recovered from `parts_catalog.csv` / `parts_install_effort.csv`",
        "  (the words of the listing name whose slug ends the product URL, which drops the",
        '  listing-brand prefix such as "Amana Dishwasher").',
        "- **Brand**: the manufacturer brand (`manufacturer`/`brand`/`Manufactured_by`). The",
        "  `manufacturer` of `fridge_dishwasher_parts_with_models.json` is the listing brand and",
        "  is not used.",
        "- **Rating** is the share of positive reviews in percent (0–100), not stars.",
        "- **Symptoms**: labels are trimmed, curly apostrophes straightened and variants merged",
        "  into one canonical label per appliance (`Won't start`, `Will Not Start` →",
        "  `Will not start`; `Will not drain` → `Not draining`; `Too warm` → `Fridge too",
        "  warm`). Labels of other appliances (washers, ranges) are dropped. Order follows the",
        "  highest-priority source, which lists them most frequent first.",
        "- **Difficulty and time** labels are trimmed; `N/A` means unknown.",
        "- **Video URLs**: YouTube embed links are rewritten to watch links.",
        "",
        "## Part type rule",
        "",
        "The part type comes from the name: a curated list of type keywords",
        "(`data/catalog/part_types.json`) is matched against the lower-cased, singular",
        'words of the name, longest keyword first (ties: alphabetical). "Dishwasher Drain',
        'Pump" → `Drain Pump`; "Lower Dishrack Wheel" → `Dishrack Wheel`. Names with no',
        "keyword get no type (and the general install guide).",
        "",
        "## Models and compatibility",
        "",
        "- Model numbers are canonical: upper case, letters and digits only (spaces, dashes,",
        "  slashes removed). In `model_parts_map_*.csv` the first token of `model_name` is the",
        "  number; the last is the appliance and the words between are the brand.",
        "- Models from the JSON compatible-model lists get the appliance of the part that",
        "  lists them and the most common brand among their parts (the true model brand is",
        "  unknown there).",
        "- `model_page` evidence: the pair comes from a model's full parts list",
        "  (`model_parts_map_*.csv`, not capped), so for those models a part that is not",
        "  listed most likely does not fit. `part_page` evidence: the pair comes from a part's",
        "  compatible-model list (capped at 30 per part) or the original demo catalog; a",
        '  missing pair there only means "not listed".',
        "- Dropped: the hand-added pair `PS11752778`–`WDT780SAEM1` (a refrigerator door bin",
        "  listed against a dishwasher), model numbers shorter than 3 characters.",
        "- Parts that appear only on a model page (PS number, no other facts) are kept so the",
        "  compatibility facts stay complete; they are marked `details: false` and named",
        '  "<Appliance> part (no details on record)".',
        "",
        "## Counts at the last import",
        "",
        "```json",
        json.dumps(counts, indent=2, sort_keys=True),
        "```",
        "",
    ]
    return "\n".join(lines)


def default_out_dir() -> Path:
    repo = Path(__file__).resolve().parents[1]
    if (repo / "pyproject.toml").exists():
        return repo / "data" / "catalog"
    return Path.cwd() / "data" / "catalog"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python scripts/import_sources.py",
        description="Import raw catalog sources into data/catalog/.",
    )
    parser.add_argument("src", type=Path, help="directory with the raw source files")
    parser.add_argument("--out", type=Path, default=None, help="output directory")
    args = parser.parse_args(argv)
    counts = import_sources(args.src, args.out or default_out_dir())
    sys.stdout.write(json.dumps(counts, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
