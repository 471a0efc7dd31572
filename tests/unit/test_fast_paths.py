"""The fast paths on private APIs: tested versions, pins, the switch and the fallbacks.

``test_installed_versions_are_the_tested_ones`` is the guard on a dependency upgrade: it
fails naming the library, the installed version and the tested one until the fast path
is re-tested (its tests and its decision's A/B) and ``fast_paths.TESTED`` and
``pyproject.toml`` move together.
"""

from __future__ import annotations

import logging
import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_openai import ChatOpenAI

from partchat import fast_paths
from partchat.agent.llm import make_chat_model
from partchat.agent.llm.openai_fast import FastChatOpenAI
from partchat.settings import FAST_PATHS, Settings, SettingsError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    fast_paths.active.cache_clear()
    yield
    fast_paths.active.cache_clear()


def library_minors() -> dict[str, str]:
    """Each library's tested minor version, once (two paths on one library agree)."""
    minors: dict[str, str] = {}
    for path, libraries in fast_paths.TESTED.items():
        for name, minor in libraries.items():
            assert minors.setdefault(name, minor) == minor, f"{path}: {name} tested twice"
    return minors


def test_every_fast_path_names_its_tested_libraries() -> None:
    assert set(fast_paths.TESTED) == set(FAST_PATHS)
    assert all(fast_paths.TESTED[path] for path in FAST_PATHS)


@pytest.mark.parametrize("path", FAST_PATHS)
def test_installed_versions_are_the_tested_ones(path: str) -> None:
    problems = fast_paths.untested(path)  # type: ignore[arg-type]
    assert not problems, (
        f"the {path} fast path runs on private APIs of libraries installed at versions it"
        f" was not tested with: {'; '.join(problems)}. It falls back to the public path at"
        " run time. Re-run its tests and its decision's A/B (docs/performance.md), then"
        " update fast_paths.TESTED and the pins in pyproject.toml together."
    )


def dependency_specifiers() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found: dict[str, str] = {}
    for requirement in project["dependencies"]:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*(.*)", requirement)
        assert match, requirement
        found[match[1].lower()] = match[3].replace(" ", "")
    return found


def test_pyproject_pins_each_library_to_its_tested_minor_range() -> None:
    specifiers = dependency_specifiers()
    for name, minor in library_minors().items():
        major, _, low = minor.partition(".")
        want = f">={minor},<{major}.{int(low) + 1}"
        assert specifiers.get(name) == want, (
            f"pyproject.toml should pin {name}{want} (fast_paths.TESTED); it has"
            f" {name}{specifiers.get(name, ' nothing')}"
        )


def test_constraints_pin_the_tested_minor_versions() -> None:
    pins = dict(
        line.split("==", 1)
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    )
    for name, minor in library_minors().items():
        assert fast_paths._same_minor(pins[name], minor), (name, pins[name], minor)


def test_an_untested_version_turns_its_path_off_with_one_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real = fast_paths.metadata.version
    monkeypatch.setattr(
        fast_paths.metadata, "version", lambda name: "9.9.1" if name == "aiohttp" else real(name)
    )
    with caplog.at_level(logging.WARNING, logger="partchat.fast_paths"):
        assert fast_paths.active(frozenset(FAST_PATHS)) == {"ws", "workers"}
        fast_paths.active(frozenset(FAST_PATHS))  # cached: no second warning
    (record,) = caplog.records
    assert "fast path openai off" in record.getMessage()
    assert "aiohttp 9.9.1 (tested 3.14.x)" in record.getMessage()


def test_only_the_chosen_paths_run() -> None:
    assert fast_paths.active(frozenset()) == frozenset()
    assert fast_paths.active(frozenset({"ws"})) == {"ws"}


# -- PARTCHAT_FAST_PATHS --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "chosen"),
    [
        ("", set(FAST_PATHS)),
        ("on", set(FAST_PATHS)),
        ("ON", set(FAST_PATHS)),
        ("off", set()),
        ("openai", {"openai"}),
        ("ws, workers", {"ws", "workers"}),
    ],
)
def test_the_setting(raw: str, chosen: set[str]) -> None:
    assert Settings.from_env({"PARTCHAT_FAST_PATHS": raw}).fast_paths == chosen


def test_fast_paths_are_on_by_default() -> None:
    assert Settings().fast_paths == set(FAST_PATHS)
    assert Settings.from_env({}).fast_paths == set(FAST_PATHS)


@pytest.mark.parametrize("raw", ["yes", "openai,gpu", "ws;workers"])
def test_a_bad_value_names_the_choices(raw: str) -> None:
    with pytest.raises(SettingsError, match=r"PARTCHAT_FAST_PATHS=.*on, off.*openai, ws, workers"):
        Settings.from_env({"PARTCHAT_FAST_PATHS": raw})


# -- the openai fallback: stock ChatOpenAI, same options -----------------------------------
def openai_settings(**overrides: object) -> Settings:
    return Settings(
        llm="openai",
        openai_api_key="sk-test",
        openai_base_url="http://127.0.0.1:9/v1",
        model="gpt-4.1-mini",
        llm_timeout_s=12.5,
        llm_max_retries=4,
    ).with_overrides(**overrides)


def options(model: object) -> tuple[object, ...]:
    assert isinstance(model, ChatOpenAI)
    key = model.openai_api_key
    return (
        model.model_name,
        model.openai_api_base,
        model.request_timeout,
        model.max_retries,
        model.streaming,
        model.stream_usage,
        key.get_secret_value() if key is not None and not callable(key) else key,
    )


def test_the_openai_fast_path_is_the_default() -> None:
    assert type(make_chat_model(openai_settings())) is FastChatOpenAI


def test_openai_off_builds_stock_chat_openai_with_the_same_options() -> None:
    stock = make_chat_model(openai_settings(fast_paths=frozenset({"ws", "workers"})))
    assert type(stock) is ChatOpenAI
    assert options(stock) == options(make_chat_model(openai_settings()))


def test_an_untested_langchain_builds_stock_chat_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    real = fast_paths.metadata.version
    monkeypatch.setattr(
        fast_paths.metadata,
        "version",
        lambda name: "1.8.0" if name == "langchain-openai" else real(name),
    )
    assert type(make_chat_model(openai_settings())) is ChatOpenAI


def test_a_fast_module_that_no_longer_imports_builds_stock_chat_openai(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "partchat.agent.llm.openai_fast", None)  # import fails
    with caplog.at_level(logging.WARNING):
        model = make_chat_model(openai_settings())
    assert type(model) is ChatOpenAI
    assert "fast path openai off" in caplog.text
