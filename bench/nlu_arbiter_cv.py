"""Would a learnt arbiter over the dialogue rules help? Dev dialogues by grouped CV.

    .venv/bin/python bench/nlu_arbiter_cv.py --catalog var/catalog.db [--c 10] [--json]

Each dev dialogue runs through the offline model (a model of train alone, as
``nlu.py --split dev``); every turn gives the rules' tool, the expected tool and the
assistant's answer before it. A logistic regression then learns the expected tool from the
message's features (``nlu.features``), what the answer before it was (a list, a part's
details, steps, a fit, a question asked, an offer) and the rules' own tool, crossed with
that context: a stacked arbiter that may overrule the rules. It is scored by 5-fold CV
grouped by batch (``dv-eu`` …), so no batch's writer is learnt from while scored: at each
confidence, the turns where it would overrule the rules, those it would put right and those
it would break, and the dialogues whose only wrong turns it would put right (an upper bound:
the overruled turn's arguments are not checked).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.nlu import model_for  # noqa: E402
from tests.support.dialogues import run_dialogue  # noqa: E402

from partchat.agent.graph import build_graph  # noqa: E402
from partchat.agent.offline import OfflineChatModel  # noqa: E402
from partchat.catalog import Catalog  # noqa: E402
from partchat.nlu import corpus  # noqa: E402
from partchat.nlu.features import features  # noqa: E402
from partchat.toolbox.dispatch import Toolbox  # noqa: E402

THRESHOLDS = (0.5, 0.7, 0.8, 0.9, 0.95)
_CONTEXT = (
    ("list", re.compile(r"^\s*\d+\.\s.*\bPS\d+", re.M)),
    ("diagnosis", re.compile(r"^For \*")),
    ("search", re.compile(r"^Here's what I found")),
    ("steps", re.compile(r"^Here's how to install")),
    ("details", re.compile(r"^\*\*.*\(PS\d+\)[^\n]*\n- Manufacturer part number")),
    ("fit", re.compile(r"^Yes! The|does \*\*not\*\* list")),
    ("asked_model", re.compile(r"\*\*model number\*\*")),
    ("asked_appliance", re.compile(r"\*\*refrigerator\*\* or a \*\*dishwasher\*\*")),
    ("asked_part", re.compile(r"\*\*part number\*\*")),
    ("model_switched", re.compile(r"switched your model")),
    ("closed", re.compile(r"^(No problem|You're welcome)")),
    ("offers_steps", re.compile(r"installation steps\?|how to install it\?")),
    ("offers_fit", re.compile(r"check whether it fits")),
)


def context_of(previous: str) -> list[str]:
    """What the assistant's answer before the turn was."""
    if not previous:
        return ["first"]
    return [name for name, pattern in _CONTEXT if pattern.search(previous)] or ["other"]


def turn_features(user: str, previous: str, rules_tool: str) -> dict[str, float]:
    found: dict[str, float] = dict(features(user))
    kinds = context_of(previous)
    words = [g for g in found if " " not in g and ":" not in g and len(g) > 2]
    for k in kinds:
        found[f"ctx:{k}"] = 1.0
        found[f"rule:{rules_tool}|{k}"] = 1.0
        for w in words:
            found[f"{k}|{w}"] = 0.5
    found[f"rule:{rules_tool}"] = 3.0
    return found


async def turns_of(db: Path) -> list[dict[str, Any]]:
    understanding, _ = model_for("dev", db)
    catalog = await Catalog.open(db)
    rows: list[dict[str, Any]] = []
    try:
        graph = build_graph(OfflineChatModel(), Toolbox.load(catalog), catalog, understanding)
        labels = {s["id"]: s["label"] for s in await catalog.symptoms()}
        for d in corpus.dialogues("dev"):
            result = await run_dialogue(graph, d, labels)
            wrong = {
                int(p.split(":")[0].split()[1]) for p in result.problems if p.startswith("turn ")
            }
            previous = ""
            for i, (spec, turn) in enumerate(zip(d["turns"], result.turns, strict=False), 1):
                rows.append(
                    {
                        "dialogue": d["id"],
                        "turn": i,
                        "user": spec["user"],
                        "previous": previous,
                        "expected": str(spec["expect"].get("tool")),
                        "rules": str(turn.calls[0][0] if turn.calls else None),
                        "wrong": i in wrong,
                    }
                )
                previous = turn.text
    finally:
        await catalog.close()
    return rows


