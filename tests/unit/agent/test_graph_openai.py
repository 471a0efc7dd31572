"""The OpenAI-compatible path through the same graph, against the scripted fake server.

The chat model comes from ``make_chat_model`` with ``PARTCHAT_LLM=openai`` settings
pointing at the fake (``tests/support/fake_llm.py``); turns are served by the
``TurnEngine`` exactly as in the offline conversations.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import openai
import pytest
import pytest_asyncio
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI

from partchat.agent.graph import APOLOGY, MAX_TOOL_ROUNDS, build_graph
from partchat.agent.llm import classify_llm_error, make_chat_model
from partchat.agent.llm.openai_fast import FastChatOpenAI
from partchat.agent.state import turn_input
from partchat.catalog import Catalog
from partchat.nlu.model import Understanding
from partchat.protocol.shapes import empty_context
from partchat.settings import FAST_PATHS, FastPath, Settings
from partchat.toolbox.dispatch import Toolbox
from tests.support.agent_driver import Conversation, Turn, grounding_problems
from tests.support.fake_llm import FakeLLM, Reply
from tests.unit.agent.conftest import FakeFactory

pytestmark = pytest.mark.timeout(30)

PUMP = "PS11753379"
MODEL = "WDT780SAEM1"


@pytest_asyncio.fixture
async def catalog(catalog_db: Path) -> AsyncIterator[Catalog]:
    c = await Catalog.open(catalog_db)
    yield c
    await c.close()


def graph_for(
    fake: FakeLLM,
    catalog: Catalog,
    understanding: Understanding,
    *,
    timeout_s: float = 10.0,
    retries: int = 0,
) -> Any:
    settings = openai_settings(fake, timeout_s=timeout_s, retries=retries)
    return build_graph(make_chat_model(settings), Toolbox.load(catalog), catalog, understanding)


def openai_settings(
    fake: FakeLLM,
    *,
    timeout_s: float = 10.0,
    retries: int = 0,
    fast_paths: frozenset[FastPath] = frozenset(FAST_PATHS),
) -> Settings:
    return Settings(
        llm="openai",
        openai_api_key="sk-test",
        openai_base_url=fake.base_url,
        model="fake-model",
        llm_timeout_s=timeout_s,
        llm_max_retries=retries,
        fast_paths=fast_paths,
    )


def tool_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m.get("role") == "tool"]


# -- streaming ---------------------------------------------------------------------------
async def test_streamed_text_becomes_text_deltas(
    fake_llm: FakeFactory, catalog: Catalog, understanding: Understanding
) -> None:
    answer = "Hi! I can help with refrigerator and dishwasher parts. What do you need?"
    # Paced: tokens read in one pass of the event loop go out as one delta.
    fake = await fake_llm([Reply.say(answer)], token_ms=2)
    turn = await Conversation(graph_for(fake, catalog, understanding)).say("Hello")
    deltas = [e["delta"] for e in turn.events if e["type"] == "text-delta"]
    assert len(deltas) > 5  # token by token, not one block
    assert turn.text == answer
    assert turn.calls == []
    assert turn.finish_reason == "stop"
    body = fake.chat_requests[0]
    assert body["stream"] is True
    assert {t["function"]["name"] for t in body["tools"]} == {
        "search_parts",
        "check_compatibility",
        "diagnose_repair",
        "get_installation_instructions",
        "get_part_details",
        "extract_information",
    }
    system = body["messages"][0]
    assert system["role"] == "system"
    assert "## Session context" in system["content"]


async def test_streamed_tool_call_runs_and_its_result_goes_back(
    fake_llm: FakeFactory, catalog: Catalog, understanding: Understanding
) -> None:
    fake = await fake_llm(
        [
            Reply.call("check_compatibility", {"partNumber": PUMP, "model": MODEL}),
            Reply.say(f"Yes: the Dishwasher Drain Pump ({PUMP}, $59.95) fits your {MODEL}."),
        ]
    )
    conversation = Conversation(graph_for(fake, catalog, understanding))
    turn = await conversation.say(f"Does {PUMP} fit my {MODEL}?")
    kinds = [e["type"] for e in turn.events]
    assert kinds[:2] == ["start", "data-context"]
    assert turn.context["productModel"] == MODEL
    assert turn.calls == [("check_compatibility", {"partNumber": PUMP, "model": MODEL})]
    (output,) = turn.outputs
    assert output["status"] == "fits"
    assert output["part"]["price"] == "$59.95"
    assert kinds.index("tool-input-available") < kinds.index("tool-output-available")
    assert kinds.index("tool-output-available") < kinds.index("text-delta")
    assert turn.text.startswith("Yes: the Dishwasher Drain Pump")
    assert not grounding_problems(turn)
    second = fake.chat_requests[1]
    (tool_msg,) = tool_messages(second)
    assert json.loads(tool_msg["content"])["status"] == "fits"
    assistant = second["messages"][-2]
    assert assistant["tool_calls"][0]["function"]["name"] == "check_compatibility"
    assert tool_msg["tool_call_id"] == assistant["tool_calls"][0]["id"]


def served(turn: Turn) -> list[tuple[Any, ...]]:
    """A turn's frames as the shopper sees them: consecutive text deltas as one (how a
    model's text splits into frames depends on its reads), ids and timings left out."""
    out: list[tuple[Any, ...]] = []
    for e in turn.events:
        kind = e["type"]
        if kind == "text-delta":
            if out and out[-1][0] == kind:
                out[-1] = (kind, out[-1][1] + e["delta"])
            else:
                out.append((kind, e["delta"]))
        elif kind.startswith("tool-"):
            out.append((kind, e["toolName"], e.get("input"), e.get("output")))
        elif kind == "finish":
            out.append((kind, e["finishReason"], e["text"]))
        else:
            out.append((kind,))
    return out


