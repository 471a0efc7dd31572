"""Invalid input, unknown tools, failing and hanging catalogs, broken outputs: all results."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from referencing import Registry

from partchat.toolbox.contracts import Contract
from partchat.toolbox.dispatch import Toolbox
from partchat.toolbox.impls import IMPLEMENTATIONS, ToolImpl
from partchat.toolbox.validation import normalise
from tests.unit.toolbox.conftest import assert_result_shape

TYPICAL: dict[str, dict[str, Any]] = {
    "search_parts": {"query": "door shelf bin"},
    "check_compatibility": {"partNumber": "PS3406971", "model": "WDT780SAEM1"},
    "diagnose_repair": {"symptoms": ["not draining"], "appliance": "dishwasher"},
    "get_installation_instructions": {"partNumber": "PS3406971"},
    "get_part_details": {"partNumber": "PS3406971"},
    "extract_information": {"text": "My WDT780SAEM1 dishwasher is not draining"},
}


class NoCatalog:
    """Any use of the catalog is a test failure: invalid input never gets this far."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"catalog.{name} used for invalid input")


@pytest.fixture
def checker(contracts: tuple[dict[str, Contract], Registry]) -> Toolbox:
    return Toolbox(NoCatalog(), *contracts)  # type: ignore[arg-type]


def _invalid(result: dict[str, Any]) -> list[dict[str, str]]:
    assert result["ok"] is False, result
    assert result["error"]["code"] == "invalid_input", result
    assert result["error"]["message"]
    return result["error"]["errors"]


# (tool, args, expected path, words the message must contain)
CASES: list[tuple[str, Any, str, list[str]]] = [
    (
        "get_part_details",
        {},
        "/partNumber",
        ["partNumber is required", "the catalog's part number"],
    ),
    (
        "check_compatibility",
        {"partNumber": "PS3406971"},
        "/model",
        ["model is required", "WDT780SAEM1"],
    ),
    ("diagnose_repair", {"appliance": "dishwasher"}, "/symptoms", ["symptoms is required"]),
    ("extract_information", {}, "/text", ["text is required", "4,000 characters"]),
    ("search_parts", {"query": 3}, "/query", ["must be a string, not a number", "the words"]),
    (
        "get_part_details",
        {"partNumber": 3406971},
        "/partNumber",
        ["must be a string, not a number"],
    ),
    (
        "search_parts",
        {"query": "pump", "limit": "5"},
        "/limit",
        ["must be an integer, not a string", "1 to 20"],
    ),
    (
        "diagnose_repair",
        {"symptoms": "not draining"},
        "/symptoms",
        ["must be a list, not a string"],
    ),
    (
        "get_part_details",
        {"partNumber": "PS3406971", "colour": "red"},
        "/colour",
        ["colour is not an accepted property", "partNumber, model"],
    ),
    ("search_parts", {"query": "x" * 10_000}, "/query", ["at most 200 characters", "10,000"]),
    ("extract_information", {"text": "x" * 10_000}, "/text", ["at most 4,000 characters"]),
    (
        "check_compatibility",
        {"partNumber": "P" * 10_000, "model": "WDT780SAEM1"},
        "/partNumber",
        ["at most 30 characters"],
    ),
    (
        "diagnose_repair",
        {"symptoms": ["leaking"] * 1000},
        "/symptoms",
        ["at most 10 items", "1,000"],
    ),
    ("diagnose_repair", {"symptoms": []}, "/symptoms", ["at least 1 item"]),
    (
        "diagnose_repair",
        {"symptoms": ["leaking", 7]},
        "/symptoms/1",
        ["symptoms[1] must be a string"],
    ),
    ("diagnose_repair", {"symptoms": ["leaking", "  "]}, "/symptoms/1", ["must not be empty"]),
    ("get_part_details", {"partNumber": None}, "/partNumber", ["must be a string, not null"]),
    ("search_parts", {"query": "pump", "model": None}, "/model", ["must be a string, not null"]),
    (
        "search_parts",
        {"query": "pump", "appliance": "oven"},
        "/appliance",
        ['one of: "refrigerator", "dishwasher"'],
    ),
    (
        "get_part_details",
        {"partNumber": "PS 34#06"},
        "/partNumber",
        ["not in the expected form", "the catalog's part number"],
    ),
    (
        "check_compatibility",
        {"partNumber": "PS3406971", "model": "a"},
        "/model",
        ["at least 3 characters"],
    ),
    ("search_parts", {"query": "pump", "limit": 0}, "/limit", ["at least 1"]),
    ("search_parts", {"query": "pump", "limit": 10**5000}, "/limit", ["at most 20"]),
    (
        "search_parts",
        {"query": "pump", "limit": True},
        "/limit",
        ["must be an integer, not true/false"],
    ),
    ("search_parts", {"query": "pump\ud800"}, "/query", ["not valid Unicode text"]),
    ("get_part_details", None, "", ["must be a JSON object, not null", "partNumber"]),
    ("get_part_details", "PS3406971", "", ["must be a JSON object, not a string"]),
    ("get_part_details", ["PS3406971"], "", ["must be a JSON object, not a list"]),
    ("search_parts", 42, "", ["must be a JSON object, not a number"]),
    ("get_part_details", {"partNumber": "PS3406971", "a/b~c": 1}, "/a~1b~0c", ["not an accepted"]),
]


