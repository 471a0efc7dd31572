"""Tool contracts (``tools/*.json``): load, check, validate input, dispatch, never raise.

Contracts
    One file per tool, ``tools/<name>.json`` with ``name`` (== the file name),
    ``description`` (the model's prompt for the tool), ``input_schema`` and
    ``output_schema`` (Draft 2020-12). ``tools/_shared.json`` holds shared output
    ``$defs``, referenced by its absolute ``$id``. ``load_contracts`` checks every file
    (JSON, metaschema, name, description, input objects closed with
    ``additionalProperties: false``, every ``$ref`` resolvable) and raises
    ``ContractError`` naming the broken file, so a bad contract stops start-up.

Normalisation (before validation, and only this)
    For the top-level string arguments and the strings in top-level lists, surrounding
    white space is stripped; ``partNumber`` and ``model`` are upper-cased
    (``" ps11752778 "`` → ``"PS11752778"``); ``appliance`` is lower-cased
    (``"Dishwasher"`` → ``"dishwasher"``). Everything else is strict: no type coercion
    (``"5"`` is not an integer, ``12345`` is not a part number), no extra properties,
    lengths and patterns as the contract says, and strings must be valid Unicode text
    (a lone surrogate is rejected).

Results
    ``Toolbox.call`` never raises. Invalid input becomes
    ``{"ok": false, "error": {"code": "invalid_input", "message", "errors": [{"path",
    "message"}]}}`` with a JSON-pointer ``path`` (``"/partNumber"``, ``"/symptoms/3"``,
    ``""`` for the arguments as a whole) and a message that says the expected form.
    Other codes: ``unknown_tool``, the implementation's own (``unknown_part``),
    ``timeout`` and ``internal``.

Speed
    Each contract's input schema is also compiled into a plain-Python check for the
    keyword subset the contracts use; it only ever answers "certainly valid", anything
    else goes to the compiled ``jsonschema`` validator, which decides and explains
    (``bench/bench_validation.py``; docs/performance.md#d-fast-check).
"""

from __future__ import annotations

import asyncio
import json
import logging
import reprlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError, ValidationError
from jsonschema.protocols import Validator
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from partchat.catalog.types import CatalogReader
from partchat.protocol.fast_checks import SURROGATE, compile_fast_check, is_text
from partchat.toolbox.impls import IMPLEMENTATIONS, ToolFailure, ToolImpl

log = logging.getLogger(__name__)

SHARED_FILE = "_shared.json"
_UPPER_FIELDS = frozenset({"partNumber", "model"})
_LOWER_FIELDS = frozenset({"appliance"})
_MAX_ERRORS = 10
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


# ---------------------------------------------------------------- normalisation


def normalise(args: Any) -> Any:
    """Strip surrounding spaces; upper-case part and model numbers; lower-case appliance."""
    if type(args) is not dict:
        return args
    out: dict[str, Any] = {}
    for key, value in args.items():
        if type(value) is str:
            value = value.strip()
            if key in _UPPER_FIELDS:
                value = value.upper()
            elif key in _LOWER_FIELDS:
                value = value.lower()
        elif type(value) is list:
            value = [v.strip() if type(v) is str else v for v in value]
        out[key] = value
    return out


# ---------------------------------------------------------------- safe jsonschema


def _guarded(keyword: Any) -> Any:
    """Wrap a keyword function: jsonschema formats ``repr(instance)`` into its messages,
    which raises for ints of more than 4,300 digits and for very deep nesting. The
    wrapped keyword reports a plain error instead (our messages never echo values)."""

    def run(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
        try:
            yield from keyword(validator, value, instance, schema)
        except (ValueError, RecursionError, OverflowError, MemoryError):
            yield ValidationError("is not valid")

    return run


InputValidator: type[Validator] = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    {k: _guarded(v) for k, v in Draft202012Validator.VALIDATORS.items()},
)


# ---------------------------------------------------------------- error descriptions


def _clean(text: str) -> str:
    return text if text.isascii() else SURROGATE.sub("\ufffd", text)


