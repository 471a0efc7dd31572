"""A store's own catalog files: which files, their JSON Schemas, and reading CSV or JSONL
rows into records (``docs/catalog.md``, "Bring your own catalog").

Each record kind is one file in the import directory, ``<kind>.csv`` (header row) or
``<kind>.jsonl`` (one JSON object a line). CSV cells are text: list fields are
``;``-separated, numbers and booleans (``true``/``false``) are parsed by the type the
schema gives the field, and an empty cell is an absent field.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final, TypedDict

from jsonschema import Draft202012Validator

# kind → schema file; the file stem in the import directory is the kind itself.
KINDS: Final[dict[str, str]] = {
    "parts": "part.schema.json",
    "models": "model.schema.json",
    "compatibility": "compatibility.schema.json",
    "symptoms": "symptom.schema.json",
    "install_guides": "install_guide.schema.json",
}
REQUIRED_KINDS: Final = ("parts", "models", "compatibility")
EXTENSIONS: Final = (".csv", ".jsonl")
LIST_SEPARATOR: Final = ";"
MAX_FILE_BYTES: Final = 200 * 1024 * 1024


class RowError(TypedDict):
    file: str
    line: int  # 1-based; 0: the file as a whole
    field: str  # "" when the row or file as a whole is wrong
    message: str


class Row(TypedDict):
    file: str
    line: int
    record: dict[str, Any] | None  # None: unreadable, ``error`` says why
    error: RowError | None


@cache
def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of one record kind (shipped under ``partchat/schemas/catalog``)."""
    ref = resources.files("partchat") / "schemas" / "catalog" / KINDS[kind]
    loaded: dict[str, Any] = json.loads(ref.read_text("utf-8"))
    return loaded


@cache
def validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(schema(kind))


def find_files(src: Path) -> tuple[dict[str, Path], list[RowError]]:
    """kind → its file in ``src``; errors for a missing required kind or two files of one."""
    found: dict[str, Path] = {}
    errors: list[RowError] = []
    for kind in KINDS:
        paths = [src / f"{kind}{ext}" for ext in EXTENSIONS if (src / f"{kind}{ext}").is_file()]
        if len(paths) > 1:
            names = " and ".join(p.name for p in paths)
            errors.append(_file_error(paths[0].name, f"both {names}: keep one"))
        elif paths:
            found[kind] = paths[0]
        elif kind in REQUIRED_KINDS:
            errors.append(_file_error(f"{kind}.csv", f"missing: {kind}.csv or {kind}.jsonl"))
    return found, errors


def _file_error(name: str, message: str) -> RowError:
    return RowError(file=name, line=0, field="", message=message)


def _failed(error: RowError) -> Row:
    return Row(file=error["file"], line=error["line"], record=None, error=error)


def read_rows(path: Path, kind: str) -> Iterator[Row]:
    """Each row of ``path`` as a record (not yet schema-checked), or the error that kept
    it from being read."""
    if path.stat().st_size > MAX_FILE_BYTES:
        yield _failed(_file_error(path.name, f"larger than {MAX_FILE_BYTES // 2**20} MiB"))
        return
    try:
        text = path.read_text("utf-8-sig")
    except UnicodeDecodeError as exc:
        yield _failed(_file_error(path.name, f"not UTF-8 text ({exc.reason} at byte {exc.start})"))
        return
    if path.suffix == ".jsonl":
        yield from _jsonl_rows(path.name, text)
    else:
        yield from _csv_rows(path.name, text, kind)


def _jsonl_rows(name: str, text: str) -> Iterator[Row]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            yield _failed(
                RowError(file=name, line=number, field="", message=f"not JSON: {exc.msg}")
            )
            continue
        if not isinstance(value, dict):
            yield _failed(RowError(file=name, line=number, field="", message="not a JSON object"))
            continue
        yield Row(file=name, line=number, record=value, error=None)


def _csv_rows(name: str, text: str, kind: str) -> Iterator[Row]:
    properties: dict[str, Any] = schema(kind)["properties"]
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None:
        yield _failed(_file_error(name, "empty: a CSV file needs a header row"))
        return
    columns = [c.strip() for c in header]
    unknown = [c for c in columns if c not in properties]
    if unknown:
        allowed = ", ".join(properties)
        for col in unknown:
            yield _failed(
                RowError(file=name, line=1, field=col, message=f"unknown column ({allowed})")
            )
        return
    for cells in reader:
        number = reader.line_num
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(columns):
            msg = f"{len(cells)} cells, the header has {len(columns)}"
            yield _failed(RowError(file=name, line=number, field="", message=msg))
            continue
        record: dict[str, Any] = {}
        for col, cell in zip(columns, cells, strict=True):
            cell = cell.strip()
            if cell:
                record[col] = _cell_value(cell, properties[col])
        yield Row(file=name, line=number, record=record, error=None)


def _cell_value(cell: str, prop: dict[str, Any]) -> Any:
    """A CSV cell as the schema's type; left as text when it does not parse (the schema
    check then says what was expected)."""
    kind = prop.get("type")
    if kind == "array":
        return [item.strip() for item in cell.split(LIST_SEPARATOR) if item.strip()]
    if kind == "integer":
        return int(cell) if cell.lstrip("-").isdigit() else cell
    if kind == "number":
        try:
            return float(cell)
        except ValueError:
            return cell
    if kind == "boolean":
        lowered = cell.lower()
        return {"true": True, "false": False}.get(lowered, cell)
    return cell


def schema_errors(row: Row, kind: str) -> list[RowError]:
    """Every way the record breaks its kind's schema, one error per field."""
    out: list[RowError] = []
    record = row["record"] or {}
    for err in sorted(validator(kind).iter_errors(record), key=lambda e: list(e.path)):
        field = ".".join(str(p) for p in err.absolute_path)
        if err.validator == "required":
            missing = err.message.split("'")[1] if "'" in err.message else ""
            field, message = missing, "required"
        elif err.validator == "additionalProperties":
            message = f"unknown field ({', '.join(schema(kind)['properties'])})"
            field = ",".join(sorted(set(record) - set(schema(kind)["properties"])))
        else:
            message = err.message
        out.append(RowError(file=row["file"], line=row["line"], field=field, message=message))
    return out
