"""Write a store's catalog files (``partchat catalog import --from DIR``) from records."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from partchat.catalog.store_format import LIST_SEPARATOR, schema


def write_kind(directory: Path, kind: str, records: list[dict[str, Any]], fmt: str) -> Path:
    """``<kind>.csv`` (header = every field of the schema, lists ``;``-joined) or
    ``<kind>.jsonl``; the other format's file of that kind is removed."""
    directory.mkdir(parents=True, exist_ok=True)
    for ext in ("csv", "jsonl"):
        (directory / f"{kind}.{ext}").unlink(missing_ok=True)
    path = directory / f"{kind}.{fmt}"
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        return path
    columns = list(schema(kind)["properties"])
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        for r in records:
            writer.writerow([_cell(r.get(c)) for c in columns])
    return path


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return LIST_SEPARATOR.join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def write_store(directory: Path, store: dict[str, list[dict[str, Any]]], fmt: str) -> Path:
    for kind, records in store.items():
        write_kind(directory, kind, records, fmt)
    return directory


def minimal_store() -> dict[str, list[dict[str, Any]]]:
    """A small valid store: two parts, two models, their pairs, a symptom, a guide."""
    return {
        "parts": [
            {
                "part_number": "AB-100",
                "name": "Acme Drain Pump",
                "appliances": ["dishwasher"],
                "part_type": "Drain Pump",
                "price": 10.5,
                "symptoms": ["Not draining"],
            },
            {
                "part_number": "AB-200",
                "name": "Acme Ice Maker",
                "appliances": ["refrigerator"],
                "part_type": "Ice Maker",
                "price": 99,
            },
        ],
        "models": [
            {
                "model_number": "DW100",
                "brand": "Acme",
                "appliance": "dishwasher",
                "complete_parts_list": True,
            },
            {"model_number": "RF200", "brand": "Acme", "appliance": "refrigerator"},
        ],
        "compatibility": [
            {"part_number": "AB-100", "model_number": "DW100"},
            {"part_number": "AB-200", "model_number": "RF200"},
        ],
        "symptoms": [
            {
                "appliance": "dishwasher",
                "label": "Not draining",
                "synonyms": ["wont drain"],
                "part_types": ["Drain Pump"],
            }
        ],
        "install_guides": [{"part_type": "Drain Pump", "title": "Replace it", "steps": ["a"]}],
    }
