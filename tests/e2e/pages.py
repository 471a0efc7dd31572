"""Page objects for the browser tests: everything is found by ``data-testid``.

``get_by_test_id`` pierces open shadow roots, so the same object drives the app (``/``) and
the widget (inside its shadow root on a host page).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Locator, Page

ANSWER_TIMEOUT_MS = 20_000
FINAL_STATUSES = ("complete", "partial", "failed", "interrupted")

# The empty chat's suggestions, from the file the frontend shows them from.
SUGGESTIONS: tuple[str, ...] = tuple(
    json.loads(
        (Path(__file__).parents[2] / "frontend/src/chat/suggestions.json").read_text("utf-8")
    )
)

# Records every WebSocket the page opens (window.__pcSockets) so a test can drop the live
# one; production code exposes nothing for this. Installed with page.add_init_script.
RECORD_SOCKETS_JS = """
(() => {
  const Native = window.WebSocket;
  const sockets = [];
  class Recorded extends Native {
    constructor(...args) { super(...args); sockets.push(this); }
  }
  Object.defineProperty(window, "__pcSockets", { value: sockets, enumerable: false });
  window.WebSocket = Recorded;
})();
"""

DROP_LIVE_SOCKET_JS = """
(code) => {
  const live = window.__pcSockets.filter((s) => s.readyState === WebSocket.OPEN);
  live.forEach((s) => s.close(code, "dropped by the test"));
  return live.length;
}
"""


@dataclass
class StreamObservation:
    """Lengths of an answer's text seen while it streamed, and its final status."""

    lengths: list[int] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)

    @property
    def distinct_increasing(self) -> list[int]:
        out: list[int] = []
        for n in self.lengths:
            if n > 0 and (not out or n > out[-1]):
                out.append(n)
        return out


class Chat:
    """The chat panel (app or widget)."""

    def __init__(self, page: Page) -> None:
        self.page = page

    @classmethod
    def at(cls, page: Page, url: str) -> Chat:
        """Opens the chat app at ``url`` and waits for its session."""
        page.goto(url)
        chat = cls(page)
        chat.wait_ready()
        return chat

    def tid(self, test_id: str) -> Locator:
        return self.page.get_by_test_id(test_id)

    # --- elements --------------------------------------------------------------------
    @property
    def root(self) -> Locator:
        return self.tid("pc-chat")

    @property
    def input(self) -> Locator:
        return self.tid("pc-input")

    @property
    def send_button(self) -> Locator:
        return self.tid("pc-send")

    @property
    def stop_button(self) -> Locator:
        return self.tid("pc-stop")

    @property
    def connection(self) -> Locator:
        return self.tid("pc-connection")

    @property
    def message_list(self) -> Locator:
        return self.tid("pc-messages")

    @property
    def messages(self) -> Locator:
        return self.tid("pc-message")

    def by_role(self, role: str) -> Locator:
        return self.page.locator(f'[data-testid="pc-message"][data-role="{role}"]')

    @property
    def assistant_messages(self) -> Locator:
        return self.by_role("assistant")

    @property
    def user_messages(self) -> Locator:
        return self.by_role("user")

    def text_of(self, message: Locator) -> Locator:
        return message.get_by_test_id("pc-message-text")

    def context_chip(self, name: str) -> Locator:
        return self.tid(f"pc-context-{name}")

    # --- actions ---------------------------------------------------------------------
    def wait_ready(self, timeout: float = 15_000) -> None:
        self.root.wait_for(timeout=timeout)
        self.page.locator('[data-testid="pc-connection"][data-status="open"]').wait_for(
            state="attached", timeout=timeout
        )

    def type_and_send(self, text: str, timeout: float = 10_000) -> None:
        self.input.fill(text)
        self.send_button.click(timeout=timeout)

    def pick_suggestion(self, index: int) -> None:
        self.tid("pc-suggestion").nth(index).click(timeout=5_000)

    def wait_user_delivered(self, index: int, timeout: float = 10_000) -> None:
        """The server acknowledged the user message (``start.messageId`` = the client's id)."""
        msg = self.user_messages.nth(index)
        try:
            self.page.wait_for_function(
                "(el) => el && el.dataset.status === 'delivered'",
                arg=msg.element_handle(timeout=timeout),
                timeout=timeout,
            )
        except Exception as exc:
            status = msg.get_attribute("data-status")
            raise AssertionError(
                f"user message {index} stayed {status!r}, never 'delivered': the server's "
                "`start` event must carry the client's message id as messageId "
                "(docs/protocol.md 'start'); while it does not, the client thinks the "
                "message is unanswered and keeps Send disabled"
            ) from exc

    def wait_answer(self, index: int, timeout: float = ANSWER_TIMEOUT_MS) -> Locator:
        """Waits for assistant message ``index`` to reach a final status; returns it."""
        msg = self.assistant_messages.nth(index)
        msg.wait_for(timeout=timeout)
        self.page.wait_for_function(
            "([el, finals]) => finals.includes(el.dataset.status)",
            arg=[msg.element_handle(timeout=timeout), list(FINAL_STATUSES)],
            timeout=timeout,
        )
        return msg

    def observe_stream(
        self, index: int, timeout: float = ANSWER_TIMEOUT_MS, poll_s: float = 0.03
    ) -> StreamObservation:
        """Polls the text length of assistant message ``index`` until it is final."""
        obs = StreamObservation()
        msg = self.assistant_messages.nth(index)
        msg.wait_for(timeout=timeout)
        handle = msg.element_handle(timeout=timeout)
        deadline = time.monotonic() + timeout / 1000
        while time.monotonic() < deadline:
            status, length = handle.evaluate(
                """(el) => {
                  const t = el.querySelector('[data-testid="pc-message-text"]');
                  return [el.dataset.status, t ? t.textContent.length : 0];
                }"""
            )
            obs.lengths.append(length)
            obs.statuses.append(status)
            if status in FINAL_STATUSES:
                return obs
            time.sleep(poll_s)
        raise AssertionError(f"answer {index} did not finish in {timeout} ms: {obs}")

    def answer_text(self, message: Locator) -> str:
        return self.text_of(message).inner_text(timeout=5_000)