def _pointer(parts: Any) -> str:
    return _clean("".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts))


def _label(parts: list[Any]) -> str:
    if not parts:
        return "the arguments"
    out = _clean(str(parts[0]))[:60]
    for p in parts[1:]:
        out += f"[{p}]" if isinstance(p, int) else f".{_clean(str(p))[:60]}"
    return out


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "array": "a list",
    "object": "a JSON object",
    "boolean": "true or false",
    "null": "null",
}


def _size(value: Any) -> str:
    try:
        return f"{len(value):,}"
    except TypeError:
        return "?"


def _expected(err: ValidationError) -> str:
    """What the keyword wanted, in words, without echoing the value."""
    v: Any = err.validator_value
    inst: Any = err.instance
    match err.validator:
        case "type":
            wanted = " or ".join(
                _TYPE_NAMES.get(t, str(t)) for t in ([v] if isinstance(v, str) else v)
            )
            return f"must be {wanted}, not {_kind(inst)}"
        case "minLength":
            if v == 1:
                return "must not be empty"
            return f"must be at least {v} characters long, not {_size(inst)}"
        case "maxLength":
            return f"must be at most {v:,} characters long, not {_size(inst)}"
        case "minItems":
            return f"must have at least {v} item{'s' if v != 1 else ''}, not {_size(inst)}"
        case "maxItems":
            return f"must have at most {v} items, not {_size(inst)}"
        case "pattern":
            return "is not in the expected form"
        case "enum":
            return "must be one of: " + ", ".join(json.dumps(e) for e in v)
        case "const":
            return f"must be {json.dumps(v)}"
        case "minimum":
            return f"must be at least {v}"
        case "maximum":
            return f"must be at most {v}"
        case _:
            return f"is not valid ({err.validator})"


_short = reprlib.Repr()
_short.maxstring = 60
_short.maxother = 60


def _echo(value: Any) -> str:
    try:
        return _clean(_short.repr(value))
    except Exception:  # huge ints, deep nesting: the value is not worth a crash
        return f"<{_kind(value)}>"


def describe_errors(
    error_list: list[ValidationError],
    schema: Mapping[str, Any],
    *,
    echo: bool = False,
    limit: int = _MAX_ERRORS,
) -> list[dict[str, str]]:
    """Validation errors → ``[{path, message}]``: a JSON pointer and the expected form.

    The message names the field, says what was wrong and, from the contract's property
    ``description``, what is expected. Values are not echoed (they may be 10 kB
    strings); ``echo=True`` appends a short repr, for output checks in logs."""
    props: Mapping[str, Any] = schema.get("properties", {}) if isinstance(schema, Mapping) else {}
    out: list[dict[str, str]] = []
    required_done: set[str] = set()
    for err in sorted(error_list, key=lambda e: _pointer(e.absolute_path)):
        path = list(err.absolute_path)
        if err.validator == "required":
            # jsonschema reports each missing property with the whole ``required`` list.
            name = str(err.message).split("'")[1] if err.message.count("'") >= 2 else ""
            path, message = [*path, name], "is required"
            if _pointer(path) in required_done:
                continue
            required_done.add(_pointer(path))
        elif err.validator == "additionalProperties":
            instance = err.instance if isinstance(err.instance, dict) else {}
            allowed = err.schema.get("properties", {}) if isinstance(err.schema, dict) else {}
            for extra in [k for k in instance if k not in allowed][:5]:
                out.append(
                    {
                        "path": _pointer([*path, extra]),
                        "message": f"{_label([*path, extra])} is not an accepted property; "
                        f"the accepted ones are: {', '.join(allowed) or 'none'}",
                    }
                )
            continue
        elif err.validator == "type" and not path:
            message = f"must be a JSON object, not {_kind(err.instance)}"
        else:
            message = _expected(err)
        message = f"{_label(path)} {message}"
        if echo and err.validator != "required":
            message += f" (got {_echo(err.instance)})"
        top = path[0] if path else None
        hint = props.get(top, {}).get("description") if isinstance(top, str) else None
        if not path and err.validator == "type" and props:
            hint = "an object with " + ", ".join(props)
        if isinstance(hint, str):
            message = f"{message}; expected {hint}"
        out.append({"path": _pointer(path), "message": message})
    return out[:limit]


