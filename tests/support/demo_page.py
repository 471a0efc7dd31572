"""The demo store page (frontend/demo/index.html) read by the tests: its ``data-testid``s."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

DEMO = Path(__file__).parents[2] / "frontend" / "demo" / "index.html"


class ByTestId(HTMLParser):
    """Text and attributes of the elements with a ``data-testid`` (text of nested ones too)."""

    def __init__(self) -> None:
        super().__init__()
        self.text: dict[str, str] = {}
        self.attrs: dict[str, dict[str, str]] = {}
        self.items: dict[str, list[str]] = {}
        self._open: list[tuple[str, str | None]] = []
        self._li: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        testid = values.get("data-testid")
        if testid:
            self.attrs[testid] = values
            self.text.setdefault(testid, "")
        if tag in ("input", "br", "img", "meta", "link"):
            return
        self._open.append((tag, testid))
        if tag == "li":
            self._li = []

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            open_tag, _ = self._open.pop()
            if open_tag == tag:
                break
        if tag == "li" and self._li is not None:
            parent = next((t for _, t in reversed(self._open) if t), None)
            if parent:
                self.items.setdefault(parent, []).append("".join(self._li).strip())
            self._li = None

    def handle_data(self, data: str) -> None:
        for _, testid in self._open:
            if testid:
                self.text[testid] += data
        if self._li is not None:
            self._li.append(data)


def page() -> ByTestId:
    parser = ByTestId()
    parser.feed(DEMO.read_text(encoding="utf-8"))
    return parser


def example_model() -> str:
    """The model the fit box gives as its example."""
    fit = DEMO.read_text(encoding="utf-8").split('data-testid="demo-fit"')[1].split("</form>")[0]
    found = re.search(r"for example ([A-Z0-9]{6,})", fit)
    if not found:
        raise AssertionError("the demo's fit box gives no example model")
    return found.group(1)


def questions() -> list[str]:
    """The questions the page sends to the widget: "Ask about this part" and the fit box
    (with its example model)."""
    demo = page()
    part = demo.attrs["demo-product"]["data-part-number"]
    ask = demo.attrs["demo-ask"]["data-question"].replace("{part}", part)
    fit = demo.attrs["demo-fit"]["data-question"]
    return [ask, fit.replace("{part}", part).replace("{model}", example_model())]
