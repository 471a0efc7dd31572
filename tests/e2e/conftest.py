"""Browser-test fixtures: one real server per module, fresh browser contexts per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tests.support.servers import ServerProcess, prepare_data_dir

# Per-word delay of the offline model: slow enough to watch an answer stream, fast enough
# to keep each test short.
STREAM_DELAY_MS = "30"

ServerFactory = Callable[..., ServerProcess]
PageFactory = Callable[..., Page]


@pytest.fixture(scope="module")
def module_server_factory(
    tmp_path_factory: pytest.TempPathFactory, catalog_db: Path
) -> Iterator[ServerFactory]:
    """Starts servers that live as long as the test module (stopped at its end)."""
    started: list[ServerProcess] = []

    def make(name: str = "srv", **env: str) -> ServerProcess:
        data = prepare_data_dir(tmp_path_factory.mktemp(name), catalog_db)
        server = ServerProcess(
            data_dir=data, env={"PARTCHAT_OFFLINE_DELAY_MS": STREAM_DELAY_MS, **env}
        )
        started.append(server)
        return server.start(timeout=30)

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def new_page(browser: Browser) -> Iterator[PageFactory]:
    """Pages in fresh browser contexts (own localStorage: a new chat session each)."""
    contexts: list[BrowserContext] = []

    def make(width: int = 1100, height: int = 800, init_script: str | None = None) -> Page:
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        if init_script:
            page.add_init_script(init_script)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.pc_errors = errors  # type: ignore[attr-defined]
        return page

    yield make
    for context in contexts:
        context.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under tests/e2e/ is an ``e2e`` test (``-m "not e2e"`` leaves it out)."""
    here = Path(__file__).resolve().parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.e2e)