def cross_validate(rows: list[dict[str, Any]], c: float) -> dict[str, Any]:
    import numpy as np
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold

    x = DictVectorizer().fit_transform(
        [turn_features(r["user"], r["previous"], r["rules"]) for r in rows]
    )
    x = TfidfTransformer(sublinear_tf=True).fit_transform(x)
    y = np.array([r["expected"] for r in rows])
    rules = np.array([r["rules"] for r in rows])
    groups = np.array(["-".join(r["dialogue"].split("-")[:2]) for r in rows])
    predicted = np.empty(len(rows), dtype=object)
    confidence = np.zeros(len(rows))
    for fit, held in GroupKFold(5).split(x, y, groups):
        model = LogisticRegression(C=c, max_iter=3000).fit(x[fit], y[fit])
        p = model.predict_proba(x[held])
        predicted[held] = model.classes_[p.argmax(1)]
        confidence[held] = p.max(1)
    wrong_turns: dict[str, set[int]] = defaultdict(set)
    for r in rows:
        if r["wrong"]:
            wrong_turns[r["dialogue"]].add(r["turn"])
    by_threshold = {}
    for t in THRESHOLDS:
        overrule = (predicted != rules) & (confidence >= t)
        fixed = overrule & (predicted == y)
        broken = overrule & (rules == y)
        fixed_at: dict[str, set[int]] = defaultdict(set)
        broken_dialogues = set()
        for i, r in enumerate(rows):
            if fixed[i]:
                fixed_at[r["dialogue"]].add(r["turn"])
            if broken[i]:
                broken_dialogues.add(r["dialogue"])
        by_threshold[str(t)] = {
            "overruled": int(overrule.sum()),
            "turns_put_right": int(fixed.sum()),
            "turns_broken": int(broken.sum()),
            "dialogues_put_right_at_most": sum(
                1 for d, turns in fixed_at.items() if wrong_turns[d] and wrong_turns[d] <= turns
            ),
            "dialogues_broken": len(broken_dialogues),
        }
    return {
        "turns": len(rows),
        "dialogues": len({r["dialogue"] for r in rows}),
        "dialogues_right": len({r["dialogue"] for r in rows}) - len(wrong_turns),
        "rules_tool_accuracy": round(float((rules == y).mean()), 4),
        "arbiter_tool_accuracy": round(float((predicted == y).mean()), 4),
        "by_threshold": by_threshold,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--catalog", type=Path, required=True, help="a built catalog.db")
    p.add_argument("--c", type=float, default=10.0, help="the regression's C")
    p.add_argument("--json", action="store_true")
    ns = p.parse_args()
    figures = cross_validate(asyncio.run(turns_of(ns.catalog)), ns.c)
    if ns.json:
        print(json.dumps(figures))
        return 0
    print(
        f"{figures['dialogues']} dev dialogues ({figures['dialogues_right']} right), "
        f"{figures['turns']} turns; tool right: rules {figures['rules_tool_accuracy']:.2%}, "
        f"arbiter {figures['arbiter_tool_accuracy']:.2%}"
    )
    print("confidence  overruled  turns right/broken  dialogues right (at most)/broken")
    for t, f in figures["by_threshold"].items():
        print(
            f"{t:>10}  {f['overruled']:9}  {f['turns_put_right']:5} / {f['turns_broken']:<6}"
            f"  {f['dialogues_put_right_at_most']:5} / {f['dialogues_broken']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
