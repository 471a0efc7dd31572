"""The originals' dialogue path over the whole catalog (``tests/support/sweep.py``).

    .venv/bin/python bench/nlu_sweep.py --catalog var/catalog.db             # 2 models a symptom, 200 parts
    .venv/bin/python bench/nlu_sweep.py --catalog var/catalog.db --per 5 --show
    .venv/bin/python bench/nlu_sweep.py --catalog var/catalog.db --smoke --json

For random models of each symptom (seeded), a diagnosis or a search opens, every listed
part is picked by its place and by what a shopper would call it (alone and inside a
question), and a pick by name is
followed by its steps, its fit with another model and its stock; random parts are
asked after by their numbers (stock, price, fit, steps); and each problem is told with
the brand and the appliance alone, the model given once any model's parts are listed,
the second part picked and its steps taken when offered. The corpus's dialogues
visit few of the catalog's models and lists; this finds where a reading depends on the
catalog (a part named like a verb, a washer that is a part) rather than on the words.
It reads the shipped model (train and dev): no corpus text is scored.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.sweep import (  # noqa: E402
    MODEL_REPLIES,
    brands,
    given_parts,
    run_given_part,
    run_model_given,
    run_situation,
    situations,
    tally,
)

from partchat.agent.graph import build_graph  # noqa: E402
from partchat.agent.offline import OfflineChatModel  # noqa: E402
from partchat.catalog import Catalog, build_catalog  # noqa: E402
from partchat.nlu import store as nlu_store  # noqa: E402
from partchat.toolbox.dispatch import Toolbox  # noqa: E402


async def run(db: Path, per: int, parts: int, seed: int, limit: int | None) -> dict[str, Any]:
    understanding = nlu_store.load(db)
    catalog = await Catalog.open(db)
    try:
        graph = build_graph(OfflineChatModel(), Toolbox.load(catalog), catalog, understanding)
        chosen = situations(db, per=per, seed=seed)[:limit]
        found = [await run_situation(graph, *s) for s in chosen]
        found += [await run_given_part(graph, *p) for p in given_parts(db, count=parts, seed=seed)]
        asked = [s for s in chosen if s[0] == "diagnose"]
        brand = brands(db, [s[1] for s in asked])
        for i, (_, model, appliance, topic, _) in enumerate(asked):
            reply = MODEL_REPLIES[i % len(MODEL_REPLIES)]
            found.append(await run_model_given(graph, model, brand[model], appliance, topic, reply))
    finally:
        await catalog.close()
    by_kind = tally(found)
    turns = sum(v["turns"] for v in by_kind.values())
    right = sum(v["right"] for v in by_kind.values())
    return {
        "situations": len(found),
        "turns": turns,
        "right": right,
        "by_kind": by_kind,
        "wrong": [
            {"model": s.model, "opening": s.opening, "said": j.said, "want": j.want, "got": j.got}
            for s in found
            for j in s.judged
            if not j.ok
        ],
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--catalog", type=Path, help="a built catalog.db (default: build one)")
    p.add_argument("--per", type=int, default=2, help="models a symptom")
    p.add_argument("--parts", type=int, default=200, help="parts asked after by number")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--smoke", action="store_true", help="four situations and four parts")
    p.add_argument("--show", action="store_true", help="print every wrong turn")
    p.add_argument("--json", action="store_true")
    ns = p.parse_args()
    db = ns.catalog
    if db is None:
        db = ROOT / "var" / "sweep-catalog.db"
        if not db.exists():
            build_catalog(None, db, extension=nlu_store.CATALOG_EXTENSION)
    figures = asyncio.run(
        run(
            db,
            1 if ns.smoke else ns.per,
            4 if ns.smoke else ns.parts,
            ns.seed,
            4 if ns.smoke else None,
        )
    )
    if ns.json:
        print(json.dumps(figures))
        return 0
    print(
        f"{figures['situations']} situations: {figures['right']} of {figures['turns']} turns right"
    )
    for kind, v in figures["by_kind"].items():
        print(f"  {kind:22} {v['right']:5} of {v['turns']:5}")
    wrong = figures["wrong"] if ns.show else figures["wrong"][:10]
    for w in wrong:
        print(f"- {w['model']}: {w['opening']!r} / {w['said']!r}: want {w['want']}, got {w['got']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