class Widget(Chat):
    """The widget on a host page: launcher + panel in a shadow root."""

    @property
    def launcher(self) -> Locator:
        return self.tid("pc-launcher")

    @property
    def panel(self) -> Locator:
        return self.tid("pc-panel")

    def open(self, timeout: float = 10_000) -> None:
        self.launcher.click(timeout=timeout)
        self.root.wait_for(timeout=timeout)


class Rating:
    """The thumbs up / down of one assistant answer."""

    def __init__(self, message: Locator) -> None:
        self.message = message

    @property
    def root(self) -> Locator:
        return self.message.get_by_test_id("pc-feedback")

    @property
    def up(self) -> Locator:
        return self.message.get_by_test_id("pc-feedback-up")

    @property
    def down(self) -> Locator:
        return self.message.get_by_test_id("pc-feedback-down")

    @property
    def reason(self) -> Locator:
        return self.message.get_by_test_id("pc-feedback-reason")

    @property
    def send(self) -> Locator:
        return self.message.get_by_test_id("pc-feedback-send")

    @property
    def saved_reason(self) -> Locator:
        return self.message.get_by_test_id("pc-feedback-saved-reason")

    def wait_saved(self, rating: str, timeout: float = 10_000) -> None:
        self.message.locator(
            f'[data-testid="pc-feedback"][data-rating="{rating}"][data-feedback-status="saved"]'
        ).wait_for(timeout=timeout)


class DemoStore(Widget):
    """The demo store's product page (``/demo/``) with the widget embedded."""

    def store(self, test_id: str) -> Locator:
        return self.page.get_by_test_id(test_id)

    @property
    def part_number(self) -> str:
        return self.store("demo-product").get_attribute("data-part-number") or ""

    def ask_about_part(self) -> None:
        self.store("demo-ask").click()

    def check_fit(self, model: str) -> None:
        self.store("demo-fit-model").fill(model)
        self.store("demo-fit-check").click()


class Admin:
    """The operator page (``/admin/``)."""

    def __init__(self, page: Page) -> None:
        self.page = page

    def tid(self, test_id: str) -> Locator:
        return self.page.get_by_test_id(test_id)

    def login(self, token: str) -> None:
        self.tid("admin-token").fill(token)
        self.tid("admin-login-submit").click()

    @property
    def sessions(self) -> Locator:
        return self.tid("admin-session")

    def session(self, session_id: str) -> Locator:
        return self.page.locator(f'[data-testid="admin-session"][data-session-id="{session_id}"]')

    def apply_filters(self, **checks: bool | str) -> None:
        """``feedback="down"``, ``errors=True``, ``symptom="Not draining"``…"""
        for name, value in checks.items():
            field = self.tid("admin-filter-" + name.replace("_", "-"))
            if isinstance(value, bool):
                field.set_checked(value)
            elif name == "feedback":
                field.select_option(value)
            else:
                field.fill(value)
        self.tid("admin-filter-apply").click()
