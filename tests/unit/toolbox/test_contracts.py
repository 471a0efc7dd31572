"""Every contract is well-formed, paired with an implementation, and broken ones stop start-up."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from partchat.toolbox.contracts import ContractError, load_contracts
from partchat.toolbox.dispatch import Toolbox
from partchat.toolbox.impls import IMPLEMENTATIONS
from tests.unit.toolbox.conftest import TOOLS_DIR

CONTRACT_FILES = sorted(p for p in TOOLS_DIR.glob("*.json") if not p.name.startswith("_"))


def test_every_contract_has_an_implementation_and_every_implementation_a_contract() -> None:
    names = {p.stem for p in CONTRACT_FILES}
    assert names == set(IMPLEMENTATIONS)
    contracts, _ = load_contracts()
    assert set(contracts) == set(IMPLEMENTATIONS)
    assert len(names) == 6


def test_the_packaged_contracts_are_the_repository_files() -> None:
    packaged, _ = load_contracts()
    from_dir, _ = load_contracts(TOOLS_DIR)
    assert {n: (c.input_schema, c.output_schema) for n, c in packaged.items()} == {
        n: (c.input_schema, c.output_schema) for n, c in from_dir.items()
    }


@pytest.mark.parametrize("path", CONTRACT_FILES, ids=lambda p: p.stem)
def test_contract_file(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert set(data) == {"name", "description", "input_schema", "output_schema"}
    assert data["name"] == path.stem
    for key in ("input_schema", "output_schema"):
        schema = data[key]
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema)  # the metaschema check
        assert schema["type"] == "object"
    inputs = data["input_schema"]
    assert inputs["additionalProperties"] is False
    assert inputs["required"], "every tool needs at least one argument"
    for prop, sub in inputs["properties"].items():
        # The description is the "expected …" part of invalid_input messages.
        assert len(sub.get("description", "")) >= 15, f"{prop} needs a description"
    assert set(inputs["required"]) <= set(inputs["properties"])
    outputs = data["output_schema"]
    assert outputs["properties"]["ok"] == {"const": True}
    assert outputs["additionalProperties"] is False


@pytest.mark.parametrize("path", CONTRACT_FILES, ids=lambda p: p.stem)
def test_description_is_prompt_quality(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    text: str = data["description"]
    assert 200 <= len(text) <= 1024, "long enough to guide the model, within OpenAI's limit"
    assert text == text.strip() and "  " not in text
    assert text[0].isupper() and text.endswith(".")
    assert re.search(r"\bUse it\b|\bcall this\b", text), "say when to use the tool"
    lowered = text.lower()
    assert "todo" not in lowered and "xxx" not in lowered
    # Required inputs are explained in the description (by name or in words).
    words = {
        "partNumber": "part number",
        "model": "model",
        "symptoms": "symptom",
        "text": "text",
        "query": "words",
    }
    for field in data["input_schema"]["required"]:
        assert field in text or words[field] in lowered, field


def test_openai_tools_are_the_contracts() -> None:
    contracts, registry = load_contracts()
    box = Toolbox(object(), contracts, registry)  # type: ignore[arg-type]
    tools = box.openai_tools()
    assert sorted(t["function"]["name"] for t in tools) == sorted(IMPLEMENTATIONS)
    for tool in tools:
        assert tool["type"] == "function"
        fn = tool["function"]
        assert "$schema" not in fn["parameters"]
        assert fn["parameters"]["additionalProperties"] is False
        assert fn["description"] == contracts[fn["name"]].description
        json.dumps(tool)


# ------------------------------------------------------------------ broken contracts


@pytest.fixture
def tools_copy(tmp_path: Path) -> Path:
    target = tmp_path / "tools"
    shutil.copytree(TOOLS_DIR, target, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return target


def _edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def _load(directory: Path) -> None:
    Toolbox.load(object(), directory=directory)  # type: ignore[arg-type]


def test_the_copy_loads(tools_copy: Path) -> None:
    _load(tools_copy)


def test_bad_json_names_the_file(tools_copy: Path) -> None:
    (tools_copy / "search_parts.json").write_text('{"name": "search_parts",', encoding="utf-8")
    with pytest.raises(ContractError, match=r"search_parts\.json.*not valid JSON"):
        _load(tools_copy)


def test_not_utf8_names_the_file(tools_copy: Path) -> None:
    (tools_copy / "search_parts.json").write_bytes(b'{"name": "\xff"}')
    with pytest.raises(ContractError, match=r"search_parts\.json"):
        _load(tools_copy)


def test_invalid_schema_names_the_file(tools_copy: Path) -> None:
    def bad(d: dict[str, Any]) -> None:
        d["input_schema"]["properties"]["partNumber"]["type"] = "text"

    _edit(tools_copy / "get_part_details.json", bad)
    with pytest.raises(ContractError, match=r"get_part_details\.json: input_schema is not a valid"):
        _load(tools_copy)


def test_invalid_output_schema_names_the_file(tools_copy: Path) -> None:
    def bad(d: dict[str, Any]) -> None:
        d["output_schema"]["required"] = "ok"

    _edit(tools_copy / "diagnose_repair.json", bad)
    with pytest.raises(ContractError, match=r"diagnose_repair\.json: output_schema"):
        _load(tools_copy)


def test_name_mismatch_names_the_file(tools_copy: Path) -> None:
    _edit(tools_copy / "check_compatibility.json", lambda d: d.update(name="check_fit"))
    with pytest.raises(ContractError, match=r"check_compatibility\.json: name 'check_fit'"):
        _load(tools_copy)


def test_name_not_a_string_names_the_file(tools_copy: Path) -> None:
    _edit(tools_copy / "check_compatibility.json", lambda d: d.update(name=7))
    with pytest.raises(ContractError, match=r"check_compatibility\.json: name 7"):
        _load(tools_copy)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda d: d.pop("description"), "missing description"),
        (lambda d: d.update(description="Search."), "description"),
        (lambda d: d.update(extra=1), "unknown keys extra"),
        (lambda d: d["input_schema"].pop("additionalProperties"), "additionalProperties"),
        (lambda d: d.update(input_schema=True), "input_schema must be a schema object"),
    ],
    ids=["no-description", "short-description", "extra-key", "open-input", "bool-schema"],
)
def test_other_breakage_names_the_file(tools_copy: Path, change: Any, match: str) -> None:
    _edit(tools_copy / "search_parts.json", change)
    with pytest.raises(ContractError, match=rf"search_parts\.json: .*{match}"):
        _load(tools_copy)


def test_a_reference_that_does_not_resolve_names_the_file(tools_copy: Path) -> None:
    def bad(d: dict[str, Any]) -> None:
        d["output_schema"]["properties"]["part"]["$ref"] = (
            "https://partchat.dev/schemas/tools/shared.json#/$defs/PartCardd"
        )

    _edit(tools_copy / "get_part_details.json", bad)
    with pytest.raises(ContractError, match=r"get_part_details\.json: output_schema refers to"):
        _load(tools_copy)


def test_missing_shared_file_breaks_the_references(tools_copy: Path) -> None:
    (tools_copy / "_shared.json").unlink()
    with pytest.raises(ContractError, match=r"\.json: output_schema refers to"):
        _load(tools_copy)


def test_a_contract_without_an_implementation_stops_start_up(tools_copy: Path) -> None:
    data = json.loads((tools_copy / "search_parts.json").read_text(encoding="utf-8"))
    data["name"] = "order_parts"
    (tools_copy / "order_parts.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ContractError, match=r"no implementation for \['order_parts'\]"):
        _load(tools_copy)


def test_an_implementation_without_a_contract_stops_start_up(tools_copy: Path) -> None:
    (tools_copy / "extract_information.json").unlink()
    with pytest.raises(ContractError, match=r"no contract for \['extract_information'\]"):
        _load(tools_copy)