def kept(turn: Turn) -> dict[str, Any]:
    """The answer as the store kept it, without its generated ids and times."""
    assert turn.stored is not None
    return {k: v for k, v in turn.stored.items() if k not in ("id", "turnId", "createdAt")}


async def test_with_the_openai_fast_path_off_stock_chat_openai_serves_the_same_turns(
    fake_llm: FakeFactory, catalog: Catalog, understanding: Understanding
) -> None:
    """PARTCHAT_FAST_PATHS without ``openai``: stock ChatOpenAI (the public API) streams
    the turn; the shopper gets the same frames, the store the same answers, and the LLM
    the same requests."""

    def script() -> list[Reply]:
        return [
            Reply.call("check_compatibility", {"partNumber": PUMP, "model": MODEL}),
            Reply.say(f"Yes: the Dishwasher Drain Pump ({PUMP}, $59.95) fits your {MODEL}."),
            Reply.say("Unplug the dishwasher, then remove the lower access panel."),
        ]

    runs: dict[type, tuple[list[Turn], list[dict[str, Any]]]] = {}
    for paths in (frozenset(FAST_PATHS), frozenset()):
        fake = await fake_llm(script(), token_ms=1)
        model = make_chat_model(openai_settings(fake, fast_paths=paths))
        graph = build_graph(model, Toolbox.load(catalog), catalog, understanding)
        conversation = Conversation(graph)
        await conversation.say(f"Does {PUMP} fit my {MODEL}?")
        await conversation.say("How do I install it?")
        runs[type(model)] = (conversation.turns, fake.chat_requests)
        if isinstance(model, FastChatOpenAI):
            await model.aclose()
    fast_turns, fast_requests = runs[FastChatOpenAI]
    stock_turns, stock_requests = runs[ChatOpenAI]
    assert [served(t) for t in stock_turns] == [served(t) for t in fast_turns]
    assert [kept(t) for t in stock_turns] == [kept(t) for t in fast_turns]
    assert stock_turns[0].outputs[0]["status"] == "fits"
    assert stock_turns[1].text == "Unplug the dishwasher, then remove the lower access panel."
    assert stock_requests == fast_requests


