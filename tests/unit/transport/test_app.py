"""The app factory's process-level choices."""

from __future__ import annotations

import gc
import shutil
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from partchat.ops.collector import NEVER
from partchat.settings import Settings
from partchat.transport.app import create_app


@pytest.fixture
def settings(tmp_path: Path, catalog_db: Path) -> Settings:
    shutil.copy2(catalog_db, tmp_path / "catalog.db")
    return Settings.from_env({"PARTCHAT_DATA_DIR": str(tmp_path), "PARTCHAT_LLM": "offline"})


def test_the_server_freezes_its_startup_heap(settings: Settings, gc_state: None) -> None:
    gc.unfreeze()
    sys.setswitchinterval(0.005)
    settings = settings.with_overrides(gil_switch_ms=0.25)
    with TestClient(create_app(settings, own_process=True)) as client:
        assert sys.getswitchinterval() == pytest.approx(0.00025)
        assert client.get("/health").status_code == 200
        assert gc.get_freeze_count() > 0  # the catalog, graph and modules: never walked again
        assert gc.get_threshold()[2] == NEVER  # full collections: partchat.ops.collector's
        models = client.app.state.services.catalog._models  # type: ignore[attr-defined]
        assert models._del_index is not None  # built before the freeze, not on first use


def test_apps_built_by_tests_leave_the_collector_alone(settings: Settings, gc_state: None) -> None:
    gc.unfreeze()
    threshold = gc.get_threshold()
    interval = sys.getswitchinterval()
    with TestClient(create_app(settings)) as client:
        assert client.get("/health").status_code == 200
        assert gc.get_freeze_count() == 0
        assert gc.get_threshold() == threshold
        assert sys.getswitchinterval() == interval


def test_ready_fails_while_the_store_does_not_answer(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from partchat.store import StorageUnavailable

    with TestClient(create_app(settings)) as client:
        assert client.get("/ready").json() == {"status": "ready"}
        store = client.app.state.services.store  # type: ignore[attr-defined]

        async def down() -> None:
            raise StorageUnavailable("storage is unavailable")

        monkeypatch.setattr(store, "ping", down)
        response = client.get("/ready")
        assert response.status_code == 503
        assert response.json() == {"status": "unavailable", "failing": "storage"}
        assert client.get("/health").status_code == 200  # alive, not ready


def test_a_server_with_redis_configured_refuses_to_start_without_it(
    settings: Settings,
) -> None:
    from tests.support.servers import free_port

    settings = settings.with_overrides(redis_url=f"redis://127.0.0.1:{free_port()}/0")
    with (
        pytest.raises(RuntimeError, match="Redis does not answer"),
        TestClient(create_app(settings)),
    ):
        pass


@pytest.fixture
def built_static(tmp_path: Path) -> Path:
    """A frontend build with the chat, the demo and the operator page."""
    static = tmp_path / "static"
    for page in ("index.html", "demo/index.html", "admin/index.html"):
        (static / page).parent.mkdir(parents=True, exist_ok=True)
        (static / page).write_text(f"<!doctype html><title>{page}</title>", encoding="utf-8")
    return static


def test_the_operator_page_is_served_only_when_the_admin_api_is_on(
    settings: Settings, built_static: Path
) -> None:
    on = settings.with_overrides(static_dir=built_static, admin_token="x" * 24)
    with TestClient(create_app(on)) as client:
        page = client.get("/admin/")
        assert page.status_code == 200 and "admin/index.html" in page.text
        assert client.get("/admin/index.html").status_code == 200
        redirect = client.get("/admin", follow_redirects=False)
        assert redirect.status_code == 308 and redirect.headers["location"] == "/admin/"
        assert "script-src 'self'" in page.headers["content-security-policy"]

    off = settings.with_overrides(static_dir=built_static, admin_token=None)
    with TestClient(create_app(off)) as client:
        for path in ("/admin", "/admin/", "/admin/index.html", "/admin/anything"):
            assert client.get(path, follow_redirects=False).status_code == 404, path
        assert client.get("/").status_code == 200  # the rest of the frontend is unchanged
        assert client.get("/demo/").status_code == 200