@pytest.mark.parametrize(("tool", "args", "path", "words"), CASES)
async def test_invalid_input_names_the_path_and_the_expected_form(
    checker: Toolbox, tool: str, args: Any, path: str, words: list[str]
) -> None:
    result = await checker.call(tool, args)
    errors = _invalid(result)
    assert_result_shape(checker, tool, result)
    first = next((e for e in errors if e["path"] == path), None)
    assert first is not None, errors
    for word in words:
        assert word in first["message"], (word, first)
    # Long values are described, never echoed back to the model.
    assert all(len(e["message"]) < 400 for e in errors), errors


async def test_several_problems_are_all_reported(checker: Toolbox) -> None:
    errors = _invalid(
        await checker.call("check_compatibility", {"partNumber": 5, "extra": 1, "other": 2})
    )
    assert {e["path"] for e in errors} == {"/partNumber", "/model", "/extra", "/other"}


@pytest.mark.parametrize("tool", sorted(IMPLEMENTATIONS))
async def test_every_tool_rejects_the_classics(checker: Toolbox, tool: str) -> None:
    required = checker.contracts[tool].input_schema["required"][0]
    for args, path in [
        (None, ""),
        ([], ""),
        ("text", ""),
        ({}, f"/{required}"),
        ({**TYPICAL[tool], required: None}, f"/{required}"),
        ({**TYPICAL[tool], "unexpected": True}, "/unexpected"),
        ({**TYPICAL[tool], required: 12}, f"/{required}"),
    ]:
        errors = _invalid(await checker.call(tool, args))
        assert path in {e["path"] for e in errors}, (args, errors)


async def test_unknown_tool(checker: Toolbox) -> None:
    result = await checker.call("order_pizza", {})
    assert result["ok"] is False and result["error"]["code"] == "unknown_tool"
    assert "search_parts" in result["error"]["message"]
    assert_result_shape(checker, "search_parts", result)
    weird = await checker.call(["not", "a", "name"], {})  # type: ignore[arg-type]
    assert weird["error"]["code"] == "unknown_tool"


# ------------------------------------------------------------------ normalisation


def test_normalisation_is_exactly_what_the_docstring_says() -> None:
    assert normalise({"partNumber": " ps11752778 "}) == {"partNumber": "PS11752778"}
    assert normalise({"model": "wdt780saem1"}) == {"model": "WDT780SAEM1"}
    assert normalise({"appliance": "Dishwasher"}) == {"appliance": "dishwasher"}
    assert normalise({"symptoms": [" Not Draining ", 3]}) == {"symptoms": ["Not Draining", 3]}
    assert normalise({"query": "  Ice Maker "}) == {"query": "Ice Maker"}  # case kept
    assert normalise({"limit": "5"}) == {"limit": "5"}  # no coercion
    assert normalise({"partNumber": 11752778}) == {"partNumber": 11752778}
    assert normalise(None) is None
    assert normalise(["x"]) == ["x"]


async def test_normalised_input_is_valid(checker: Toolbox) -> None:
    args, errors = checker.validate_input("get_part_details", {"partNumber": " ps11752778 "})
    assert errors == [] and args == {"partNumber": "PS11752778"}
    args, errors = checker.validate_input(
        "diagnose_repair",
        {"symptoms": ["leaking"], "appliance": "Dishwasher", "model": "wdt780saem1"},
    )
    assert errors == []
    assert args == {"symptoms": ["leaking"], "appliance": "dishwasher", "model": "WDT780SAEM1"}
    # Everything else strict.
    for tool, args in [
        ("search_parts", {"query": "pump", "limit": "5"}),
        ("search_parts", {"query": "pump", "appliance": "fridge"}),
        ("get_part_details", {"partNumber": "-PS1"}),
        ("get_part_details", {"partNumber": "ps 11752778"}),
        ("get_part_details", {"PartNumber": "PS11752778"}),
    ]:
        assert checker.validate_input(tool, args)[1], args


async def test_the_fast_check_agrees_with_jsonschema(checker: Toolbox) -> None:
    for tool, args in TYPICAL.items():
        assert checker._fast[tool] is not None, "every contract gets the fast path"
        assert checker._fast[tool](args)
        assert checker._input[tool].is_valid(args)
    # Integral floats are integers to JSON Schema: the fast check passes them on.
    assert not checker._fast["search_parts"]({"query": "x", "limit": 5.0})
    assert checker.validate_input("search_parts", {"query": "x", "limit": 5.0})[1] == []


