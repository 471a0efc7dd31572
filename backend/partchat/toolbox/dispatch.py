"""Tool dispatch: a tool name and arguments to a JSON result, validated, time-limited,
never raising.

Results
    ``Toolbox.call`` never raises. Invalid input becomes
    ``{"ok": false, "error": {"code": "invalid_input", "message", "errors": [{"path",
    "message"}]}}`` with a JSON-pointer ``path`` (``"/partNumber"``, ``"/symptoms/3"``,
    ``""`` for the arguments as a whole) and a message that says the expected form.
    Other codes: ``unknown_tool``, the implementation's own (``unknown_part``),
    ``timeout`` and ``internal``.

Contracts: ``contracts.py``; arguments: ``validation.py`` (and the fast checks in
``partchat.protocol.fast_checks``); error messages: ``errors.py``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry

from partchat.catalog.types import CatalogReader
from partchat.protocol.fast_checks import compile_fast_check
from partchat.toolbox.contracts import Contract, ContractError, load_contracts
from partchat.toolbox.errors import (
    MAX_ERRORS,
    describe_errors,
    error_result,
    short_repr,
    text_errors,
)
from partchat.toolbox.impls import IMPLEMENTATIONS, ToolFailure, ToolImpl
from partchat.toolbox.validation import InputValidator, normalise

log = logging.getLogger(__name__)


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
            errors += text_errors(args, schema.get("properties", {}), taken)
        return args, errors[:MAX_ERRORS]

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
            log.exception("toolbox failed on %s", short_repr(name))
            return error_result("internal", "The tool failed unexpectedly; try again later.")

    async def _call(self, name: str, args: Any) -> dict[str, Any]:
        if not isinstance(name, str) or name not in self.contracts:
            return error_result(
                "unknown_tool",
                f"There is no tool named {short_repr(name)}. Tools: {', '.join(self.names)}.",
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
            log.error("tool %s returned a non-result: %s", name, short_repr(result))
            return error_result("internal", f"{name} returned no result; try again later.")
        if self.validate_output:
            problems = self.output_errors(name, result)
            if problems:
                log.error("tool %s output breaks its contract: %s", name, problems)
        return result