def _text_errors(
    args: dict[str, Any], props: Mapping[str, Any], taken: set[str]
) -> list[dict[str, str]]:
    """Strings that are not valid Unicode text (lone surrogates), which JSON Schema allows."""
    out: list[dict[str, str]] = []
    for key, value in args.items():
        if key not in props:
            continue
        where: list[list[Any]] = []
        if type(value) is str:
            where = [] if is_text(value) else [[key]]
        elif type(value) is list:
            where = [[key, i] for i, v in enumerate(value) if type(v) is str and not is_text(v)]
        for parts in where:
            pointer = _pointer(parts)
            if pointer in taken:
                continue
            message = f"{_label(parts)} is not valid Unicode text (it has a lone surrogate)"
            hint = props[key].get("description")
            out.append(
                {"path": pointer, "message": f"{message}; expected {hint}" if hint else message}
            )
    return out


def error_result(
    code: str, message: str, errors: list[dict[str, str]] | None = None
) -> dict[str, Any]:
    return {"ok": False, "error": {"code": code, "message": message, "errors": errors or []}}


# ---------------------------------------------------------------- the toolbox


class Toolbox:
    """Validated, time-limited dispatch from tool name + arguments to a JSON result."""

    def __init__(
        self,
        catalog: CatalogReader,
        contracts: dict[str, Contract],
        registry: Registry | None = None,
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
        registry = registry if registry is not None else Registry()
        self.catalog = catalog
        self.contracts = contracts
        self.implementations = dict(implementations)
        self.timeout_s = timeout_s
        self.validate_output = validate_output
        self._input = {n: InputValidator(c.input_schema) for n, c in contracts.items()}
        self._fast = {n: compile_fast_check(c.input_schema) for n, c in contracts.items()}
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
        args = normalise(args)
        fast = self._fast[name]
        if fast is not None and fast(args):
            return args, []
        validator = self._input[name]
        schema = self.contracts[name].input_schema
        errors = describe_errors(list(validator.iter_errors(args)), schema)
        if type(args) is dict:
            taken = {e["path"] for e in errors}
            errors += _text_errors(args, schema.get("properties", {}), taken)
        return args, errors[:_MAX_ERRORS]

    def output_errors(self, name: str, result: Any) -> list[dict[str, str]]:
        """How ``result`` breaks the tool's output contract (empty when it does not)."""
        try:
            return describe_errors(
                list(self._output[name].iter_errors(result)), {}, echo=True, limit=50
            )
        except Exception as exc:  # a result jsonschema cannot even look at
            return [{"path": "", "message": f"cannot be validated: {exc!r:.200}"}]

    async def call(self, name: str, args: Any) -> dict[str, Any]:
        """Run one tool. Never raises: every failure is an ``ok: false`` result."""
        try:
            return await self._call(name, args)
        except Exception:
            log.exception("toolbox failed on %s", _echo(name))
            return error_result("internal", "The tool failed unexpectedly; try again later.")

    async def _call(self, name: str, args: Any) -> dict[str, Any]:
        if not isinstance(name, str) or name not in self.contracts:
            return error_result(
                "unknown_tool",
                f"There is no tool named {_echo(name)}. Tools: {', '.join(self.names)}.",
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
            log.warning("tool %s timed out after %g s", name, self.timeout_s)
            return error_result(
                "timeout", f"{name} took longer than {self.timeout_s:g} s; try again."
            )
        except Exception:
            log.exception("tool %s failed", name)
            return error_result("internal", f"{name} failed inside the catalog; try again later.")
        if not isinstance(result, dict) or result.get("ok") is not True:
            log.error("tool %s returned a non-result: %s", name, _echo(result))
            return error_result("internal", f"{name} returned no result; try again later.")
        if self.validate_output:
            problems = self.output_errors(name, result)
            if problems:
                log.error("tool %s output breaks its contract: %s", name, problems)
        return result
