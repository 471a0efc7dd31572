"""The demo store page (frontend/demo/index.html) shows a real part with the catalog's facts.

The page is the store's own product page, not the assistant's answer, but what it shows (name,
price, numbers, stock, rating, symptoms, replaced numbers, the example model it fits) must
be what the shipped catalog says, so the widget's answers and the page agree.
"""

from __future__ import annotations

import re

from partchat.catalog.files import data_root, read_jsonl
from tests.support.demo_page import DEMO, example_model, page


def catalog_part(ps_number: str) -> dict[str, object]:
    root = data_root(None)
    return next(p for p in read_jsonl(root, "parts.jsonl.gz") if p["ps_number"] == ps_number)


def test_the_product_is_a_catalog_part_with_its_facts() -> None:
    demo = page()
    ps = demo.attrs["demo-product"]["data-part-number"]
    assert demo.text["demo-part-number"].strip() == ps
    part = catalog_part(ps)
    assert str(part["name"]) in demo.text["demo-part-name"]
    assert str(part["brand"]) in demo.text["demo-part-name"]
    assert demo.text["demo-mfr-number"].strip() == part["mfr_number"]
    cents = int(str(part["price_cents"]))
    assert demo.text["demo-price"].strip() == f"${cents // 100}.{cents % 100:02d}"
    assert demo.text["demo-stock"].strip() == part["availability"]
    assert demo.text["demo-rating"].strip() == f"{part['rating_pct']}% positive"
    assert demo.items["demo-symptoms"] == part["symptoms"]
    assert demo.items["demo-replaces"]
    replaces = part["replaces"]
    assert isinstance(replaces, list)
    assert set(demo.items["demo-replaces"]) <= set(replaces)


def test_the_example_model_of_the_fit_box_fits_the_part() -> None:
    demo = page()
    ps = demo.attrs["demo-product"]["data-part-number"]
    model = example_model()
    pairs = read_jsonl(data_root(None), "compatibility.jsonl.gz")
    assert any(p["part"] == ps and p["model"] == model for p in pairs)


def test_the_page_embeds_the_widget_with_one_script_tag() -> None:
    html = DEMO.read_text(encoding="utf-8")
    assert len(re.findall(r"<script\b[^>]*\bsrc=\"/widget\.js\"", html)) == 1
    # No inline script: the server's CSP (script-src 'self') would block it.
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)
    demo = page()
    assert "{part}" in demo.attrs["demo-ask"]["data-question"]
    assert {"{part}", "{model}"} <= set(
        re.findall(r"\{\w+\}", demo.attrs["demo-fit"]["data-question"])
    )
