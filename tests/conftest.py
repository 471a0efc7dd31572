"""Shared fixtures: a built catalog once per run, real server processes, throwaway
PostgreSQL and Redis servers, a browser."""

from __future__ import annotations

import atexit
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from partchat.nlu.model import Understanding
from tests.support.pg import PostgresServer
from tests.support.redis_server import RedisServer
from tests.support.servers import ServerProcess, prepare_data_dir

# the hand-made NLU corpus and its catalog (nlu_root, nlu_db, learnt)
pytest_plugins = ["tests.support.nlu_corpus"]

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


@pytest.fixture(scope="session")
def catalog_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real catalog, built once per test run from the shipped data."""
    from partchat.catalog import build_catalog
    from partchat.nlu.store import CATALOG_EXTENSION

    path = tmp_path_factory.mktemp("catalog") / "catalog.db"
    build_catalog(None, path, extension=CATALOG_EXTENSION)
    return path


@pytest.fixture(scope="session")
def understanding(catalog_db: Path) -> Understanding:
    """The understanding model trained into the test run's catalog."""
    from partchat.nlu import store

    return store.load(catalog_db)


EXAMPLE_CATALOG = Path(__file__).resolve().parents[1] / "examples" / "catalog"


@pytest.fixture(scope="session")
def imported_catalog_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store's own catalog: ``examples/catalog/`` imported once per test run."""
    from partchat.catalog.store_import import import_catalog
    from partchat.nlu.store import CATALOG_EXTENSION

    path = tmp_path_factory.mktemp("imported") / "catalog.db"
    import_catalog(EXAMPLE_CATALOG, path, extension=CATALOG_EXTENSION)
    return path


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


def _started(server: PostgresServer | RedisServer, what: str) -> None:
    # atexit as well: a run interrupted outside the fixtures' finally leaves nothing behind.
    atexit.register(server.close)
    try:
        server.start()
    except FileNotFoundError as exc:
        server.close()
        pytest.fail(f"{what}: {exc}")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One throwaway PostgreSQL cluster for the run; ``.dsn`` names its database."""
    try:
        server = PostgresServer()
    except FileNotFoundError as exc:
        pytest.fail(f"PostgreSQL: {exc}")
    _started(server, "PostgreSQL")
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def postgres_dsn(postgres_server: PostgresServer) -> str:
    return postgres_server.dsn


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One throwaway redis-server for the run (tests use their own keys)."""
    try:
        server = RedisServer()
    except FileNotFoundError as exc:
        pytest.fail(f"Redis: {exc}")
    _started(server, "Redis")
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def redis_url(redis_server: RedisServer) -> str:
    return redis_server.url


@pytest.fixture
def redis_factory() -> Iterator[Callable[[], RedisServer]]:
    """Private redis-servers for tests that restart or pause them."""
    started: list[RedisServer] = []

    def make() -> RedisServer:
        server = RedisServer()
        started.append(server)
        _started(server, "Redis")
        return server

    try:
        yield make
    finally:
        for server in started:
            server.close()


@pytest.fixture
def postgres_factory() -> Iterator[Callable[[], PostgresServer]]:
    """Private PostgreSQL clusters for tests that stop or restart them."""
    started: list[PostgresServer] = []

    def make() -> PostgresServer:
        server = PostgresServer()
        started.append(server)
        _started(server, "PostgreSQL")
        return server

    try:
        yield make
    finally:
        for server in started:
            server.close()


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
