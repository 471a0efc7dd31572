"""Synthetic catalog in the shipped data format, for benchmarks at scale.

    python bench/catalog_synth.py OUT_DIR [--parts 100000 --models 50000 --pairs 2000000]

Writes parts/models/compatibility JSONL (gzip) plus the real symptom vocabulary, repair
guides and install guides, so ``build_catalog(OUT_DIR, db, extension=CATALOG_EXTENSION)``
builds it like the real one.
"""

from __future__ import annotations

import argparse
import gzip
import random
import shutil
import sys
import time
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "backend"))
sys.path.insert(0, str(REPO))

from scripts.import_sources import symptom_records  # noqa: E402

from partchat.catalog.files import (  # noqa: E402
    COMPAT_FILE,
    GUIDES_FILE,
    INSTALL_FILE,
    MODELS_FILE,
    PARTS_FILE,
    SYMPTOMS_FILE,
)
from partchat.catalog.vocab import part_types  # noqa: E402

BRANDS = (
    "Whirlpool",
    "GE",
    "Frigidaire",
    "Samsung",
    "LG",
    "Bosch",
    "Kenmore",
    "Maytag",
    "KitchenAid",
    "Electrolux",
)
AVAILABILITY = ("In Stock", "In Stock", "In Stock", "Special Order", "On Order")
DIFFICULTY = ("Really Easy", "Easy", "Very Easy", "A Bit Difficult", "Difficult")
TIMES = ("Less than 15 mins", "15 - 30 mins", "30 - 60 mins", "1- 2 hours")
QUALIFIERS = (
    "Upper",
    "Lower",
    "Left",
    "Right",
    "Front",
    "Rear",
    "White",
    "Black",
    "Kit",
    "Assembly",
    "Replacement",
    "Inner",
    "Outer",
    "Stainless",
)
APPS = ("refrigerator", "dishwasher")


def _gz(path: Path) -> gzip.GzipFile:
    return gzip.GzipFile(filename="", mode="wb", fileobj=path.open("wb"), mtime=0, compresslevel=1)


def generate(
    out: Path, parts: int = 100_000, models: int = 50_000, pairs: int = 2_000_000, seed: int = 7
) -> dict[str, int]:
    """Write a synthetic catalog to ``out``; return the counts."""
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    vocab = symptom_records()
    labels = {a: [s["label"] for s in vocab if s["appliance"] == a] for a in APPS}
    types = part_types()
    pools: dict[str, list[str]] = {a: [] for a in APPS}
    with _gz(out / PARTS_FILE) as fh:
        for i in range(parts):
            app = APPS[i % 2]
            ps = f"PS{1_000_000 + i}"
            pools[app].append(ps)
            ptype = types[rng.randrange(len(types))]
            name = f"{rng.choice(QUALIFIERS)} {ptype}" if rng.random() < 0.6 else ptype
            rec = {
                "ps_number": ps,
                "mfr_number": f"W{10_000_000 + i * 7}",
                "name": name,
                "brand": BRANDS[rng.randrange(len(BRANDS))],
                "part_type": ptype,
                "appliances": [app],
                "price_cents": rng.randrange(300, 40_000),
                "availability": rng.choice(AVAILABILITY),
                "video_url": f"https://www.youtube.com/watch?v=synth{i}" if i % 3 else None,
                "rating_pct": rng.randrange(60, 101) if i % 4 else None,
                "review_count": rng.randrange(0, 500) if i % 4 else None,
                "replaces": [f"R{i}X{k}" for k in range(rng.randrange(0, 4))],
                "symptoms": rng.sample(labels[app], rng.randrange(0, 5)),
                "difficulty": rng.choice(DIFFICULTY),
                "install_time": rng.choice(TIMES),
                "details": True,
            }
            fh.write(orjson.dumps(rec, option=orjson.OPT_SORT_KEYS) + b"\n")
    model_apps: list[str] = []
    with _gz(out / MODELS_FILE) as fh:
        for i in range(models):
            app = APPS[i % 2]
            model_apps.append(app)
            rec = {
                "model_number": f"M{app[0].upper()}{i:06d}X{i % 10}",
                "brand": BRANDS[i % 10],
                "appliance": app,
                "has_model_page": i % 5 == 0,
            }
            fh.write(orjson.dumps(rec, option=orjson.OPT_SORT_KEYS) + b"\n")
    per_model, extra = divmod(pairs, models)
    written = 0
    with _gz(out / COMPAT_FILE) as fh:
        for i in range(models):
            app = model_apps[i]
            model = f"M{app[0].upper()}{i:06d}X{i % 10}"
            evidence = "model_page" if i % 5 == 0 else "part_page"
            n = per_model + (1 if i < extra else 0)
            lines = [
                f'{{"evidence":"{evidence}","model":"{model}","part":"{ps}"}}\n'
                for ps in rng.sample(pools[app], min(n, len(pools[app])))
            ]
            written += len(lines)
            fh.write("".join(lines).encode())
    (out / SYMPTOMS_FILE).write_bytes(orjson.dumps(vocab))
    for name in (GUIDES_FILE, INSTALL_FILE):
        shutil.copy(REPO / "data" / "catalog" / name, out / name)
    return {"parts": parts, "models": models, "pairs": written}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--parts", type=int, default=100_000)
    ap.add_argument("--models", type=int, default=50_000)
    ap.add_argument("--pairs", type=int, default=2_000_000)
    args = ap.parse_args()
    t = time.perf_counter()
    counts = generate(args.out, args.parts, args.models, args.pairs)
    print(f"{counts} in {time.perf_counter() - t:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
