"""Shapes the agent, the store and the wire protocol share, defined once.

The lowest layer that needs them: ``agent/state.py``, ``store/records.py`` and
``protocol.py`` import them from here (the agent and the store never import the
transport layer for them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict

from partchat.catalog.types import Appliance

FinishReason = Literal["stop", "aborted", "error", "length"]


class Context(TypedDict):
    """What the session knows about the shopper's appliance, as the wire protocol
    (``ready``, ``data-context``) and the store carry it (camelCase)."""

    productModel: str | None
    partNumber: str | None
    symptoms: list[str]
    applianceType: Appliance | None


def empty_context() -> Context:
    return Context(productModel=None, partNumber=None, symptoms=[], applianceType=None)


def context_of(values: Mapping[str, Any]) -> Context:
    """The context in the graph's (snake_case) state or a node's update."""
    return Context(
        productModel=values.get("product_model"),
        partNumber=values.get("part_number"),
        symptoms=list(values.get("symptoms") or []),
        applianceType=values.get("appliance_type"),
    )
