"""Error results and their messages: each error a JSON-pointer ``path`` and a message
that says the expected form, written so the model can fix its call; values are echoed
short, or not at all when they cannot be shown safely.
"""

from __future__ import annotations

import json
import reprlib
from collections.abc import Mapping
from typing import Any

from jsonschema.exceptions import ValidationError

from partchat.protocol.fast_checks import SURROGATE, is_text

# ---------------------------------------------------------------- error descriptions


MAX_ERRORS = 10


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


def short_repr(value: Any) -> str:
    try:
        return _clean(_short.repr(value))
    except Exception:  # huge ints, deep nesting: the value is not worth a crash
        return f"<{_kind(value)}>"


def describe_errors(
    error_list: list[ValidationError],
    schema: Mapping[str, Any],
    *,
    echo: bool = False,
    limit: int = MAX_ERRORS,
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
            message += f" (got {short_repr(err.instance)})"
        top = path[0] if path else None
        hint = props.get(top, {}).get("description") if isinstance(top, str) else None
        if not path and err.validator == "type" and props:
            hint = "an object with " + ", ".join(props)
        if isinstance(hint, str):
            message = f"{message}; expected {hint}"
        out.append({"path": _pointer(path), "message": message})
    return out[:limit]


def text_errors(
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
