"""Does learning from dev's varied phrasings help on phrasings not learnt? Test split unread.

    .venv/bin/python bench/nlu_dev_gain.py --catalog var/catalog.db                # probe families
    .venv/bin/python bench/nlu_dev_gain.py --catalog var/catalog.db --halves runs  # all of dev

Dev is cut in two halves. For each half, one model learns from train alone and one from
train plus the other half (its items the shipped model would learn: none too close to a
test text); both read the half's messages and run its dialogues, and the two halves'
figures are summed. ``families`` (the default) halves the blind probe families
(``dv-fx`` …), so each half's styles are unseen by both models and only the other
families' variety can help; ``runs`` halves all of dev by runs of ten ids
(``nlu_cv.fold_of``), so a half's styles are partly seen, as the shipped model's are.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.nlu_cv import fold_of  # noqa: E402
from tests.support.dialogues import run_dialogue  # noqa: E402

from partchat.agent.graph import build_graph  # noqa: E402
from partchat.agent.offline import OfflineChatModel  # noqa: E402
from partchat.catalog import Catalog  # noqa: E402
from partchat.nlu import corpus  # noqa: E402
from partchat.nlu import store as nlu_store  # noqa: E402
from partchat.nlu.evaluate import Report, evaluate  # noqa: E402
from partchat.nlu.model import Understanding  # noqa: E402
from partchat.nlu.train import train  # noqa: E402
from partchat.toolbox.dispatch import Toolbox  # noqa: E402

# The blind probe families (data/nlu/README.md), in two halves of like size: messages
# (dv-fx 124 + dv-fi 50 | dv-fs 80 + dv-fa 62) and dialogues (dv-fd 44 + dv-fg 20 |
# dv-fe 40 + dv-fh 15 + dv-fp 10).
FAMILIES = (
    {"dv-fx", "dv-fi", "dv-fd", "dv-fg"},
    {"dv-fs", "dv-fa", "dv-fe", "dv-fh", "dv-fp"},
)
_FAMILY = re.compile(r"^(dv-f[a-z])-")


def half_of(item_id: str, halves: str) -> int | None:
    """The half (0 or 1) of a dev id (a turn's id is its dialogue's), None: in neither."""
    dialogue_id = item_id.split("#", 1)[0]
    if halves == "runs":
        return fold_of(dialogue_id, 2)
    m = _FAMILY.match(dialogue_id)
    if m is None:
        return None
    return next((h for h, names in enumerate(FAMILIES) if m.group(1) in names), None)


def with_half(
    learnt: corpus.TrainingSet, half: int, halves: str, *, dev_turns: bool = True
) -> corpus.TrainingSet:
    """Train, plus the dev items of ``half`` (without its dialogue turns: ``dev_turns``
    False)."""

    def keep(item_id: str, turn: bool = False) -> bool:
        if corpus.split_of(item_id.split("#", 1)[0]) == "train":
            return True
        return half_of(item_id, halves) == half and (dev_turns or not turn)

    return corpus.TrainingSet(
        messages=[m for m in learnt.messages if keep(m["id"])],
        turns=[(i, t) for i, t in learnt.turns if keep(i, turn=True)],
    )


async def score(
    catalog: Catalog,
    model: Understanding,
    items: list[corpus.Labelled],
    dialogues: list[corpus.Dialogue],
    labels: dict[str, str],
) -> tuple[Report, list[str], int]:
    """The reading's report, the dialogues that fail (ids), and the messages whose intent
    the classifier alone gets right (the rules were written on dev and decide many probes)."""
    report = await evaluate(items, catalog, model)
    graph = build_graph(OfflineChatModel(), Toolbox.load(catalog), catalog, model)
    failed = [d["id"] for d in dialogues if not (await run_dialogue(graph, d, labels)).ok]
    alone = sum(model.score(m["text"]).intent == m["intent"] for m in items)
    return report, failed, alone


def _add(total: Report, r: Report) -> None:
    for name in ("n", "intent_right", "numbers_right", "appliance_right", "tp", "fp", "fn"):
        setattr(total, name, getattr(total, name) + getattr(r, name))


async def run(db: Path, halves: str, dev_turns: bool = True) -> dict[str, Any]:
    conn = sqlite3.connect(db)
    try:
        learnt = corpus.training_set(corpus.LEARNT)
        fitted = {
            "train": train(nlu_store.examples_of(conn, with_half(learnt, -1, halves))),
            **{
                f"plus{h}": train(
                    nlu_store.examples_of(conn, with_half(learnt, h, halves, dev_turns=dev_turns))
                )
                for h in (0, 1)
            },
        }
    finally:
        conn.close()
    catalog = await Catalog.open(db)
    try:
        labels = {s["id"]: s["label"] for s in await catalog.symptoms()}
        totals: dict[str, tuple[Report, list[int], list[str]]] = {
            "train": (Report(), [0, 0], []),
            "train + other half": (Report(), [0, 0], []),
        }
        n_dialogues = 0
        for h in (0, 1):
            items = [m for m in corpus.messages("dev") if half_of(m["id"], halves) == h]
            dialogues = [d for d in corpus.dialogues("dev") if half_of(d["id"], halves) == h]
            n_dialogues += len(dialogues)
            for name, data in (
                ("train", fitted["train"]),
                ("train + other half", fitted[f"plus{1 - h}"]),
            ):
                report, failed, alone = await score(
                    catalog, Understanding(data), items, dialogues, labels
                )
                _add(totals[name][0], report)
                totals[name][1][0] += len(dialogues) - len(failed)
                totals[name][1][1] += alone
                totals[name][2].extend(failed)
    finally:
        await catalog.close()
    return {
        name: {
            "messages": r.n,
            "intent_accuracy": round(r.intent_accuracy, 4),
            "symptom_f1": round(r.symptom_f1, 4),
            "classifier_intent": round(ok[1] / r.n, 4) if r.n else 0.0,
            "dialogues": f"{ok[0]} of {n_dialogues}",
            "failed": sorted(failed),
        }
        for name, (r, ok, failed) in totals.items()
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--catalog", type=Path, required=True, help="a built catalog.db")
    p.add_argument("--halves", choices=("families", "runs"), default="families")
    p.add_argument("--failed", action="store_true", help="list the dialogues each model fails")
    p.add_argument(
        "--no-dev-turns",
        action="store_true",
        help="the other half adds its messages only, not its dialogue turns",
    )
    ns = p.parse_args()
    for name, f in asyncio.run(run(ns.catalog, ns.halves, not ns.no_dev_turns)).items():
        print(
            f"{ns.halves}: learnt from {name}: {f['messages']} messages, intent "
            f"{f['intent_accuracy']:.1%} (the classifier alone {f['classifier_intent']:.1%}), "
            f"symptom F1 {f['symptom_f1']:.3f}, dialogues {f['dialogues']}"
        )
        if ns.failed:
            print("  failed: " + " ".join(f["failed"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
