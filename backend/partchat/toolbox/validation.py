"""A tool's arguments: normalised, then validated against its input schema.

Normalisation (before validation, and only this)
    For the top-level string arguments and the strings in top-level lists, surrounding
    white space is stripped; ``partNumber`` and ``model`` are upper-cased
    (``" ps11752778 "`` → ``"PS11752778"``); ``appliance`` is lower-cased
    (``"Dishwasher"`` → ``"dishwasher"``). Everything else is strict: no type coercion
    (``"5"`` is not an integer, ``12345`` is not a part number), no extra properties,
    lengths and patterns as the contract says, and strings must be valid Unicode text
    (a lone surrogate is rejected).

Speed
    Each contract's input schema is also compiled into a plain-Python check for the
    keyword subset the contracts use; it only ever answers "certainly valid", anything
    else goes to the compiled ``jsonschema`` validator, which decides and explains
    (``bench/bench_validation.py``; docs/performance.md#d-fast-check).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator

_UPPER_FIELDS = frozenset({"partNumber", "model"})
_LOWER_FIELDS = frozenset({"appliance"})


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
