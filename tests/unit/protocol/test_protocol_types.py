"""``protocol/types.py`` is what the generator makes of the schema, byte for byte."""

from __future__ import annotations

from partchat.schemas.gen_protocol_py import OUTPUT_PATH, generate


def test_committed_protocol_types_match_the_schema() -> None:
    committed = OUTPUT_PATH.read_text("utf-8")
    assert generate() == committed, (
        "backend/partchat/protocol/types.py has drifted from protocol.schema.json; "
        "regenerate it: python -m partchat.schemas.gen_protocol_py"
    )
