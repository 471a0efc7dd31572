"""Fixtures for the agent tests: a scripted fake OpenAI server (tests/support/fake_llm.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from tests.support.fake_llm import FakeLLM

FakeFactory = Callable[..., Awaitable[FakeLLM]]


@pytest.fixture
async def fake_llm() -> AsyncIterator[FakeFactory]:
    """``await fake_llm(script, **options)`` starts a FakeLLM on a free 127.0.0.1 port;
    every one started is stopped when the test ends."""
    started: list[FakeLLM] = []

    async def start(script: Any = None, **kwargs: Any) -> FakeLLM:
        fake = FakeLLM(script, **kwargs)
        await fake.start()
        started.append(fake)
        return fake

    yield start
    for fake in started:
        await fake.stop()
