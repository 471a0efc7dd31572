"""The operator page (``/admin/``) against a server with the admin API on."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.e2e.conftest import PageFactory, ServerFactory
from tests.e2e.pages import SUGGESTIONS, Admin, Chat, Rating
from tests.support.servers import ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

TOKEN = "operator-token-for-the-e2e-tests"
INSTALL, _, ICE_MAKER = SUGGESTIONS
REASON = "Too long, I only wanted the steps."
SESSION_KEY = "partchat.sessionId"


@pytest.fixture(scope="module")
def server(module_server_factory: ServerFactory) -> ServerProcess:
    return module_server_factory("admin", PARTCHAT_ADMIN_TOKEN=TOKEN)


def converse(new_page: PageFactory, server: ServerProcess, question: str) -> tuple[Page, Chat]:
    chat = Chat.at(new_page(), server.base_url + "/")
    chat.type_and_send(question)
    chat.wait_answer(0)
    return chat.page, chat


def session_of(page: Page) -> str:
    session_id = page.evaluate(f"() => localStorage.getItem({SESSION_KEY!r})")
    assert isinstance(session_id, str) and session_id
    return session_id


def download(admin: Admin, test_id: str, to: Path) -> tuple[str, str]:
    with admin.page.expect_download(timeout=10_000) as info:
        admin.tid(test_id).click()
    dl = info.value
    target = to / dl.suggested_filename
    dl.save_as(target)
    return dl.suggested_filename, target.read_text(encoding="utf-8")


def test_the_operator_reads_rated_conversations_and_exports_them(
    new_page: PageFactory, server: ServerProcess, tmp_path: Path, artifacts_dir: Path
) -> None:
    # Two shoppers: one rates the answer down with a reason, one asks about a symptom.
    rated_page, rated_chat = converse(new_page, server, INSTALL)
    rating = Rating(rated_chat.assistant_messages.nth(0))
    rating.down.click()
    rating.reason.fill(REASON)
    rating.send.click()
    rating.wait_saved("down")
    rated = session_of(rated_page)
    other = session_of(converse(new_page, server, ICE_MAKER)[0])
    assert rated != other

    page = new_page(width=1280, height=900)
    page.goto(server.base_url + "/admin")  # redirected to /admin/
    assert page.url.endswith("/admin/")
    admin = Admin(page)

    # A wrong token is refused, clearly, and nothing is listed.
    admin.login("not-the-right-token")
    error = admin.tid("admin-login-error")
    error.wait_for(timeout=5_000)
    assert "refused" in error.inner_text()
    assert admin.sessions.count() == 0

    admin.login(TOKEN)
    admin.session(rated).wait_for(timeout=10_000)
    admin.session(other).wait_for(timeout=10_000)
    # The token lives in this tab's sessionStorage only, never in the URL or localStorage.
    assert TOKEN not in page.url
    assert page.evaluate("() => JSON.stringify(localStorage)").find(TOKEN) < 0
    assert page.evaluate("() => sessionStorage.getItem('partchat.adminToken')") == TOKEN

    # Negative feedback only: the rated conversation.
    admin.apply_filters(feedback="down")
    page.wait_for_function(
        "(id) => [...document.querySelectorAll('[data-testid=admin-session]')]"
        ".map(e => e.dataset.sessionId).join() === id",
        arg=rated,
        timeout=10_000,
    )
    admin.session(rated).click()
    turn = admin.tid("admin-turn").first
    turn.wait_for(timeout=10_000)
    assert admin.tid("admin-turn-user").first.inner_text() == INSTALL
    assert "PS11752778" in admin.tid("admin-turn-assistant").first.inner_text()
    feedback = admin.tid("admin-turn-feedback").first
    assert feedback.get_attribute("data-rating") == "down" and REASON in feedback.inner_text()
    call = turn.locator('[data-testid="admin-tool-call"]').first
    assert call.get_attribute("data-tool-name") == "get_installation_instructions"
    assert call.get_attribute("data-ok") == "true"
    call.locator("summary", has_text="Arguments").click()
    assert '"partNumber": "PS11752778"' in call.get_by_test_id("admin-tool-args").inner_text()
    call.locator("summary", has_text="Result").click()
    assert "PS11752778" in call.get_by_test_id("admin-tool-result").inner_text()
    assert "ms" in admin.tid("admin-turn-timings").first.inner_text()
    page.screenshot(path=str(artifacts_dir / "admin-conversation.png"))

    # The export is the filtered set: JSON Lines (a session a line) and CSV (a turn a row).
    name, jsonl = download(admin, "admin-export-jsonl", tmp_path)
    assert name.endswith(".jsonl")
    lines = [json.loads(line) for line in jsonl.splitlines() if line.strip()]
    assert [d["sessionId"] for d in lines] == [rated]
    assert lines[0]["turns"][0]["feedback"]["reason"] == REASON
    name, text = download(admin, "admin-export-csv", tmp_path)
    assert name.endswith(".csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["session_id"] for r in rows} == {rated}
    assert rows[0]["rating"] == "down"

    # A symptom: the ice-maker conversation.
    admin.tid("admin-filter-reset").click()
    admin.apply_filters(symptom="Ice maker not making ice")
    page.wait_for_function(
        "(id) => [...document.querySelectorAll('[data-testid=admin-session]')]"
        ".map(e => e.dataset.sessionId).join() === id",
        arg=other,
        timeout=10_000,
    )

    # The figures: two answers today, one rated negative (100% of those rated).
    admin.tid("admin-tab-figures").click()
    admin.tid("admin-stat-answers").wait_for(timeout=10_000)
    assert int(admin.tid("admin-stat-answers").inner_text()) >= 2
    assert admin.tid("admin-stat-negative-share").inner_text() == "100%"
    assert admin.tid("admin-chart").locator("svg").count() == 1
    bars = admin.tid("admin-chart-bar")
    assert bars.count() >= 1
    assert sum(int(b.get_attribute("data-answers") or 0) for b in bars.all()) >= 2
    page.screenshot(path=str(artifacts_dir / "admin-figures.png"))

    # Still signed in after a reload (same tab); signing out forgets the token.
    page.reload()
    admin.tid("admin-logout").click()
    admin.tid("admin-token").wait_for(timeout=5_000)
    assert page.evaluate("() => sessionStorage.getItem('partchat.adminToken')") is None
    assert page.pc_errors == []  # type: ignore[attr-defined]
