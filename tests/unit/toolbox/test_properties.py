"""Property-based: arbitrary JSON into every tool never raises, and every result has the
documented shape (ok:true results also match the output contract)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from partchat.toolbox.impls import IMPLEMENTATIONS
from tests.unit.toolbox.conftest import LoopToolbox, assert_result_shape

TOOLS = sorted(IMPLEMENTATIONS)
SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)

HOSTILE = [
    "",
    " ",
    '"',
    "'",
    '"pump"',
    "NEAR(",
    "NEAR(a b",
    "a NEAR b",
    "*",
    "pump*",
    "-",
    "- drain",
    "drain -pump",
    "^pump",
    "AND",
    "OR NOT",
    "(",
    ")",
    "name:pump",
    "{name}:x",
    "\x00",
    "pump\x00pump",
    "\ud800",
    "a\udfffb",
    "😀🧊",
    "🧊 ice maker 🧊",
    "%",
    "_",
    "\\",
    "'; DROP TABLE parts; --",
    "1 OR 1=1",
    "x" * 10_000,
    "drain " * 2_000,
    "ñandú ümlaut",
    "ＷＤＴ７８０",
    "\u202e",
    "\t\n\r",
    "PS3406971",
    "ps3406971",
    "W10195416",
    "WDT780SAEM1",
    "wdt780saem1",
    "not draining",
    "ice maker not working",
]


def _nest(depth: int) -> Any:
    value: Any = "deep"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


texts = st.one_of(
    st.text(max_size=50),
    st.text(st.characters(categories=["Cs", "Cc", "So", "Lu", "Nd"]), max_size=20),
    st.sampled_from(HOSTILE),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**63),
    # More than 4,300 digits: repr() raises for these (jsonschema's messages use it).
    st.integers(min_value=4_301, max_value=6_000).map(lambda n: 10**n),
    st.integers(min_value=4_301, max_value=6_000).map(lambda n: -(10**n)),
    st.floats(),
    texts,
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=4),
    max_leaves=12,
) | st.integers(min_value=50, max_value=5_000).map(_nest)


REAL_NUMBERS = ["PS3406971", "ps11752778", "W10195416", "WDT780SAEM1", "WRS325SDHZ", "PS000000001"]


def _shaped(sub: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of the form the contract asks for (mostly valid; hostile where allowed)."""
    if "enum" in sub:
        return st.sampled_from([*sub["enum"], *(e.title() for e in sub["enum"])])
    if sub.get("type") == "integer":
        return st.integers(sub.get("minimum", -5), sub.get("maximum", 50))
    if sub.get("type") == "array":
        return st.lists(
            _shaped(sub["items"]), min_size=sub.get("minItems", 0), max_size=sub.get("maxItems", 5)
        )
    lo, hi = sub.get("minLength", 0), sub.get("maxLength", 100)
    if "pattern" in sub:
        formed = st.from_regex(sub["pattern"], fullmatch=True).filter(lambda t: lo <= len(t) <= hi)
        return st.one_of(formed, st.sampled_from(REAL_NUMBERS))
    valid_hostile = [t for t in HOSTILE if lo <= len(t.strip()) <= hi]
    return st.one_of(
        st.text(min_size=max(lo, 1), max_size=min(hi, 60)), st.sampled_from(valid_hostile)
    )


def args_for(tool: str) -> st.SearchStrategy[Any]:
    """Arbitrary JSON, objects with the tool's own keys, and contract-shaped arguments."""
    from partchat.toolbox.contracts import load_contracts

    schema = load_contracts()[0][tool].input_schema
    props = schema["properties"]
    field_values = st.one_of(
        json_values,
        texts,
        st.lists(texts, max_size=12),
        st.just(["leak"] * 1000),
        st.integers(min_value=-3, max_value=30),
        st.sampled_from(["refrigerator", "dishwasher", "Dishwasher", " PS3406971 "]),
    )
    own_keys = st.dictionaries(
        st.sampled_from([*props, "extra", ""]), field_values, max_size=len(props) + 1
    )
    shaped = st.fixed_dictionaries(
        {k: _shaped(props[k]) for k in schema["required"]},
        optional={k: _shaped(v) for k, v in props.items() if k not in schema["required"]},
    )
    # Half the examples are contract-shaped, so they reach the implementation and catalog.
    return st.one_of(json_values, own_keys, shaped, shaped)


@pytest.mark.parametrize("tool", TOOLS)
def test_arbitrary_json_never_raises(loop_toolbox: LoopToolbox, tool: str) -> None:
    box = loop_toolbox.toolbox

    @SETTINGS
    @given(args=args_for(tool))
    def run(args: Any) -> None:
        result = loop_toolbox.call(tool, args)
        assert_result_shape(box, tool, result)
        if not result["ok"]:
            assert result["error"]["code"] in ("invalid_input", "unknown_part"), result
        # The fast pre-check only ever says "valid" when jsonschema agrees.
        normalised = box.validate_input(tool, args)[0]
        fast = box._fast[tool]
        if fast is not None and fast(normalised):
            assert box._input[tool].is_valid(normalised)

    run()


@pytest.mark.parametrize("tool", TOOLS)
def test_hostile_strings_give_results_or_error_results(
    loop_toolbox: LoopToolbox, tool: str
) -> None:
    box = loop_toolbox.toolbox
    props = box.contracts[tool].input_schema["properties"]
    for text in HOSTILE:
        for key in props:
            value: Any = [text] if props[key].get("type") == "array" else text
            base = {
                "query": "pump",
                "partNumber": "PS3406971",
                "symptoms": ["leaking"],
                "text": "hello",
                "model": "WDT780SAEM1",
            }
            args = {k: base[k] for k in box.contracts[tool].input_schema["required"]}
            args[key] = value
            result = loop_toolbox.call(tool, args)
            assert_result_shape(box, tool, result)


def test_hostile_search_queries(loop_toolbox: LoopToolbox) -> None:
    box = loop_toolbox.toolbox
    for text in HOSTILE:
        result = loop_toolbox.call("search_parts", {"query": text})
        assert_result_shape(box, "search_parts", result)
        if result["ok"]:
            assert isinstance(result["parts"], list)
        else:  # only what the contract forbids: empty, too long, not Unicode text
            assert result["error"]["code"] == "invalid_input"
            assert result["error"]["errors"][0]["path"] == "/query"
            assert (
                not text.strip() or len(text) > 200 or any("\ud800" <= c <= "\udfff" for c in text)
            )


def test_unknown_tool_names_never_raise(loop_toolbox: LoopToolbox) -> None:
    @SETTINGS
    @given(name=texts)
    def run(name: str) -> None:
        result = loop_toolbox.call(name, {})
        assert_result_shape(loop_toolbox.toolbox, "search_parts", result)
        if name not in IMPLEMENTATIONS:
            assert result["error"]["code"] == "unknown_tool"

    run()