# ------------------------------------------------------------------ failing catalogs


class RaisingCatalog:
    def __getattr__(self, name: str) -> Any:
        async def fail(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError(f"database is locked ({name})")

        return fail


class HangingCatalog:
    def __getattr__(self, name: str) -> Any:
        async def hang(*args: Any, **kwargs: Any) -> Any:
            await asyncio.Event().wait()

        return hang


@pytest.mark.parametrize("tool", sorted(IMPLEMENTATIONS))
async def test_a_catalog_that_raises_gives_an_internal_error(
    contracts: tuple[dict[str, Contract], Registry], tool: str, caplog: pytest.LogCaptureFixture
) -> None:
    box = Toolbox(RaisingCatalog(), *contracts)  # type: ignore[arg-type]
    with caplog.at_level(logging.ERROR, logger="partchat.toolbox.dispatch"):
        result = await box.call(tool, TYPICAL[tool])
    assert result["ok"] is False and result["error"]["code"] == "internal", result
    assert "database is locked" not in result["error"]["message"]  # no internals to the model
    assert_result_shape(box, tool, result)
    assert any("database is locked" in r.exc_text for r in caplog.records if r.exc_text)


@pytest.mark.parametrize("tool", sorted(IMPLEMENTATIONS))
async def test_a_catalog_that_hangs_gives_a_timeout(
    contracts: tuple[dict[str, Contract], Registry], tool: str
) -> None:
    box = Toolbox(HangingCatalog(), *contracts, timeout_s=0.05)  # type: ignore[arg-type]
    loop = asyncio.get_running_loop()
    started = loop.time()
    result = await box.call(tool, TYPICAL[tool])
    assert loop.time() - started < 2
    assert result["ok"] is False and result["error"]["code"] == "timeout", result
    assert "0.05 s" in result["error"]["message"]
    assert_result_shape(box, tool, result)


# ------------------------------------------------------------------ output validation


def _fake(output: Any) -> dict[str, ToolImpl]:
    async def impl(catalog: Any, args: dict[str, Any]) -> Any:
        return output

    return {**IMPLEMENTATIONS, "get_part_details": impl}


BAD_OUTPUT = {
    "ok": True,
    "part": {"partNumber": "PS3406971", "price": 33.48},
    "replaces": [],
    "symptoms": "none",
    "appliances": ["oven"],
}


async def test_output_validation_logs_a_breaking_output(
    contracts: tuple[dict[str, Contract], Registry], caplog: pytest.LogCaptureFixture
) -> None:
    box = Toolbox(NoCatalog(), *contracts, _fake(BAD_OUTPUT), validate_output=True)  # type: ignore[arg-type]
    with caplog.at_level(logging.ERROR, logger="partchat.toolbox.dispatch"):
        result = await box.call("get_part_details", {"partNumber": "PS3406971"})
    assert result == BAD_OUTPUT  # logged, not hidden: the turn goes on
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1
    text = errors[0].getMessage()
    assert "get_part_details output breaks its contract" in text
    for path in ("/part/name", "/part/price", "/symptoms", "/appliances/0"):
        assert f"'path': '{path}'" in text, text


async def test_output_validation_is_off_by_default(
    contracts: tuple[dict[str, Contract], Registry], caplog: pytest.LogCaptureFixture
) -> None:
    box = Toolbox(NoCatalog(), *contracts, _fake(BAD_OUTPUT))  # type: ignore[arg-type]
    with caplog.at_level(logging.DEBUG, logger="partchat.toolbox.dispatch"):
        await box.call("get_part_details", {"partNumber": "PS3406971"})
    assert not caplog.records


async def test_the_app_turns_output_validation_on_at_debug() -> None:
    import inspect

    from partchat.transport import app

    assert 'validate_output=settings.log_level == "debug"' in inspect.getsource(app)


@pytest.mark.parametrize("output", [None, [], "ok", {"ok": False}, {"part": {}}])
async def test_an_implementation_returning_a_non_result_is_internal(
    contracts: tuple[dict[str, Contract], Registry], output: Any
) -> None:
    box = Toolbox(NoCatalog(), *contracts, _fake(output))  # type: ignore[arg-type]
    result = await box.call("get_part_details", {"partNumber": "PS3406971"})
    assert result["ok"] is False and result["error"]["code"] == "internal"


async def test_a_valid_fake_output_logs_nothing(
    toolbox: Toolbox,
    contracts: tuple[dict[str, Contract], Registry],
    caplog: pytest.LogCaptureFixture,
) -> None:
    good = await toolbox.call("get_part_details", {"partNumber": "PS3406971"})
    box = Toolbox(NoCatalog(), *contracts, _fake(good), validate_output=True)  # type: ignore[arg-type]
    with caplog.at_level(logging.ERROR, logger="partchat.toolbox.dispatch"):
        assert await box.call("get_part_details", {"partNumber": "PS3406971"}) == good
    assert not caplog.records
