"""Stop requests across servers: one Redis Pub/Sub channel per server (owner).

A server subscribes once, to its own channel, for its whole life, rather than per turn:
no SUBSCRIBE/UNSUBSCRIBE per turn. The store already says which server runs a session's
turn (the turn's ``owner``, kept alive by that server's heartbeat), so a sender publishes
the session id to that owner's channel. Pub/Sub is fire-and-forget: ``PUBLISH`` answers
how many listeners got it, so a sender knows when nobody did (the owner is gone, or its
listener is resubscribing after a Redis restart).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from redis.asyncio import Redis
from redis.exceptions import RedisError

from partchat.live.keys import control_channel, text

log = logging.getLogger(__name__)


class StopListener:
    """Calls ``on_stop(session_id)`` for each stop sent to ``owner``; resubscribes after a
    lost connection (with backoff up to ``retry_max_s``)."""

    def __init__(
        self,
        client: Redis,
        owner: str,
        on_stop: Callable[[str], None],
        *,
        timeout_s: float = 2.0,
        retry_max_s: float = 1.0,
    ) -> None:
        self.client = client
        self.channel = control_channel(owner)
        self.on_stop = on_stop
        self.timeout_s = timeout_s
        self.retry_max_s = retry_max_s
        self.subscribed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self, timeout_s: float = 5.0) -> None:
        """Start listening; returns once subscribed (TimeoutError if not within the time)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"stop-listener-{self.channel}")
        await asyncio.wait_for(self.subscribed.wait(), timeout_s)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self.subscribed.clear()

    async def _run(self) -> None:
        delay = 0.0
        while True:
            pubsub = self.client.pubsub(ignore_subscribe_messages=True)
            try:
                await asyncio.wait_for(pubsub.subscribe(self.channel), self.timeout_s)
                self.subscribed.set()
                delay = 0.0
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None and message.get("type") == "message":
                        self._deliver(text(message["data"]))
            except (RedisError, OSError, TimeoutError) as exc:
                self.subscribed.clear()
                log.warning("live log: stop listener on %s lost Redis: %r", self.channel, exc)
            finally:
                with contextlib.suppress(RedisError, OSError, TimeoutError):
                    await asyncio.wait_for(pubsub.aclose(), self.timeout_s)  # type: ignore[no-untyped-call]
            delay = min(max(delay * 2, 0.05), self.retry_max_s)
            await asyncio.sleep(delay)

    def _deliver(self, session_id: str) -> None:
        try:
            self.on_stop(session_id)
        except Exception:
            log.exception("live log: stop handler failed for session %s", session_id)
