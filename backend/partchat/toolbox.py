"""Tool contracts (``tools/*.json``): load, check, validate input, dispatch, never raise.

Normalisation before validation, and only this: surrounding white space is stripped
from every string; ``partNumber`` and ``model`` are upper-cased; ``appliance`` is
lower-cased. Everything else is validated strictly against the contract.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError
from referencing import Registry, Resource

from partchat.catalog.types import CatalogReader
from partchat.tool_impls import IMPLEMENTATIONS, ToolFailure, ToolImpl

log = logging.getLogger(__name__)

SHARED_FILE = "_shared.json"
_UPPER_FIELDS = frozenset({"partNumber", "model"})
_LOWER_FIELDS = frozenset({"appliance"})


class ContractError(RuntimeError):
    """A contract file is broken; start-up stops naming it."""


@dataclass(frozen=True, slots=True)
class Contract:
    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    source: str


def _read_contract_files(directory: Path | None) -> dict[str, tuple[str, Any]]:
    """{file name: (path for messages, parsed JSON)}; the packaged contracts by default."""
    root = resources.files("partchat.contracts") if directory is None else directory
    out: dict[str, tuple[str, Any]] = {}
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        try:
            out[entry.name] = (str(entry), json.loads(entry.read_text(encoding="utf-8")))
        except json.JSONDecodeError as exc:
            raise ContractError(f"{entry}: not valid JSON: {exc}") from None
    return out


def load_contracts(directory: Path | None = None) -> tuple[dict[str, Contract], Registry]:
    files = _read_contract_files(directory)
    registry: Registry = Registry()
    if SHARED_FILE in files:
        path, shared = files.pop(SHARED_FILE)
        try:
            Draft202012Validator.check_schema(shared)
        except SchemaError as exc:
            raise ContractError(
                f"{path}: not a valid Draft 2020-12 schema: {exc.message}"
            ) from None
        registry = registry.with_resource(shared["$id"], Resource.from_contents(shared))
    contracts: dict[str, Contract] = {}
    for file_name, (path, data) in files.items():
        if not isinstance(data, dict):
            raise ContractError(f"{path}: a contract is a JSON object")
        missing = {"name", "description", "input_schema", "output_schema"} - data.keys()
        if missing:
            raise ContractError(f"{path}: missing {', '.join(sorted(missing))}")
        if data["name"] + ".json" != file_name:
            raise ContractError(f"{path}: name {data['name']!r} does not match the file name")
        if not isinstance(data["description"], str) or len(data["description"]) < 40:
            raise ContractError(f"{path}: the description is the model's prompt: write one")
        for key in ("input_schema", "output_schema"):
            try:
                Draft202012Validator.check_schema(data[key])
            except SchemaError as exc:
                raise ContractError(
                    f"{path}: {key} is not a valid Draft 2020-12 schema: {exc.message}"
                ) from None
        contracts[data["name"]] = Contract(
            data["name"], data["description"], data["input_schema"], data["output_schema"], path
        )
    return contracts, registry


def normalise(args: Any) -> Any:
    """Strip surrounding spaces; upper-case part and model numbers; lower-case appliance."""
    if not isinstance(args, dict):
        return args
    out: dict[str, Any] = {}
    for key, value in args.items():
        if isinstance(value, str):
            value = value.strip()
            if key in _UPPER_FIELDS:
                value = value.upper()
            elif key in _LOWER_FIELDS:
                value = value.lower()
        elif isinstance(value, list):
            value = [v.strip() if isinstance(v, str) else v for v in value]
        out[key] = value
    return out


def _pointer(parts: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def describe_errors(
    error_list: list[ValidationError], schema: Mapping[str, Any]
) -> list[dict[str, str]]:
    """Validation errors → ``[{path, message}]`` with JSON pointers and the expected form."""
    props: Mapping[str, Any] = schema.get("properties", {})
    out: list[dict[str, str]] = []
    for err in sorted(error_list, key=lambda e: list(e.absolute_path))[:10]:
        path = list(err.absolute_path)
        message = err.message if len(err.message) <= 200 else err.message[:200] + "…"
        if err.validator == "required":
            name = str(err.message).split("'")[1] if "'" in err.message else ""
            path = [*path, name] if name else path
            message = f"{name} is required"
        elif err.validator == "additionalProperties" and not path:
            instance = err.instance if isinstance(err.instance, dict) else {}
            extras = [k for k in instance if k not in props]
            for extra in extras[:5]:
                out.append(
                    {
                        "path": _pointer([extra]),
                        "message": f"unexpected property {extra!r}; allowed: {', '.join(props)}",
                    }
                )
            continue
        elif err.validator == "type" and not path:
            message = "the arguments must be a JSON object"
        top = str(path[0]) if path else ""
        hint = props.get(top, {}).get("description") if top else None
        if hint and err.validator != "additionalProperties":
            message = f"{message}; expected {hint}"
        out.append({"path": _pointer(path), "message": message})
    return out


def error_result(
    code: str, message: str, errors: list[dict[str, str]] | None = None
) -> dict[str, Any]:
    return {"ok": False, "error": {"code": code, "message": message, "errors": errors or []}}


class Toolbox:
    """Validated, time-limited dispatch from tool name + arguments to a JSON result."""

    def __init__(
        self,
        catalog: CatalogReader,
        contracts: dict[str, Contract],
        registry: Registry,
        implementations: Mapping[str, ToolImpl] = IMPLEMENTATIONS,
        *,
        timeout_s: float = 5.0,
        validate_output: bool = False,
    ) -> None:
        if set(contracts) != set(implementations):
            raise ContractError(
                "contracts and implementations differ: "
                f"no implementation for {sorted(set(contracts) - set(implementations))}, "
                f"no contract for {sorted(set(implementations) - set(contracts))}"
            )
        self.catalog = catalog
        self.contracts = contracts
        self.implementations = dict(implementations)
        self.timeout_s = timeout_s
        self.validate_output = validate_output
        self._input = {n: Draft202012Validator(c.input_schema) for n, c in contracts.items()}
        self._output = {
            n: Draft202012Validator(c.output_schema, registry=registry)
            for n, c in contracts.items()
        }

    @classmethod
    def load(
        cls,
        catalog: CatalogReader,
        *,
        directory: Path | None = None,
        timeout_s: float = 5.0,
        validate_output: bool = False,
    ) -> Toolbox:
        contracts, registry = load_contracts(directory)
        return cls(
            catalog, contracts, registry, timeout_s=timeout_s, validate_output=validate_output
        )

    @property
    def names(self) -> list[str]:
        return sorted(self.contracts)

    def openai_tools(self) -> list[dict[str, Any]]:
        """The contracts as OpenAI function definitions, for ``bind_tools``."""
        tools = []
        for c in self.contracts.values():
            params = {k: v for k, v in c.input_schema.items() if k != "$schema"}
            tools.append(
                {
                    "type": "function",
                    "function": {
                        "name": c.name,
                        "description": c.description,
                        "parameters": params,
                    },
                }
            )
        return tools

    def validate_input(self, name: str, args: Any) -> tuple[Any, list[dict[str, str]]]:
        """(normalised arguments, errors); errors empty when valid."""
        validator = self._input[name]
        args = normalise(args)
        if validator.is_valid(args):
            return args, []
        return args, describe_errors(
            list(validator.iter_errors(args)), self.contracts[name].input_schema
        )

    def output_errors(self, name: str, result: Any) -> list[dict[str, str]]:
        return describe_errors(list(self._output[name].iter_errors(result)), {})

    async def call(self, name: str, args: Any) -> dict[str, Any]:
        """Run one tool. Never raises: every failure is an ``ok: false`` result."""
        if name not in self.contracts:
            return error_result(
                "unknown_tool", f"There is no tool named {name!r}. Tools: {', '.join(self.names)}."
            )
        args, errors = self.validate_input(name, args)
        if errors:
            return error_result(
                "invalid_input",
                f"The arguments for {name} do not match its schema; fix them and call again.",
                errors,
            )
        try:
            async with asyncio.timeout(self.timeout_s):
                result = await self.implementations[name](self.catalog, args)
        except ToolFailure as exc:
            errs = [{"path": exc.path, "message": exc.message}] if exc.path else []
            return error_result(exc.code, exc.message, errs)
        except TimeoutError:
            return error_result(
                "timeout", f"{name} took longer than {self.timeout_s:g} s; try again."
            )
        except Exception:
            log.exception("tool %s failed", name)
            return error_result("internal", f"{name} failed inside the catalog; try again later.")
        if self.validate_output:
            problems = self.output_errors(name, result)
            if problems:
                log.error("tool %s output breaks its contract: %s", name, problems)
        return result
