"""The chat app (``/``) in headless Chromium against the real server (offline model)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, WebSocket, WebSocketRoute

from tests.e2e.conftest import PageFactory, ServerFactory
from tests.e2e.pages import DROP_LIVE_SOCKET_JS, RECORD_SOCKETS_JS, SUGGESTIONS, Chat
from tests.support.servers import ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(30)]

INSTALL, COMPAT, ICE_MAKER = SUGGESTIONS
PART_RE = re.compile(r"\bPS\d+\b")


@pytest.fixture(scope="module")
def server(module_server_factory: ServerFactory) -> ServerProcess:
    return module_server_factory("app")


@pytest.fixture(scope="module")
def reference_answers() -> dict[str, str]:
    """Question → answer text as rendered in a fresh session (filled lazily)."""
    return {}


def open_app(new_page: PageFactory, server: ServerProcess, **kw: object) -> Chat:
    page = new_page(**kw)
    page.goto(server.base_url + "/")
    chat = Chat(page)
    chat.wait_ready()
    return chat


def reference_answer(
    question: str, new_page: PageFactory, server: ServerProcess, cache: dict[str, str]
) -> str:
    """The answer to ``question`` as the first message of a fresh, undisturbed session."""
    if question not in cache:
        chat = open_app(new_page, server)
        chat.type_and_send(question)
        msg = chat.wait_answer(0)
        assert msg.get_attribute("data-status") == "complete"
        cache[question] = chat.answer_text(msg)
        chat.page.context.close()
    return cache[question]


def assert_streamed(chat: Chat, index: int) -> None:
    obs = chat.observe_stream(index)
    grew = obs.distinct_increasing
    assert len(grew) >= 3, f"answer {index} did not visibly grow while streaming: {obs}"
    assert obs.statuses[-1] == "complete", obs.statuses


def test_three_classic_questions_stream_and_survive_a_reload(
    new_page: PageFactory, server: ServerProcess, artifacts_dir: Path
) -> None:
    chat = open_app(new_page, server)
    assert chat.tid("pc-suggestion").all_inner_texts() == list(SUGGESTIONS)

    # 1. install (picked from the suggestions): streams, part card with price and video
    chat.pick_suggestion(0)
    chat.wait_user_delivered(0)
    assert_streamed(chat, 0)
    install = chat.assistant_messages.nth(0)
    card = install.locator('[data-testid="pc-part-card"][data-part-number="PS11752778"]')
    assert card.is_visible()
    assert "$" in card.get_by_test_id("pc-part-price").inner_text()
    video = card.get_by_test_id("pc-part-video")
    assert (video.get_attribute("href") or "").startswith("https://www.youtube.com/")
    assert "PS11752778" in chat.answer_text(install)
    chat.page.screenshot(path=str(artifacts_dir / "app-desktop-install.png"))

    # 2. compatibility: streams, mentions the model
    chat.type_and_send(COMPAT)
    chat.wait_user_delivered(1)
    assert_streamed(chat, 1)
    compat = chat.assistant_messages.nth(1)
    assert "WDT780SAEM1" in chat.answer_text(compat)
    compat_part = PART_RE.search(COMPAT)
    assert compat_part, COMPAT

    # Reload: the conversation and the context (model + part) come back from the server.
    script = (
        "els => els.map(e => [e.dataset.role, e.dataset.status,"
        " e.querySelector('[data-testid=pc-message-text]').innerText])"
    )
    before = chat.messages.evaluate_all(script)
    assert len(before) == 4
    before_model = chat.context_chip("model").inner_text()
    before_part = chat.context_chip("part").inner_text()
    assert "WDT780SAEM1" in before_model
    assert compat_part.group(0) in before_part
    before_cards = chat.tid("pc-part-card").count()

    chat.page.reload()
    chat.wait_ready()
    chat.assistant_messages.nth(1).wait_for(timeout=10_000)
    assert chat.messages.evaluate_all(script) == before
    assert chat.context_chip("model").inner_text() == before_model
    assert chat.context_chip("part").inner_text() == before_part
    assert chat.tid("pc-part-card").count() == before_cards, "part cards not restored"
    assert chat.tid("pc-suggestions").count() == 0

    # 3. ice maker (after the reload): streams, lists parts for the fridge model it names
    chat.type_and_send(ICE_MAKER)
    chat.wait_user_delivered(2)
    assert_streamed(chat, 2)
    ice = chat.assistant_messages.nth(2)
    ice_text = chat.answer_text(ice)
    assert ice.get_by_test_id("pc-part-card").count() >= 2, ice_text
    fridge = re.search(r"\b[A-Z0-9]*\d[A-Z0-9]{5,}\b", ICE_MAKER)
    assert fridge and fridge.group(0) in ice_text, ice_text
    assert chat.send_button.is_visible() and chat.stop_button.count() == 0
    chat.page.screenshot(path=str(artifacts_dir / "app-desktop-conversation.png"))
    assert chat.page.pc_errors == []  # type: ignore[attr-defined]


def test_narrow_screen_conversation(
    new_page: PageFactory, server: ServerProcess, artifacts_dir: Path
) -> None:
    chat = open_app(new_page, server, width=360, height=740)
    chat.page.screenshot(path=str(artifacts_dir / "app-360-empty.png"))
    chat.pick_suggestion(0)
    chat.wait_answer(0)
    chat.type_and_send(ICE_MAKER)
    chat.wait_user_delivered(1)
    chat.wait_answer(1)
    chat.page.screenshot(path=str(artifacts_dir / "app-360-conversation.png"))
    # Nothing overflows sideways at 360 px.
    overflow = chat.page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px at 360px"
    card = chat.tid("pc-part-card").first
    box = card.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360


def test_stop_button_stops_the_answer_and_the_next_question_works(
    new_page: PageFactory, server: ServerProcess, reference_answers: dict[str, str]
) -> None:
    full = reference_answer(INSTALL, new_page, server, reference_answers)
    chat = open_app(new_page, server)
    chat.type_and_send(INSTALL)
    answer = chat.assistant_messages.nth(0)
    chat.text_of(answer).wait_for(timeout=10_000)  # the first words are on screen
    chat.stop_button.click(timeout=5_000)
    chat.wait_answer(0)
    assert answer.get_attribute("data-status") == "partial", (  # as stored: the same on reload
        f"stopped answer has status {answer.get_attribute('data-status')!r}"
    )
    stopped = chat.answer_text(answer)
    assert len(stopped) < len(full), "the stopped answer is as long as the full one"
    assert full.startswith(stopped[: min(len(stopped), 20)])
    assert chat.stop_button.count() == 0

    chat.type_and_send(COMPAT)
    chat.wait_user_delivered(1)
    second = chat.wait_answer(1)
    assert second.get_attribute("data-status") == "complete"
    assert "WDT780SAEM1" in chat.answer_text(second)
    # the stopped answer stays as it was
    assert chat.answer_text(chat.assistant_messages.nth(0)) == stopped


def test_socket_drop_mid_answer_completes_without_missing_or_doubled_words(
    new_page: PageFactory, server: ServerProcess, reference_answers: dict[str, str]
) -> None:
    full = reference_answer(INSTALL, new_page, server, reference_answers)

    page: Page = new_page(init_script=RECORD_SOCKETS_JS)
    frames: list[list[dict]] = []  # per connection: frames in both directions

    def on_socket(ws: WebSocket) -> None:
        log: list[dict] = []
        frames.append(log)
        ws.on("framesent", lambda f: log.append({"dir": "out", **json.loads(f)}))
        ws.on("framereceived", lambda f: log.append({"dir": "in", **json.loads(f)}))

    page.on("websocket", on_socket)
    page.goto(server.base_url + "/")
    chat = Chat(page)
    chat.wait_ready()
    chat.type_and_send(INSTALL)
    answer = chat.assistant_messages.nth(0)
    # Drop the socket once part of the answer is on screen (well before its end).
    page.wait_for_function(
        """(el) => { const t = el.querySelector('[data-testid="pc-message-text"]');
                     return t && t.textContent.length > 40; }""",
        arg=answer.element_handle(),
        timeout=10_000,
    )
    dropped_at = len(chat.answer_text(answer))
    assert page.evaluate(DROP_LIVE_SOCKET_JS, 4003) == 1
    assert dropped_at < len(full) * 0.8, "the answer was nearly done before the drop"

    chat.wait_answer(0)
    assert answer.get_attribute("data-status") == "complete"
    assert chat.answer_text(answer) == full
    assert len(frames) >= 2, "the client did not reconnect"

    # The stream itself: the resume replays from lastSeq + 1, every seq exactly once.
    # lastSeq is what the client *applied*: frames the network delivered after the page
    # called close() are discarded by the browser (the WebSocket is CLOSING), so it may
    # be below the last seq seen on the wire; those frames must come again.
    first_in = [f for f in frames[0] if f["dir"] == "in" and "seq" in f]
    last_seq_before = max(f["seq"] for f in first_in)
    hello = next(f for f in frames[1] if f["dir"] == "out")
    applied = hello["lastSeq"]
    assert hello["type"] == "hello" and isinstance(applied, int), hello
    assert applied <= last_seq_before, (applied, last_seq_before)
    second_in = [f for f in frames[1] if f["dir"] == "in" and "seq" in f]
    replayed = [f["seq"] for f in second_in if f["type"] != "ready"]
    assert replayed and replayed[0] == applied + 1, replayed[:5]
    assert replayed == list(range(replayed[0], replayed[0] + len(replayed))), replayed
    deltas = "".join(
        f["delta"]
        for f in [f for f in first_in if f["seq"] <= applied] + second_in
        if f["type"] == "text-delta"
    )
    finish = next(f for f in second_in if f["type"] == "finish")
    assert deltas == finish["text"], "the streamed deltas do not add up to the answer"
    assert page.pc_errors == []  # type: ignore[attr-defined]


def test_reload_mid_answer_rebuilds_the_answer_once(
    new_page: PageFactory, server: ServerProcess, reference_answers: dict[str, str]
) -> None:
    full = reference_answer(INSTALL, new_page, server, reference_answers)
    chat = open_app(new_page, server)
    chat.type_and_send(INSTALL)
    answer = chat.assistant_messages.nth(0)
    chat.page.wait_for_function(
        """(el) => { const t = el.querySelector('[data-testid="pc-message-text"]');
                     return t && t.textContent.length > 40; }""",
        arg=answer.element_handle(),
        timeout=10_000,
    )
    chat.page.reload()
    chat.wait_ready()
    rebuilt = chat.wait_answer(0)
    assert rebuilt.get_attribute("data-status") == "complete"
    assert chat.answer_text(rebuilt) == full
    roles = chat.messages.evaluate_all("els => els.map(e => e.dataset.role)")
    assert roles == ["user", "assistant"], f"after a reload mid-answer: {roles}"
    assert chat.answer_text(chat.user_messages.nth(0)) == INSTALL


# Words chosen so that the catalog search finds nothing and the answer echoes the query.
XSS = 'find <img src=zzq onerror=alert(1)> [xlink](javascript:alert(2)) <a href="javascript:alert(3)">xlink</a>'
HOSTILE_MARKDOWN = (
    "\n\n<img src=q onerror=alert(4)> <script>alert(5)</script>"
    " [click](javascript:alert(6)) ![pic](javascript:alert(7))"
    ' <a href="javascript:alert(8)" onclick="alert(9)">link</a>'
    ' <iframe src="javascript:alert(10)"></iframe> [ok](https://example.com/)\n'
)

DANGEROUS_NODES_JS = """(list) => {
  const out = [];
  for (const el of list.querySelectorAll('*')) {
    if (['IMG', 'SCRIPT', 'IFRAME', 'OBJECT', 'EMBED'].includes(el.tagName))
      out.push(el.outerHTML);
    for (const a of el.attributes) {
      if (/^on/i.test(a.name)) out.push(el.tagName + ' ' + a.name);
      if (/^\\s*javascript:/i.test(a.value)) out.push(el.tagName + ' ' + a.name + '=' + a.value);
    }
  }
  return out;
}"""


def watch_dialogs(page: Page) -> list[str]:
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    return dialogs


def test_crafted_message_renders_inert(new_page: PageFactory, server: ServerProcess) -> None:
    chat = open_app(new_page, server)
    dialogs = watch_dialogs(chat.page)

    chat.type_and_send(XSS)
    mine = chat.user_messages.nth(0)
    assert chat.text_of(mine).inner_text() == XSS, "the user's message is not shown as text"
    answer = chat.wait_answer(0)
    text = chat.answer_text(answer)
    # The offline search answer echoes the query (with punctuation stripped).
    assert "onerror" in text and "javascript" in text, f"the query was not echoed: {text!r}"
    chat.page.wait_for_timeout(300)  # let any handler fire
    assert dialogs == [], f"a dialog fired: {dialogs}"
    assert chat.message_list.evaluate(DANGEROUS_NODES_JS) == []


def test_hostile_answer_markup_renders_inert(new_page: PageFactory, server: ServerProcess) -> None:
    """The offline model strips markup from what it echoes, so the test rewrites the real
    server's frames on their way to the page: the answer itself carries the markup."""
    page = new_page()
    dialogs = watch_dialogs(page)

    injected: list[int] = []

    def handler(ws_route: WebSocketRoute) -> None:
        server_ws = ws_route.connect_to_server()

        def from_server(message: str | bytes) -> None:
            frame = json.loads(message)
            if frame.get("type") == "text-delta" and not injected:
                injected.append(frame["seq"])
                frame["delta"] += HOSTILE_MARKDOWN
            elif frame.get("type") == "finish":
                frame["text"] += HOSTILE_MARKDOWN
            ws_route.send(json.dumps(frame))

        server_ws.on_message(from_server)

    page.route_web_socket(re.compile(r".*/ws$"), handler)
    page.goto(server.base_url + "/")
    chat = Chat(page)
    chat.wait_ready()
    chat.type_and_send(COMPAT)
    answer = chat.wait_answer(0)
    page.wait_for_timeout(300)
    html = chat.text_of(answer).inner_html()
    assert "example.com" in html, "the rewritten answer did not reach the page"
    assert dialogs == [], f"a dialog fired: {dialogs}"
    assert chat.message_list.evaluate(DANGEROUS_NODES_JS) == [], html
    safe = chat.text_of(answer).locator('a[href="https://example.com/"]')
    assert safe.get_attribute("rel") == "noopener noreferrer"
    assert safe.get_attribute("target") == "_blank"
