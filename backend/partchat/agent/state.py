"""The graph's state: the conversation plus the session context it keeps."""

from __future__ import annotations

from typing import Annotated, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from partchat.catalog.types import Appliance
from partchat.protocol.shapes import Context, FinishReason


class AgentState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    """History (user and assistant text) then this turn's messages and tool results."""
    product_model: str | None
    """The shopper's appliance model, a catalog model number. A new one replaces it."""
    part_number: str | None
    """The part under discussion, a current PS number."""
    symptoms: list[str]
    """Canonical symptom labels for ``appliance_type``; cleared when the appliance changes."""
    appliance_type: Appliance | None
    # Per turn (the turn engine resets these):
    model_changed_from: str | None
    """The previous model when this turn's message replaced it, so the answer says so."""
    unknown_model: str | None
    """A model-shaped number from this turn that the catalog does not know."""
    model_suggestions: list[str]
    """Near matches for ``unknown_model``."""
    other_models: list[str]
    """The other known models this turn's message named beside ``product_model`` (the
    last one named): "fits both? D1426DB1 and LDF7811BB01"."""
    unknown_part: str | None
    """A part number from this turn that the catalog does not know."""
    mentioned_part: str | None
    """The known part (PS number) this turn's message named, by PS or manufacturer number."""
    continues: bool
    """This turn's message answers or continues an earlier request (a model given late,
    "actually make that 10641124210"): the job and its words are the earlier message's."""
    intent: str | None
    """What this turn's message asks for (``nlu``): a job (search, details, compat,
    diagnose, install), the job a bare answer continues, or greeting, thanks, orders,
    out_of_scope, injection, answer, decline, no_model (the shopper lacks the model
    number), past_the_end (a place in a list beyond its end)."""
    tool_rounds: int
    """LLM → tools round trips so far in this turn (capped)."""
    tool_error_streak: int
    """Consecutive failed tool calls; three end the turn (circuit breaker)."""
    finish_reason: FinishReason | None


def turn_input(context: Context) -> AgentState:
    """The non-message part of a turn's input: stored context, per-turn fields reset."""
    return AgentState(
        product_model=context["productModel"],
        part_number=context["partNumber"],
        symptoms=list(context["symptoms"]),
        appliance_type=context["applianceType"],
        model_changed_from=None,
        unknown_model=None,
        model_suggestions=[],
        other_models=[],
        unknown_part=None,
        mentioned_part=None,
        continues=False,
        intent=None,
        tool_rounds=0,
        tool_error_streak=0,
        finish_reason=None,
    )
