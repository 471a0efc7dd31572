"""``partchat catalog import --from DIR``: a store's own catalog, checked whole, built
atomically, kept over the shipped one."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import EXAMPLE_CATALOG
from tests.support.store_catalog import minimal_store, write_kind, write_store

from partchat import cli
from partchat.catalog import build, build_catalog, needs_build
from partchat.catalog.build import ImportedCatalogOutdated, catalog_meta
from partchat.catalog.schema import SCHEMA_VERSION
from partchat.catalog.store_format import KINDS, schema
from partchat.catalog.store_import import (
    ERROR_LIMIT,
    ImportRejected,
    format_errors,
    import_catalog,
    validate,
)
from partchat.nlu import store as nlu_store
from partchat.nlu.store import CATALOG_EXTENSION

Store = dict[str, list[dict[str, Any]]]


@pytest.fixture
def no_training(monkeypatch: pytest.MonkeyPatch) -> None:
    """Builds without training the understanding model (what these tests check is the
    catalog; the model's own tests train it)."""
    monkeypatch.setattr(nlu_store, "insert_model", lambda conn: None)


def errors_of(directory: Path) -> list[tuple[str, int, str, str]]:
    _rows, errors = validate(directory)
    return [(e["file"], e["line"], e["field"], e["message"]) for e in errors]


def dump(db: Path) -> dict[str, list[Any]]:
    """Every table's rows but meta and the model (import time, paths, digests)."""
    conn = sqlite3.connect(build.ro_uri(db), uri=True)
    try:
        tables = [
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if r[0] not in ("meta", "nlu_model") and not r[0].startswith("parts_fts_")
        ]
        return {t: sorted(map(repr, conn.execute(f"SELECT * FROM {t}"))) for t in tables}
    finally:
        conn.close()


# ------------------------------------------------------------------ the format


def test_the_examples_are_valid() -> None:
    rows, errors = validate(EXAMPLE_CATALOG)
    assert errors == []
    assert {k: len(v) for k, v in rows.items()} == {
        "parts": 12,
        "models": 4,
        "compatibility": 17,
        "symptoms": 11,
        "install_guides": 5,
    }
    # CSV and JSON Lines both appear in the examples
    assert {p.suffix for p in EXAMPLE_CATALOG.iterdir()} >= {".csv", ".jsonl"}


def test_schemas_are_shipped_and_appliances_are_the_protocols() -> None:
    protocol = json.loads(
        (Path(cli.__file__).parent / "schemas" / "protocol.schema.json").read_text()
    )
    appliances = [a for a in protocol["$defs"]["ApplianceType"]["enum"] if a is not None]
    assert schema("parts")["properties"]["appliances"]["items"]["enum"] == appliances
    assert schema("models")["properties"]["appliance"]["enum"] == appliances
    assert schema("symptoms")["properties"]["appliance"]["enum"] == appliances
    assert set(KINDS) == {"parts", "models", "compatibility", "symptoms", "install_guides"}


def _bad(kind: str, index: int, **changes: Any) -> Store:
    store = minimal_store()
    record = dict(store[kind][index])
    for key, value in changes.items():
        if value is None:
            record.pop(key, None)
        else:
            record[key] = value
    store[kind][index] = record
    return store


# (kind, index of the record made bad, changes, expected field, message part)
SCHEMA_CASES = [
    ("parts", 0, {"name": None}, "name", "required"),
    ("parts", 0, {"part_number": "ab 1"}, "part_number", "does not match"),
    ("parts", 0, {"appliances": ["oven"]}, "appliances.0", "is not one of"),
    ("parts", 1, {"price": -3}, "price", "less than the minimum"),
    ("parts", 1, {"rating_pct": 150}, "rating_pct", "greater than the maximum"),
    ("parts", 1, {"video_url": "http://x"}, "video_url", "does not match"),
    ("models", 1, {"appliance": "washer"}, "appliance", "is not one of"),
    ("models", 0, {"brand": None}, "brand", "required"),
    ("compatibility", 1, {"model_number": None}, "model_number", "required"),
    ("symptoms", 0, {"part_types": None}, "part_types", "required"),
    ("symptoms", 0, {"reported_pct": 101}, "reported_pct", "greater than the maximum"),
    ("install_guides", 0, {"steps": None}, "steps", "required"),
]


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
@pytest.mark.parametrize(("kind", "index", "changes", "field", "message"), SCHEMA_CASES)
def test_schema_errors_name_file_line_field(
    tmp_path: Path,
    fmt: str,
    kind: str,
    index: int,
    changes: dict[str, Any],
    field: str,
    message: str,
) -> None:
    write_store(tmp_path, _bad(kind, index, **changes), fmt)
    line = index + (2 if fmt == "csv" else 1)  # CSV: the header is line 1
    errors = errors_of(tmp_path)
    assert [(f, ln, fl) for f, ln, fl, _m in errors] == [(f"{kind}.{fmt}", line, field)]
    assert message in errors[0][3]


def test_csv_cells_are_typed_by_the_schema(tmp_path: Path) -> None:
    store = minimal_store()
    store["parts"][0]["replaces"] = ["AB-90", "AB-91"]
    write_store(tmp_path, store, "csv")
    rows, errors = validate(tmp_path)
    assert errors == []
    part = rows["parts"][0]["record"]
    assert part is not None
    assert part["price"] == 10.5 and part["replaces"] == ["AB-90", "AB-91"]
    assert rows["models"][0]["record"] == minimal_store()["models"][0]  # boolean parsed
    (tmp_path / "models.csv").write_text(
        "model_number,brand,appliance,complete_parts_list\nDW100,Acme,dishwasher,maybe\n"
    )
    assert errors_of(tmp_path)[0][:3] == ("models.csv", 2, "complete_parts_list")


def test_cross_record_errors(tmp_path: Path) -> None:
    store = minimal_store()
    store["parts"].append({**store["parts"][0], "name": "again"})  # duplicate part number
    store["parts"].append(
        {**store["parts"][1], "part_number": "AB-300", "symptoms": ["Smells funny"]}
    )
    store["models"].append({**store["models"][0], "model_number": "dw-100"})  # same key
    store["compatibility"] += [
        {"part_number": "AB-999", "model_number": "DW100"},
        {"part_number": "AB-100", "model_number": "ZZ1"},
        {"part_number": "AB-100", "model_number": "DW100"},
        {"part_number": "AB-200", "model_number": "DW100"},
    ]
    store["symptoms"].append(
        {"appliance": "refrigerator", "label": "Warm", "synonyms": [], "part_types": ["Pump"]}
    )
    store["install_guides"].append({"part_type": "Compressor", "title": "x", "steps": ["a"]})
    write_store(tmp_path, store, "jsonl")
    assert errors_of(tmp_path) == [
        ("compatibility.jsonl", 3, "part_number", "unknown part 'AB-999'"),
        ("compatibility.jsonl", 4, "model_number", "unknown model 'ZZ1'"),
        ("compatibility.jsonl", 5, "", "duplicate pair, first at compatibility.jsonl:1"),
        (
            "compatibility.jsonl",
            6,
            "model_number",
            "model 'DW100' is a dishwasher; the part is not for one",
        ),
        (
            "install_guides.jsonl",
            2,
            "part_type",
            "unknown part type 'Compressor': no part has it",
        ),
        ("models.jsonl", 3, "model_number", "duplicate model, first at models.jsonl:1"),
        ("parts.jsonl", 3, "part_number", "duplicate part number, first at parts.jsonl:1"),
        ("parts.jsonl", 4, "symptoms.0", "unknown symptom 'Smells funny' for refrigerator"),
        (
            "symptoms.jsonl",
            2,
            "part_types.0",
            "unknown part type 'Pump': no refrigerator part has it",
        ),
    ]


def test_unreadable_files_and_rows(tmp_path: Path) -> None:
    write_store(tmp_path, minimal_store(), "jsonl")
    (tmp_path / "models.jsonl").unlink()
    write_kind(tmp_path, "symptoms", minimal_store()["symptoms"], "csv")
    (tmp_path / "symptoms.jsonl").write_text("{}\n")  # both formats of one kind
    with (tmp_path / "parts.jsonl").open("a") as f:
        f.write("{not json\n[1, 2]\n")
    (tmp_path / "install_guides.jsonl").unlink()
    (tmp_path / "install_guides.csv").write_text("part_type,title,steps,colour\n")
    assert errors_of(tmp_path) == [
        ("models.csv", 0, "", "missing: models.csv or models.jsonl"),
        ("symptoms.csv", 0, "", "both symptoms.csv and symptoms.jsonl: keep one"),
        ("parts.jsonl", 3, "", "not JSON: Expecting property name enclosed in double quotes"),
        ("parts.jsonl", 4, "", "not a JSON object"),
        (
            "install_guides.csv",
            1,
            "colour",
            "unknown column (part_type, title, steps, tools, safety, test, difficulty, time)",
        ),
    ]


def test_every_bad_row_is_counted_and_the_report_is_capped(tmp_path: Path) -> None:
    store = minimal_store()
    store["parts"] += [{"part_number": f"ab-{i}", "name": "x"} for i in range(70)]
    write_store(tmp_path, store, "csv")
    _rows, errors = validate(tmp_path)
    assert len(errors) == 70 * 3  # pattern, appliances and part_type on every row
    lines = format_errors(errors)
    assert len(lines) == ERROR_LIMIT + 1
    assert lines[0].startswith("parts.csv:4: ")
    assert lines[-1] == f"… and {70 * 3 - ERROR_LIMIT} more"


# ------------------------------------------------------------------ building


def test_a_rejected_import_writes_nothing(tmp_path: Path, imported_catalog_db: Path) -> None:
    db = tmp_path / "data" / "catalog.db"
    db.parent.mkdir()
    shutil.copy(imported_catalog_db, db)
    before = db.read_bytes()
    write_store(tmp_path / "src", _bad("parts", 0, price="free"), "jsonl")
    with pytest.raises(ImportRejected) as info:
        import_catalog(tmp_path / "src", db, extension=CATALOG_EXTENSION)
    assert info.value.errors[0]["field"] == "price"
    assert db.read_bytes() == before
    assert sorted(p.name for p in db.parent.iterdir()) == ["catalog.db"]


def test_a_crash_mid_build_leaves_the_old_catalog(
    tmp_path: Path, imported_catalog_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "catalog.db"
    shutil.copy(imported_catalog_db, db)
    before = db.read_bytes()

    def crash(conn: sqlite3.Connection) -> None:
        raise RuntimeError("power cut")

    monkeypatch.setattr(nlu_store, "insert_model", crash)
    write_store(tmp_path / "src", minimal_store(), "csv")
    with pytest.raises(RuntimeError, match="power cut"):
        import_catalog(tmp_path / "src", db, extension=CATALOG_EXTENSION)
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["catalog.db", "src"]


def test_csv_and_jsonl_give_the_same_catalog(tmp_path: Path, no_training: None) -> None:
    rows, _ = validate(EXAMPLE_CATALOG)
    store = {kind: [r["record"] for r in rs if r["record"]] for kind, rs in rows.items()}
    dbs = []
    for fmt in ("csv", "jsonl"):
        write_store(tmp_path / fmt, store, fmt)
        dbs.append(tmp_path / f"{fmt}.db")
        import_catalog(tmp_path / fmt, dbs[-1], extension=CATALOG_EXTENSION)
    first, second = dump(dbs[0]), dump(dbs[1])
    assert first == second
    assert len(first["parts"]) == 12 and len(first["compat"]) == 17


def test_an_imported_catalog_is_kept_and_remembered(
    tmp_path: Path, imported_catalog_db: Path
) -> None:
    meta = catalog_meta(imported_catalog_db)
    assert meta["source"] == "import"
    assert meta["imported_from"] == str(EXAMPLE_CATALOG.resolve())
    assert meta["part_number_shape"] == r"(?:AB)-?\d{3,12}"
    # no rebuild from the shipped data
    assert not needs_build(imported_catalog_db, extension=CATALOG_EXTENSION)
    stale = tmp_path / "catalog.db"
    shutil.copy(imported_catalog_db, stale)
    conn = sqlite3.connect(stale)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    conn.commit()
    conn.close()
    with pytest.raises(ImportedCatalogOutdated, match="catalog import --from"):
        needs_build(stale, extension=CATALOG_EXTENSION)


def test_catalog_build_goes_back_to_the_shipped_catalog(
    tmp_path: Path, imported_catalog_db: Path, no_training: None
) -> None:
    db = tmp_path / "catalog.db"
    shutil.copy(imported_catalog_db, db)
    stats = build_catalog(None, db, extension=CATALOG_EXTENSION)
    assert stats["parts"] > 10_000
    assert catalog_meta(db)["source"] == "shipped"
    assert catalog_meta(db)["part_number_shape"] == r"(?:PS)\d{3,12}"


# ------------------------------------------------------------------ the CLI


def test_cli_reports_every_error_and_keeps_the_catalog(
    tmp_path: Path,
    imported_catalog_db: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(imported_catalog_db, data / "catalog.db")
    before = (data / "catalog.db").read_bytes()
    monkeypatch.setenv("PARTCHAT_DATA_DIR", str(data))
    store = minimal_store()
    store["compatibility"].append({"part_number": "AB-7", "model_number": "DW100"})
    write_store(tmp_path / "src", store, "csv")
    assert cli.main(["catalog", "import", "--from", str(tmp_path / "src")]) == 1
    err = capsys.readouterr().err
    assert "compatibility.csv:4: part_number: unknown part 'AB-7'" in err
    assert "1 errors" in err and "nothing imported" in err
    assert (data / "catalog.db").read_bytes() == before


def test_cli_imports(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    no_training: None,
) -> None:
    monkeypatch.setenv("PARTCHAT_DATA_DIR", str(tmp_path / "data"))
    write_store(tmp_path / "src", minimal_store(), "jsonl")
    assert cli.main(["catalog", "import", "--from", str(tmp_path / "src")]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["parts"], stats["models"], stats["compatibility_pairs"]) == (2, 2, 2)
    assert catalog_meta(tmp_path / "data" / "catalog.db")["source"] == "import"


def test_the_developer_importer_is_a_script_not_a_command() -> None:
    # raw sources -> data/catalog/ is scripts/import_sources.py (docs/catalog.md)
    with pytest.raises(SystemExit):
        cli._parser().parse_args(["catalog", "import-sources", "raw"])
    with pytest.raises(SystemExit):
        cli._parser().parse_args(["catalog", "import", "raw"])  # --from is required
