"""Metrics of the reading over labelled messages: intent, symptoms, numbers, appliance.

Used by ``tests/nlu`` (which assert the floors) and ``bench/nlu.py`` (which reports them).
A miss keeps the message, the expected and the actual reading, so a failure can be read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from partchat.catalog.types import Appliance, CatalogReader

from .corpus import Labelled
from .model import Understanding
from .reading import TUNING, Tuning, read


@dataclass
class Actual:
    intent: str
    symptoms: list[str]
    appliance: str | None
    parts: list[str]
    models: list[str]


async def read_labelled(
    item: Labelled,
    catalog: CatalogReader,
    understanding: Understanding,
    *,
    context_appliance: Appliance | None = None,
    tuning: Tuning = TUNING,
) -> Actual:
    r = await read(
        item["text"], catalog, understanding, context_appliance=context_appliance, tuning=tuning
    )
    return Actual(
        intent=r.intent,
        symptoms=r.symptom_ids,
        appliance=r.found["appliance"],
        parts=r.found["part_numbers"],
        models=[m["model"] for m in r.found["models"] if m["known"]],
    )


@dataclass
class Report:
    n: int = 0
    intent_right: int = 0
    numbers_right: int = 0
    appliance_right: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    misses: list[dict[str, Any]] = field(default_factory=list)

    @property
    def intent_accuracy(self) -> float:
        return self.intent_right / self.n if self.n else 0.0

    @property
    def number_accuracy(self) -> float:
        return self.numbers_right / self.n if self.n else 0.0

    @property
    def appliance_accuracy(self) -> float:
        return self.appliance_right / self.n if self.n else 0.0

    @property
    def symptom_f1(self) -> float:
        denom = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / denom if denom else 1.0

    def add(self, item: Labelled, actual: Actual) -> None:
        self.n += 1
        wrong: list[str] = []
        if actual.intent == item["intent"]:
            self.intent_right += 1
        else:
            wrong.append("intent")
        expected_s, actual_s = set(item["symptoms"]), set(actual.symptoms)
        self.tp += len(expected_s & actual_s)
        self.fp += len(actual_s - expected_s)
        self.fn += len(expected_s - actual_s)
        if expected_s != actual_s:
            wrong.append("symptoms")
        if set(actual.parts) == set(item["parts"]) and set(actual.models) == set(item["models"]):
            self.numbers_right += 1
        else:
            wrong.append("numbers")
        if actual.appliance == item["appliance"]:
            self.appliance_right += 1
        else:
            wrong.append("appliance")
        if wrong:
            self.misses.append(
                {
                    "id": item["id"],
                    "text": item["text"],
                    "wrong": wrong,
                    "expected": {
                        k: item[k] for k in ("intent", "symptoms", "appliance", "parts", "models")
                    },
                    "actual": actual.__dict__,
                }
            )

    def summary(self) -> dict[str, float | int]:
        return {
            "messages": self.n,
            "intent_accuracy": round(self.intent_accuracy, 4),
            "symptom_f1": round(self.symptom_f1, 4),
            "number_accuracy": round(self.number_accuracy, 4),
            "appliance_accuracy": round(self.appliance_accuracy, 4),
        }

    def misses_of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.misses if kind in m["wrong"]]


async def evaluate(
    items: Iterable[Labelled],
    catalog: CatalogReader,
    understanding: Understanding,
    *,
    tuning: Tuning = TUNING,
) -> Report:
    report = Report()
    for item in items:
        report.add(item, await read_labelled(item, catalog, understanding, tuning=tuning))
    return report


def format_misses(misses: Sequence[dict[str, Any]], limit: int = 30) -> str:
    lines = []
    for m in misses[:limit]:
        lines.append(f"{m['id']}: {m['text']!r}")
        lines.append(f"    expected {m['expected']}")
        lines.append(f"    actual   {m['actual']}")
    if len(misses) > limit:
        lines.append(f"… and {len(misses) - limit} more")
    return "\n".join(lines)
