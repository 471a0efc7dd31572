"""Both paths in step: for every corpus dialogue, the tool calls the offline model makes
are valid against the tool contracts, and the OpenAI-compatible path, fed the same calls
by the scripted fake LLM, runs the same tools with the same inputs and gets the same
results."""

from __future__ import annotations

from typing import Any

import pytest

from partchat.agent.graph import build_graph
from partchat.agent.llm import make_chat_model
from partchat.catalog import Catalog
from partchat.nlu import corpus
from partchat.nlu.model import Understanding
from partchat.settings import Settings
from partchat.toolbox.dispatch import Toolbox
from tests.support.agent_driver import Conversation
from tests.support.fake_llm import FakeLLM, Reply

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.timeout(600)]


# each split's dialogues in this many interleaved parts, so that each test stays well within
# its time bound as the corpus grows (dev: 1,809 dialogues, two paths each)
PARTS = 4


@pytest.mark.parametrize("part", range(PARTS))
@pytest.mark.parametrize("split", corpus.SPLITS)
async def test_offline_calls_are_valid_and_replay_on_the_openai_path(
    graph: Any,
    catalog: Catalog,
    understanding: Understanding,
    split: corpus.Split,
    part: int,
) -> None:
    toolbox = Toolbox.load(catalog)
    problems: list[str] = []
    for d in corpus.dialogues(split)[part::PARTS]:
        offline = Conversation(graph)
        script: list[Reply] = []
        for t in d["turns"]:
            turn = await offline.say(t["user"])
            for name, args in turn.calls:
                _, errors = toolbox.validate_input(name, args)
                if errors:
                    problems.append(f"{d['id']}: {name} {args}: {errors}")
            if turn.calls:
                script.append(Reply.calls(*turn.calls))
            script.append(Reply.say(turn.text))
        fake = FakeLLM(script)
        await fake.start()
        settings = Settings(
            llm="openai",
            openai_api_key="sk-test",
            openai_base_url=fake.base_url,
            model="fake-model",
            llm_timeout_s=10.0,
            llm_max_retries=0,
        )
        online = Conversation(
            build_graph(make_chat_model(settings), toolbox, catalog, understanding)
        )
        for t, want in zip(d["turns"], offline.turns, strict=True):
            got = await online.say(t["user"])
            if got.calls != want.calls or got.outputs != want.outputs or got.text != want.text:
                problems.append(f"{d['id']} {t['user']!r}: {got.calls} != {want.calls}")
            if got.context != want.context:
                problems.append(f"{d['id']} {t['user']!r}: context {got.context} != {want.context}")
        await fake.stop()
    assert problems == []
