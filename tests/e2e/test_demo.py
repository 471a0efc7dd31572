"""The demo store page (``/demo/``): a product page driving the embedded widget."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import PageFactory, ServerFactory
from tests.e2e.pages import DemoStore, Rating
from tests.support import demo_page
from tests.support.servers import ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]


@pytest.fixture(scope="module")
def server(module_server_factory: ServerFactory) -> ServerProcess:
    return module_server_factory("demo")


def open_store(new_page: PageFactory, server: ServerProcess, **kw: object) -> DemoStore:
    page = new_page(**kw)
    page.goto(server.base_url + "/demo/")
    page.wait_for_function("() => !!window.partchat", timeout=10_000)
    return DemoStore(page)


def test_the_product_page_and_ask_about_this_part(
    new_page: PageFactory, server: ServerProcess, artifacts_dir: Path
) -> None:
    store = open_store(new_page, server)
    part = store.part_number
    assert part.startswith("PS")
    assert store.store("demo-part-number").inner_text() == part
    assert store.store("demo-price").inner_text().startswith("$")
    crumbs = store.store("demo-breadcrumbs").inner_text()
    assert "Home" in crumbs and part in crumbs
    assert store.panel.is_hidden()
    store.page.screenshot(path=str(artifacts_dir / "demo-store.png"))

    store.ask_about_part()
    store.panel.wait_for(state="visible", timeout=5_000)
    assert store.launcher.get_attribute("aria-expanded") == "true"
    store.wait_user_delivered(0)
    answer = store.wait_answer(0)
    assert answer.get_attribute("data-status") == "complete"
    text = store.answer_text(answer)
    assert part in text
    # The price in the answer is the catalog's, the same one the page shows.
    assert store.store("demo-price").inner_text() in text
    assert store.user_messages.nth(0).inner_text().count(part) == 1

    # The widget rates answers like the app does (same components, same connection).
    rating = Rating(answer)
    rating.up.click()
    rating.wait_saved("up")
    assert rating.up.get_attribute("aria-pressed") == "true"

    # Add to cart only counts, on the page.
    store.store("demo-add-to-cart").click()
    assert store.store("demo-cart-count").inner_text() == "1"
    assert "nothing is ordered" in store.store("demo-cart-status").inner_text()
    store.page.screenshot(path=str(artifacts_dir / "demo-store-answer.png"))
    assert store.page.pc_errors == []  # type: ignore[attr-defined]


def test_the_fit_box_asks_whether_the_part_fits_the_model(
    new_page: PageFactory, server: ServerProcess
) -> None:
    store = open_store(new_page, server, width=390, height=800)
    # A model number that cannot be one is refused on the page, nothing is sent.
    store.check_fit("?")
    assert "model number" in store.store("demo-fit-error").inner_text()
    assert store.panel.is_hidden()

    model = demo_page.example_model()
    store.check_fit(f"  {model.lower()} ")
    store.panel.wait_for(state="visible", timeout=5_000)
    store.wait_user_delivered(0)
    assert store.text_of(store.user_messages.nth(0)).inner_text() == (
        f"Does {store.part_number} fit my {model}?"
    )
    answer = store.wait_answer(0)
    text = store.answer_text(answer)
    assert model in text and store.part_number in text
    card = answer.locator(f'[data-testid="pc-part-card"][data-part-number="{store.part_number}"]')
    assert card.get_by_test_id("pc-part-fit").get_attribute("data-fit") == "fits"
    assert store.page.pc_errors == []  # type: ignore[attr-defined]
