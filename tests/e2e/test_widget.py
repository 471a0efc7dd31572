"""The embeddable widget on a hostile host page served from another origin."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.e2e.conftest import PageFactory, ServerFactory
from tests.e2e.pages import SUGGESTIONS, Widget
from tests.support.servers import ServerProcess, free_port

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(30)]

INSTALL, COMPAT, _ = SUGGESTIONS

# The hostile host page: its CSS tries everything against an embedded widget.
HOSTILE_PAGE = (Path(__file__).parent / "fixtures" / "hostile.html").read_text(encoding="utf-8")
WIDGET_SLOT = "<!--WIDGET-->"

WIDGET_TAG = (
    '<script src="{server}/widget.js" data-server="{server}" data-title="Parts help"'
    ' data-accent="#337778" defer></script>'
)


@dataclass
class Host:
    """A tiny static site on its own port: ``/`` with the widget, ``/baseline`` without."""

    port: int
    pages: dict[str, str]
    httpd: ThreadingHTTPServer | None = None

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Host:
        pages = self.pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = pages.get(self.path.split("?")[0])
                if body is None:
                    self.send_error(404)
                    return
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()


@dataclass
class Setup:
    server: ServerProcess
    allowed: Host
    refused: Host


@pytest.fixture(scope="module")
def setup(module_server_factory: ServerFactory) -> Iterator[Setup]:
    allowed = Host(free_port(), {})
    refused = Host(free_port(), {})
    server = module_server_factory("widget", PARTCHAT_ALLOWED_ORIGINS=allowed.origin)
    widget = WIDGET_TAG.format(server=server.base_url)
    for host in (allowed, refused):
        host.pages["/"] = HOSTILE_PAGE.replace(WIDGET_SLOT, widget)
        host.pages["/baseline"] = HOSTILE_PAGE.replace(WIDGET_SLOT, "")
        host.start()
    yield Setup(server, allowed, refused)
    allowed.stop()
    refused.stop()


def open_host(new_page: PageFactory, url: str, **kw: object) -> Widget:
    page = new_page(**kw)
    page.goto(url)
    page.wait_for_function("() => !!window.partchat", timeout=10_000)
    return Widget(page)


GLOBALS_JS = "() => Object.keys(window).sort()"


def test_widget_works_on_a_hostile_page_from_another_origin(
    new_page: PageFactory, setup: Setup, artifacts_dir: Path
) -> None:
    baseline = new_page()
    baseline.goto(setup.allowed.origin + "/baseline")
    baseline_keys = set(baseline.evaluate(GLOBALS_JS))

    widget = open_host(new_page, setup.allowed.origin + "/")
    page = widget.page
    assert widget.launcher.is_visible(), "the launcher is hidden by the host CSS"
    assert widget.launcher.get_attribute("aria-expanded") == "false"
    box = widget.launcher.bounding_box()
    assert box and 30 <= box["height"] <= 90, f"launcher size leaked from the host: {box}"

    widget.open()
    assert widget.launcher.get_attribute("aria-expanded") == "true"
    assert widget.panel.is_visible() and widget.input.is_visible()
    # The host's fixed z-index: 2147483647 banner must not cover the panel's header.
    widget.tid("pc-close").click(trial=True, timeout=3_000)
    assert widget.tid("pc-title").inner_text() == "Parts help"
    widget.wait_ready()
    # The host's huge fonts do not reach the widget.
    size = widget.input.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
    assert 12 <= size <= 20, f"input font-size {size}px"

    widget.type_and_send(INSTALL)
    widget.wait_user_delivered(0)
    answer = widget.wait_answer(0)
    assert answer.get_attribute("data-status") == "complete"
    assert "PS11752778" in widget.answer_text(answer)
    assert "$" in answer.get_by_test_id("pc-part-price").first.inner_text()
    page.screenshot(path=str(artifacts_dir / "widget-desktop-hostile.png"))

    # The JS API.
    page.evaluate(f"() => window.partchat.send({COMPAT!r})")
    widget.wait_user_delivered(1)
    second = widget.wait_answer(1)
    assert "WDT780SAEM1" in widget.answer_text(second)

    # window.partchat is the only new global; nothing leaks into the light DOM.
    new_keys = set(page.evaluate(GLOBALS_JS)) - baseline_keys
    assert new_keys == {"partchat"}, f"new globals: {sorted(new_keys)}"
    light_js = """() => [document.head.querySelectorAll('style, link').length,
        [...document.body.children].filter((e) => e.tagName !== 'SCRIPT')
          .map((e) => e.tagName + (e.hasAttribute('data-partchat-widget') ? '[widget]' : ''))]"""
    styles, children = page.evaluate(light_js)
    base_styles, base_children = baseline.evaluate(light_js)
    assert styles == base_styles, "the widget added styles to the host's <head>"
    assert children == [*base_children, "DIV[widget]"], children
    assert page.pc_errors == []  # type: ignore[attr-defined]


def test_widget_at_360px(new_page: PageFactory, setup: Setup, artifacts_dir: Path) -> None:
    widget = open_host(new_page, setup.allowed.origin + "/", width=360, height=740)
    widget.page.screenshot(path=str(artifacts_dir / "widget-360-closed.png"))
    widget.open()
    widget.wait_ready()
    box = widget.panel.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360 + 0.5, box
    widget.pick_suggestion(0)
    widget.wait_answer(0)
    widget.page.screenshot(path=str(artifacts_dir / "widget-360-answer.png"))
    card = widget.tid("pc-part-card").first
    cbox = card.bounding_box()
    assert cbox and cbox["x"] >= 0 and cbox["x"] + cbox["width"] <= 360, cbox
    widget.tid("pc-close").click(trial=True, timeout=3_000)  # not under the host's banner
    # Escape closes the panel and gives focus back to the launcher.
    widget.input.focus()
    widget.page.keyboard.press("Escape")
    widget.panel.wait_for(state="hidden", timeout=5_000)
    assert widget.launcher.evaluate("el => el.getRootNode().activeElement === el")


def test_widget_on_a_page_whose_origin_is_not_allowed_is_refused(
    new_page: PageFactory, setup: Setup
) -> None:
    widget = open_host(new_page, setup.refused.origin + "/")
    widget.open()
    page = widget.page
    try:
        page.locator('[data-testid="pc-connection"][data-status="closed"]').wait_for(
            state="attached", timeout=10_000
        )
    except Exception as exc:
        status = widget.connection.get_attribute("data-status")
        raise AssertionError(
            f"refused origin: connection status stayed {status!r}, expected 'closed' "
            "(the server should close with 1008 and the client stop retrying)"
        ) from exc
    error = widget.tid("pc-error")
    assert error.is_visible()
    assert error.get_attribute("data-code") == "connection"
    assert "origin" in error.inner_text().lower()

    page.evaluate(f"() => window.partchat.send({INSTALL!r})")
    page.wait_for_timeout(1500)
    assert widget.assistant_messages.count() == 0, "a refused page got an answer"
    assert widget.connection.get_attribute("data-status") == "closed"
