"""Shared fixtures: a built catalog once per run, real server processes, a browser."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from partchat.nlu.model import Understanding
from tests.support.servers import ServerProcess, prepare_data_dir

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


@pytest.fixture(scope="session")
def catalog_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real catalog, built once per test run from the shipped data."""
    from partchat.catalog import build_catalog

    path = tmp_path_factory.mktemp("catalog") / "catalog.db"
    build_catalog(None, path)
    return path


@pytest.fixture(scope="session")
def understanding(catalog_db: Path) -> Understanding:
    """The understanding model trained into the test run's catalog."""
    from partchat.nlu import store

    return store.load(catalog_db)


@pytest.fixture
def server_factory(tmp_path: Path, catalog_db: Path) -> Iterator[callable]:  # type: ignore[valid-type]
    started: list[ServerProcess] = []

    def make(name: str = "srv", **env: str) -> ServerProcess:
        data = prepare_data_dir(tmp_path / name, catalog_db)
        server = ServerProcess(data_dir=data, env=env)
        started.append(server)
        return server.start()

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def live_server(server_factory) -> ServerProcess:  # type: ignore[no-untyped-def]
    return server_factory()


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    executable = os.environ.get("PARTCHAT_CHROMIUM", "/usr/bin/chromium")
    if not Path(executable).exists():
        pytest.fail(f"Chromium not found at {executable}: run `make test` (it installs it)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser):  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    p = context.new_page()
    yield p
    context.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Load tests after the others (minutes of a saturated server: quick failures first),
    browser tests last: sync Playwright keeps an event loop running in the main thread
    while its session-scoped browser is open, which asyncio tests cannot share."""

    def rank(item: pytest.Item) -> int:
        parts = item.nodeid.split("/")
        return 2 if "e2e" in parts else 1 if "load" in parts else 0

    items.sort(key=rank)
