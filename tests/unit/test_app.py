"""The app factory's process-level choices."""

from __future__ import annotations

import gc
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from partchat.app import _collect_if_idle, create_app
from partchat.settings import Settings


@pytest.fixture
def settings(tmp_path: Path, catalog_db: Path) -> Settings:
    shutil.copy2(catalog_db, tmp_path / "catalog.db")
    return Settings.from_env({"PARTCHAT_DATA_DIR": str(tmp_path), "PARTCHAT_LLM": "offline"})


@pytest.fixture
def gc_state() -> Iterator[None]:
    """Put the collector back as it was (a frozen heap would outlive the test)."""
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_the_server_freezes_its_startup_heap(settings: Settings, gc_state: None) -> None:
    gc.unfreeze()
    with TestClient(create_app(settings, freeze_heap=True)) as client:
        assert client.get("/health").status_code == 200
        assert gc.get_freeze_count() > 0  # the catalog, graph and modules: never walked again


def test_apps_built_by_tests_leave_the_collector_alone(settings: Settings, gc_state: None) -> None:
    gc.unfreeze()
    threshold = gc.get_threshold()
    with TestClient(create_app(settings)) as client:
        assert client.get("/health").status_code == 200
        assert gc.get_freeze_count() == 0
        assert gc.get_threshold() == threshold


class _Engine:
    def __init__(self, running: int) -> None:
        self.running = running

    def running_turns(self) -> list[object]:
        return [object()] * self.running


class _Services:
    def __init__(self, running: int) -> None:
        self.engine = _Engine(running)


def _garbage() -> None:
    """A reference cycle that only a collection frees, aged into the oldest generation."""
    for _ in range(3):
        cycle: list[object] = []
        cycle.append(cycle)
        del cycle
        gc.collect(1)


def test_idle_server_collects_its_garbage_and_a_busy_one_waits() -> None:
    _garbage()
    assert gc.get_count()[2] > 0
    _collect_if_idle(_Services(running=1))  # type: ignore[arg-type]
    assert gc.get_count()[2] > 0  # a turn is running: no full collection now
    _collect_if_idle(_Services(running=0))  # type: ignore[arg-type]
    assert gc.get_count()[2] == 0
