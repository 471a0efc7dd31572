"""Shapes the agent, the store and the wire protocol share, defined once.

``FinishReason`` and ``Context`` are the protocol schema's, generated into ``types.py``
(which imports nothing of partchat); the agent and the store take them from here, with
the empty context and the one converter from the graph's state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partchat.protocol.types import Context, FinishReason

__all__ = ["Context", "FinishReason", "context_of", "empty_context"]


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
