"""Checks across a store's records (after each row passed its schema): duplicates, and
every reference between files resolving (a pair's part and model, a part's symptoms,
a symptom's part types, an install guide's part type)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .normalize import model_key, number_key, phrase_key
from .store_format import Row, RowError

GENERAL_GUIDE = "general"

Rows = dict[str, list[Row]]


def _rec(row: Row) -> dict[str, Any]:
    """The record of a row that passed its schema (rows reach here only then)."""
    return row["record"] or {}


def _error(row: Row, field: str, message: str) -> RowError:
    return RowError(file=row["file"], line=row["line"], field=field, message=message)


def _where(row: Row) -> str:
    return f"{row['file']}:{row['line']}"


def _unique(
    rows: list[Row], field: str, key: Callable[[dict[str, Any]], Any], what: str
) -> tuple[dict[Any, Row], list[RowError]]:
    first: dict[Any, Row] = {}
    errors: list[RowError] = []
    for row in rows:
        k = key(_rec(row))
        if k in first:
            errors.append(_error(row, field, f"duplicate {what}, first at {_where(first[k])}"))
        else:
            first[k] = row
    return first, errors


def cross_errors(rows: Rows) -> list[RowError]:
    """Every cross-record problem, in file order."""
    parts, errors = _unique(
        rows.get("parts", []), "part_number", lambda r: number_key(r["part_number"]), "part number"
    )
    models, more = _unique(
        rows.get("models", []), "model_number", lambda r: model_key(r["model_number"]), "model"
    )
    errors += more
    errors += _compat_errors(rows.get("compatibility", []), parts, models)
    types = {
        (app, phrase_key(_rec(row)["part_type"]))
        for row in parts.values()
        for app in _rec(row)["appliances"]
    }
    symptoms, more = _unique(
        rows.get("symptoms", []),
        "label",
        lambda r: (r["appliance"], phrase_key(r["label"])),
        "symptom for this appliance",
    )
    errors += more
    for row in symptoms.values():
        rec = _rec(row)
        for i, ptype in enumerate(rec["part_types"]):
            if (rec["appliance"], phrase_key(ptype)) not in types:
                msg = f"unknown part type {ptype!r}: no {rec['appliance']} part has it"
                errors.append(_error(row, f"part_types.{i}", msg))
    for row in parts.values():
        rec = _rec(row)
        for i, label in enumerate(rec.get("symptoms", [])):
            if not any((app, phrase_key(label)) in symptoms for app in rec["appliances"]):
                msg = f"unknown symptom {label!r} for {' or '.join(rec['appliances'])}"
                errors.append(_error(row, f"symptoms.{i}", msg))
    guides, more = _unique(
        rows.get("install_guides", []),
        "part_type",
        lambda r: phrase_key(r["part_type"]),
        "install guide for this part type",
    )
    errors += more
    known_types = {t for _app, t in types}
    for key, row in guides.items():
        if key != GENERAL_GUIDE and key not in known_types:
            ptype = _rec(row)["part_type"]
            errors.append(_error(row, "part_type", f"unknown part type {ptype!r}: no part has it"))
    return sorted(errors, key=lambda e: (e["file"], e["line"]))


def _compat_errors(
    rows: list[Row], parts: dict[Any, Row], models: dict[Any, Row]
) -> list[RowError]:
    errors: list[RowError] = []
    seen: dict[tuple[str, str], Row] = {}
    for row in rows:
        rec = _rec(row)
        pkey, mkey = number_key(rec["part_number"]), model_key(rec["model_number"])
        part, model = parts.get(pkey), models.get(mkey)
        if part is None:
            errors.append(_error(row, "part_number", f"unknown part {rec['part_number']!r}"))
        if model is None:
            errors.append(_error(row, "model_number", f"unknown model {rec['model_number']!r}"))
        if part is None or model is None:
            continue
        if (pkey, mkey) in seen:
            errors.append(_error(row, "", f"duplicate pair, first at {_where(seen[pkey, mkey])}"))
            continue
        seen[pkey, mkey] = row
        appliance = _rec(model)["appliance"]
        if appliance not in _rec(part)["appliances"]:
            msg = f"model {rec['model_number']!r} is a {appliance}; the part is not for one"
            errors.append(_error(row, "model_number", msg))
    return errors
