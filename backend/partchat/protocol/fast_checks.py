"""A JSON Schema compiled into a plain-Python check, for the keyword subset the wire
protocol's frames and the tool contracts use.

A check only ever answers "certainly valid"; anything else goes to the compiled
``jsonschema`` validator, which decides and explains (``bench/bench_validation.py``;
docs/performance.md#d-fast-check). The protocol (client frames) and the toolbox (tool
arguments) both import it from here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

SURROGATE = re.compile("[\ud800-\udfff]")


def is_text(value: str) -> bool:
    """Valid Unicode text: encodable as UTF-8 (no lone surrogates)."""
    return value.isascii() or SURROGATE.search(value) is None


_Check = Callable[[Any], bool]
_STRING_KEYS = frozenset({"type", "minLength", "maxLength", "pattern", "description"})
_INTEGER_KEYS = frozenset({"type", "minimum", "maximum", "description"})
_ARRAY_KEYS = frozenset({"type", "minItems", "maxItems", "items", "description"})
_ENUM_KEYS = frozenset({"enum", "description"})


def _compile_value(schema: Any) -> _Check | None:
    """A check that answers True only when jsonschema would accept the value too;
    None when the schema uses anything this subset does not know."""
    if not isinstance(schema, dict):
        return None
    keys = schema.keys()
    kind = schema.get("type")
    if kind == "string" and keys <= _STRING_KEYS:
        lo, hi = int(schema.get("minLength", 0)), int(schema.get("maxLength", 1 << 62))
        pattern = re.compile(schema["pattern"]) if "pattern" in schema else None

        def string(v: Any) -> bool:
            return (
                type(v) is str
                and lo <= len(v) <= hi
                and (pattern is None or pattern.search(v) is not None)
                and is_text(v)
            )

        return string
    if kind == "integer" and keys <= _INTEGER_KEYS:
        imin, imax = schema.get("minimum"), schema.get("maximum")
        if not all(b is None or type(b) is int for b in (imin, imax)):
            return None

        def integer(v: Any) -> bool:
            return type(v) is int and (imin is None or v >= imin) and (imax is None or v <= imax)

        return integer
    if kind == "array" and keys <= _ARRAY_KEYS:
        lo, hi = int(schema.get("minItems", 0)), int(schema.get("maxItems", 1 << 62))
        item = _compile_value(schema["items"]) if "items" in schema else None
        if item is None:
            return None
        item_check = item

        def array(v: Any) -> bool:
            return type(v) is list and lo <= len(v) <= hi and all(map(item_check, v))

        return array
    if kind is None and keys <= _ENUM_KEYS and "enum" in schema:
        if not all(type(e) is str for e in schema["enum"]):
            return None
        members = frozenset(schema["enum"])

        def enum(v: Any) -> bool:
            return type(v) is str and v in members

        return enum
    return None


def compile_fast_check(schema: Mapping[str, Any]) -> _Check | None:
    """A plain-Python validity check for a flat, closed object schema, or None."""
    if (
        schema.get("type") != "object"
        or schema.get("additionalProperties") is not False
        or not schema.keys()
        <= {
            "$schema",
            "type",
            "additionalProperties",
            "required",
            "properties",
            "description",
            "title",
        }
    ):
        return None
    checks: dict[str, _Check] = {}
    for prop, sub in schema.get("properties", {}).items():
        check = _compile_value(sub)
        if check is None:
            return None
        checks[prop] = check
    required = tuple(schema.get("required", ()))

    def check_object(args: Any) -> bool:
        if type(args) is not dict:
            return False
        for key in required:
            if key not in args:
                return False
        for key, value in args.items():
            check = checks.get(key)
            if check is None or not check(value):
                return False
        return True

    return check_object
