"""Tool contracts (``tools/*.json``): load and check them.

Contracts
    One file per tool, ``tools/<name>.json`` with ``name`` (== the file name),
    ``description`` (the model's prompt for the tool), ``input_schema`` and
    ``output_schema`` (Draft 2020-12). ``tools/_shared.json`` holds shared output
    ``$defs``, referenced by its absolute ``$id``. ``load_contracts`` checks every file
    (JSON, metaschema, name, description, input objects closed with
    ``additionalProperties: false``, every ``$ref`` resolvable) and raises
    ``ContractError`` naming the broken file, so a bad contract stops start-up.

"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

SHARED_FILE = "_shared.json"
_CONTRACT_KEYS = frozenset({"name", "description", "input_schema", "output_schema"})


class ContractError(RuntimeError):
    """A contract file is broken; start-up stops naming it."""


@dataclass(frozen=True, slots=True)
class Contract:
    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    source: str


# ---------------------------------------------------------------- loading and checking


def _read_contract_files(directory: Path | None) -> dict[str, tuple[str, Any]]:
    """{file name: (path for messages, parsed JSON)}; the packaged contracts by default."""
    root: Traversable | Path = (
        resources.files("partchat.contracts") if directory is None else directory
    )
    out: dict[str, tuple[str, Any]] = {}
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        try:
            out[entry.name] = (str(entry), json.loads(entry.read_text(encoding="utf-8")))
        except (ValueError, OSError) as exc:  # JSONDecodeError, UnicodeDecodeError
            raise ContractError(f"{entry}: not valid JSON: {exc}") from None
    return out


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def _check_schema(path: str, key: str, schema: Any, registry: Registry) -> None:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise ContractError(
            f"{path}: {key} is not a valid Draft 2020-12 schema: {exc.message}"
        ) from None
    if not isinstance(schema, dict):
        raise ContractError(f"{path}: {key} must be a schema object, not {schema!r:.40}")
    uri = schema.get("$id") or f"urn:partchat:{key.replace(' ', '-')}"
    resource = Resource.from_contents(schema, default_specification=DRAFT202012)
    resolver = registry.with_resource(uri, resource).resolver(base_uri=uri)
    for ref in _refs(schema):
        try:
            resolver.lookup(ref)
        except Unresolvable:
            raise ContractError(
                f"{path}: {key} refers to {ref!r}, which does not resolve"
            ) from None


def load_contracts(directory: Path | None = None) -> tuple[dict[str, Contract], Registry]:
    """Read and check every contract; ``ContractError`` names the first broken file."""
    files = _read_contract_files(directory)
    registry: Registry = Registry()
    if SHARED_FILE in files:
        path, shared = files.pop(SHARED_FILE)
        if not isinstance(shared, dict) or not isinstance(shared.get("$id"), str):
            raise ContractError(f"{path}: the shared schema needs an absolute $id")
        _check_schema(path, "the shared schema", shared, registry)
        registry = registry.with_resource(shared["$id"], Resource.from_contents(shared))
    contracts: dict[str, Contract] = {}
    for file_name, (path, data) in files.items():
        if not isinstance(data, dict):
            raise ContractError(f"{path}: a contract is a JSON object")
        missing = _CONTRACT_KEYS - data.keys()
        if missing:
            raise ContractError(f"{path}: missing {', '.join(sorted(missing))}")
        extra = data.keys() - _CONTRACT_KEYS
        if extra:
            raise ContractError(f"{path}: unknown keys {', '.join(sorted(extra))}")
        name = data["name"]
        if not isinstance(name, str) or name + ".json" != file_name:
            raise ContractError(f"{path}: name {name!r} does not match the file name")
        if not isinstance(data["description"], str) or len(data["description"].strip()) < 40:
            raise ContractError(f"{path}: the description is the model's prompt: write one")
        for key in ("input_schema", "output_schema"):
            _check_schema(path, key, data[key], registry)
        schema = data["input_schema"]
        if schema.get("type") != "object" or schema.get("additionalProperties") is not False:
            raise ContractError(
                f"{path}: input_schema must be an object with additionalProperties: false"
            )
        contracts[name] = Contract(
            name, data["description"], data["input_schema"], data["output_schema"], path
        )
    return contracts, registry
