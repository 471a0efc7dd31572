"""The app renders in a real headless Chromium against the real server."""

from __future__ import annotations

import httpx
import pytest

pytestmark = pytest.mark.e2e


def test_app_renders_and_health_answers(live_server, page, artifacts_dir):  # type: ignore[no-untyped-def]
    health = httpx.get(live_server.base_url + "/health").json()
    assert health["status"] == "ok"
    assert health["version"]

    page.goto(live_server.base_url + "/")
    page.get_by_test_id("pc-chat").wait_for(timeout=15000)
    assert page.get_by_test_id("pc-input").is_visible()
    page.screenshot(path=str(artifacts_dir / "app-empty.png"), full_page=True)
