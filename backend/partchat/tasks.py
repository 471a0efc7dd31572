"""Small asyncio helpers shared by the store and the turn engine."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")


async def run_to_completion(awaitable: Awaitable[T]) -> T:
    """Await ``awaitable`` in its own task that goes on even if the caller is cancelled.

    For work that must not stop half-way once started (a message being stored, an answer
    being saved): the caller still sees ``CancelledError``; the task's own failure, if the
    caller is gone, is retrieved so it is not reported as never retrieved.
    """
    task = asyncio.ensure_future(awaitable)
    task.add_done_callback(_consume_exception)
    return await asyncio.shield(task)


def _consume_exception(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()
