"""Rating an answer in the chat app: thumbs down with a reason, kept across a reload."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import PageFactory, ServerFactory
from tests.e2e.pages import SUGGESTIONS, Chat, Rating
from tests.support.servers import ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(90)]

INSTALL = SUGGESTIONS[0]
REASON = "I wanted the price of the whole shelf, not the bin."


@pytest.fixture(scope="module")
def server(module_server_factory: ServerFactory) -> ServerProcess:
    return module_server_factory("feedback")


def test_thumbs_down_with_a_reason_survives_a_reload(
    new_page: PageFactory, server: ServerProcess, artifacts_dir: Path
) -> None:
    chat = Chat.at(new_page(), server.base_url + "/")
    page = chat.page
    chat.type_and_send(INSTALL)
    answer = chat.wait_answer(0)
    rating = Rating(answer)
    assert rating.up.get_attribute("aria-pressed") == "false"
    assert rating.down.get_attribute("aria-label")

    # Keyboard only: focus thumbs down, press Enter; the reason box takes the focus.
    rating.down.focus()
    page.keyboard.press("Enter")
    rating.wait_saved("down")
    assert rating.down.get_attribute("aria-pressed") == "true"
    assert rating.reason.evaluate("el => el === document.activeElement")
    assert rating.reason.get_attribute("maxlength") == "500"
    page.keyboard.type(REASON)
    rating.send.click()
    rating.saved_reason.wait_for(timeout=10_000)
    assert REASON in rating.saved_reason.inner_text()
    rating.wait_saved("down")
    page.screenshot(path=str(artifacts_dir / "app-rated-down.png"))

    page.reload()
    chat.wait_ready()
    restored = Rating(chat.assistant_messages.nth(0))
    restored.wait_saved("down")
    assert restored.down.get_attribute("aria-pressed") == "true"
    assert restored.up.get_attribute("aria-pressed") == "false"
    assert REASON in restored.saved_reason.inner_text()

    # Changing one's mind: thumbs up replaces the rating, also after a reload.
    restored.up.click()
    restored.wait_saved("up")
    page.reload()
    chat.wait_ready()
    Rating(chat.assistant_messages.nth(0)).wait_saved("up")
    assert page.pc_errors == []  # type: ignore[attr-defined]


def test_a_streaming_answer_has_no_rating_buttons(
    new_page: PageFactory, server: ServerProcess
) -> None:
    chat = Chat.at(new_page(), server.base_url + "/")
    chat.type_and_send(INSTALL)
    answer = chat.assistant_messages.nth(0)
    chat.text_of(answer).wait_for(timeout=10_000)
    assert answer.get_attribute("data-status") == "streaming"
    assert Rating(answer).root.count() == 0
    chat.wait_answer(0)
    assert Rating(answer).root.count() == 1