async def test_context_reaches_the_model_on_the_next_turn(
    fake_llm: FakeFactory, catalog: Catalog, understanding: Understanding
) -> None:
    fake = await fake_llm([Reply.say("Noted."), Reply.say("Sure.")])
    conversation = Conversation(graph_for(fake, catalog, understanding))
    await conversation.say(f"My dishwasher is {MODEL} and it is not draining")
    await conversation.say("What should I check?")
    system = fake.chat_requests[1]["messages"][0]["content"]
    assert f"- Appliance model: {MODEL}" in system
    assert "- Symptoms: Not draining" in system
    assert "- Appliance type: dishwasher" in system
    history = [m["content"] for m in fake.chat_requests[1]["messages"][1:]]
    assert history == [
        f"My dishwasher is {MODEL} and it is not draining",
        "Noted.",
        "What should I check?",
    ]


# -- validation errors go back to the model ----------------------------------------------
@pytest.mark.parametrize(
    ("bad_args", "path"),
    [
        ({"partNumber": 123, "model": MODEL}, "/partNumber"),
        ({"partNumber": PUMP}, "/model"),
    ],
    ids=["partNumber-123", "missing-model"],
)
async def test_invalid_tool_input_is_returned_to_the_model_which_corrects_it(
    fake_llm: FakeFactory,
    catalog: Catalog,
    understanding: Understanding,
    bad_args: dict[str, Any],
    path: str,
) -> None:
    fake = await fake_llm(
        [
            Reply.call("check_compatibility", bad_args),
            Reply.call("check_compatibility", {"partNumber": PUMP, "model": MODEL}),
            Reply.say("It fits."),
        ]
    )
    turn = await Conversation(graph_for(fake, catalog, understanding)).say(
        f"Does {PUMP} fit {MODEL}?"
    )
    (error,) = turn.tool_errors
    assert error["toolName"] == "check_compatibility"
    assert path in [e["path"] for e in error["errors"]]
    (tool_msg,) = tool_messages(fake.chat_requests[1])
    content = json.loads(tool_msg["content"])
    assert content["ok"] is False
    assert content["error"]["code"] == "invalid_input"
    assert path in [e["path"] for e in content["error"]["errors"]]
    assert [o["status"] for o in turn.outputs] == ["fits"]
    assert turn.text == "It fits."
    assert turn.finish_reason == "stop"


async def test_arguments_that_are_not_json_are_reported_too(
    fake_llm: FakeFactory, catalog: Catalog, understanding: Understanding
) -> None:
    fake = await fake_llm(
        [
            Reply.call("get_part_details", "this is not json"),
            Reply.call("get_part_details", {"partNumber": PUMP}),
            Reply.say("Here it is."),
        ]
    )
    turn = await Conversation(graph_for(fake, catalog, understanding)).say(f"Tell me about {PUMP}")
    (tool_msg,) = tool_messages(fake.chat_requests[1])
    assert "invalid_input" in tool_msg["content"]
    assert turn.outputs[0]["part"]["partNumber"] == PUMP
    assert turn.text == "Here it is."


# -- outages -----------------------------------------------------------------------------
async def raised(graph: Any, text: str = "hi") -> BaseException:
    """What the graph raises (the turn engine reports it as an error event)."""
    try:
        await graph.ainvoke({**turn_input(empty_context()), "messages": [HumanMessage(text)]})
    except Exception as exc:
        return exc
    raise AssertionError("the turn did not raise")


def assert_reported_unavailable(turn: Turn) -> None:
    assert turn.error is not None and turn.error["code"] == "llm_unavailable"
    assert turn.finish_reason == "error"
    assert turn.stored is not None and turn.stored["status"] == "failed"


async def test_http_500_is_retried_then_succeeds(
    fake_llm: FakeFactory, catalog: Catalog, understanding: Understanding
) -> None:
    fake = await fake_llm(
        [Reply.error(500, retry_after=0.01), Reply.say("Back again: how can I help?")]
    )
    turn = await Conversation(graph_for(fake, catalog, understanding, retries=2)).say("Hello")
    assert turn.text == "Back again: how can I help?"
    assert len(fake.chat_requests) == 2


