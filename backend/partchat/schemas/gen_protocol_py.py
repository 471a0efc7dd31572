"""Generates ``partchat/protocol/types.py`` from ``protocol.schema.json``.

The Python twin of ``frontend/scripts/gen-protocol.mjs``: TypedDicts tagged by their
``type`` const, ``NotRequired`` for optional properties, ``Literal`` unions for enums,
unions for ``oneOf``/``anyOf``. Scalar aliases (``SessionId``, ``Seq``, ``TurnId``) are
inlined as ``str``/``int``. One deliberate difference from the schema: ``seq`` is
``NotRequired`` everywhere, because the server builds an event first and the hub gives
it its ``seq`` when it publishes it.

Run by hand after editing the schema (``tests/unit/protocol/test_protocol_types.py`` fails when
the committed file has drifted)::

    python -m partchat.schemas.gen_protocol_py
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

SCHEMA_PATH = Path(__file__).with_name("protocol.schema.json")
OUTPUT_PATH = Path(__file__).parent.parent / "protocol" / "types.py"
SERVER_ASSIGNED = frozenset({"seq"})  # set when published, so never required here
_WIDTH = 100

_HEADER = '''"""GENERATED FILE: do not edit by hand.

Source: backend/partchat/schemas/protocol.schema.json
Regenerate with: python -m partchat.schemas.gen_protocol_py
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict'''

_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


class _Generator:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.defs: dict[str, Any] = schema["$defs"]
        self.schema = schema

    def _is_scalar_alias(self, name: str) -> bool:
        node = self.defs[name]
        return isinstance(node.get("type"), str) and node["type"] in _SCALARS

    def type_of(self, node: dict[str, Any]) -> str:
        if "$ref" in node:
            name = _ref_name(node["$ref"])
            return self.type_of(self.defs[name]) if self._is_scalar_alias(name) else name
        if "const" in node:
            return f"Literal[{json.dumps(node['const'])}]"
        if "enum" in node:
            return _literal(node["enum"])
        for key in ("anyOf", "oneOf"):
            if key in node:
                return _union([self.type_of(n) for n in node[key]])
        kind = node.get("type")
        if isinstance(kind, list):
            return _union([self.type_of({**node, "type": k}) for k in kind])
        if kind == "array":
            return f"list[{self.type_of(node.get('items', {}))}]"
        if kind == "object":
            return "dict[str, Any]"
        return _SCALARS.get(str(kind), "Any")

    def definition(self, name: str, node: dict[str, Any]) -> str:
        if node.get("type") == "object" and "properties" in node:
            return self._typed_dict(name, node)
        return _assignment(name, self.type_of(node), node.get("description"))

    def _typed_dict(self, name: str, node: dict[str, Any]) -> str:
        lines = [f"class {name}(TypedDict):"]
        if node.get("description"):
            lines += [*_docstring(node["description"], "    "), ""]
        required = set(node.get("required", ())) - SERVER_ASSIGNED
        for prop, sub in node["properties"].items():
            kind = self.type_of(sub)
            lines.append(f"    {prop}: {kind if prop in required else f'NotRequired[{kind}]'}")
        return "\n".join(lines)

    def module(self) -> str:
        parts: list[str] = []
        for name, node in self.defs.items():
            if not self._is_scalar_alias(name):
                parts.append(self.definition(name, node))
        parts.append(self.definition(self.schema["title"], self.schema))
        return _HEADER + "\n\n" + "\n\n\n".join(parts) + "\n"


def _literal(values: list[Any]) -> str:
    literal = f"Literal[{', '.join(json.dumps(v) for v in values if v is not None)}]"
    return f"{literal} | None" if None in values else literal


def _union(kinds: list[str]) -> str:
    unique = list(dict.fromkeys(kinds))
    if "None" in unique:  # None last, as the code writes it
        unique = [k for k in unique if k != "None"] + ["None"]
    return " | ".join(unique)


def _assignment(name: str, kind: str, description: str | None) -> str:
    comment = [f"# {line}" for line in textwrap.wrap(description or "", _WIDTH - 2)]
    one_line = f"{name} = {kind}"
    if len(one_line) <= _WIDTH:
        return "\n".join([*comment, one_line])
    if kind.startswith("Literal[") and kind.endswith("]"):
        members = kind[len("Literal[") : -1].split(", ")
        body = [f"    {m}," for m in members]
        return "\n".join([*comment, f"{name} = Literal[", *body, "]"])
    first, *rest = kind.split(" | ")
    body = [f"    {first}", *(f"    | {k}" for k in rest)]
    return "\n".join([*comment, f"{name} = (", *body, ")"])


def _docstring(text: str, indent: str) -> list[str]:
    lines = textwrap.wrap(text, _WIDTH - len(indent) - 3)
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    return [f'{indent}"""{lines[0]}', *(f"{indent}{line}" for line in lines[1:]), f'{indent}"""']


def generate(schema_path: Path = SCHEMA_PATH) -> str:
    """The module's text for the schema at ``schema_path`` (deterministic)."""
    return _Generator(json.loads(schema_path.read_text("utf-8"))).module()


def main() -> None:
    OUTPUT_PATH.write_text(generate(), "utf-8")
    print(f"wrote {OUTPUT_PATH}")


if __name__ == "__main__":
    main()