async def test_http_500_retried_then_reported_as_llm_unavailable(
    fake_llm: FakeFactory, catalog: Catalog, understanding: Understanding
) -> None:
    fake = await fake_llm(default=Reply.error(500, retry_after=0.01), mode="script")
    graph = graph_for(fake, catalog, understanding, retries=2)
    error = await raised(graph)
    assert isinstance(error, openai.APIStatusError)
    assert classify_llm_error(error) == "llm_unavailable"
    assert len(fake.chat_requests) == 3  # the first try and two retries
    assert_reported_unavailable(await Conversation(graph).say("hi"))
    assert len(fake.chat_requests) == 6


async def test_timeouts_are_retried_then_reported_as_llm_unavailable(
    fake_llm: FakeFactory, catalog: Catalog, understanding: Understanding
) -> None:
    fake = await fake_llm(default=Reply.hang(30), mode="script")
    graph = graph_for(fake, catalog, understanding, timeout_s=0.3, retries=1)
    error = await raised(graph)
    assert isinstance(error, openai.APIError)
    assert classify_llm_error(error) == "llm_unavailable"
    assert len(fake.chat_requests) == 2
    assert_reported_unavailable(await Conversation(graph).say("hi"))
    assert len(fake.chat_requests) == 4


# -- limits ------------------------------------------------------------------------------
async def test_tool_round_cap_ends_with_length_and_an_answer_without_tools(
    fake_llm: FakeFactory, catalog: Catalog, understanding: Understanding
) -> None:
    def script(body: dict[str, Any]) -> Reply:
        if body.get("tools"):
            return Reply.call("search_parts", {"query": "drain pump", "model": MODEL})
        return Reply.say("Here is what I found so far: the drain pump fits your model.")

    fake = await fake_llm(script)
    turn = await Conversation(graph_for(fake, catalog, understanding)).say("find me everything")
    requests = fake.chat_requests
    assert len(requests) == MAX_TOOL_ROUNDS + 1
    assert all(r.get("tools") for r in requests[:-1])
    assert not requests[-1].get("tools")
    assert "maximum number of tool calls" in requests[-1]["messages"][0]["content"]
    assert len(turn.calls) == MAX_TOOL_ROUNDS
    assert turn.finish_reason == "length"
    assert turn.text == "Here is what I found so far: the drain pump fits your model."


async def test_a_model_that_never_stops_calling_tools_still_ends(
    fake_llm: FakeFactory, catalog: Catalog, understanding: Understanding
) -> None:
    fake = await fake_llm(default=Reply.call("search_parts", {"query": "pump"}), mode="script")
    turn = await Conversation(graph_for(fake, catalog, understanding)).say("find me everything")
    assert len(fake.chat_requests) == MAX_TOOL_ROUNDS + 1
    assert len(turn.outputs) == MAX_TOOL_ROUNDS  # the call after the cap is not run
    assert turn.finish_reason == "length"


async def test_three_failing_tool_calls_in_a_row_trip_the_circuit_breaker(
    fake_llm: FakeFactory, catalog: Catalog, understanding: Understanding
) -> None:
    fake = await fake_llm(
        default=Reply.call("get_part_details", {"partNumber": "PS99999999"}), mode="script"
    )
    turn = await Conversation(graph_for(fake, catalog, understanding)).say(
        "Tell me about PS99999999"
    )
    assert len(fake.chat_requests) == 3
    assert len(turn.tool_errors) == 3
    assert turn.text == APOLOGY
    assert turn.finish_reason == "error"


async def test_a_success_resets_the_failure_streak(
    fake_llm: FakeFactory, catalog: Catalog, understanding: Understanding
) -> None:
    bad = Reply.call("get_part_details", {"partNumber": "PS99999999"})
    good = Reply.call("get_part_details", {"partNumber": PUMP})
    fake = await fake_llm([bad, bad, good, bad, bad, Reply.say("Done.")])
    turn = await Conversation(graph_for(fake, catalog, understanding)).say("Tell me about parts")
    assert len(turn.tool_errors) == 4
    assert turn.text == "Done."
    assert turn.finish_reason == "stop"
