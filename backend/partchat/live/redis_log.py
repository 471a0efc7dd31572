"""``RedisEventLog``: the live event log and the stops, over ``redis.asyncio``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from partchat.live.control import StopListener
from partchat.live.keys import control_channel, seq_of, stream_key, text
from partchat.live.publisher import FRAME_FIELD, PublishStats, StreamPublisher

REPLAY_TTL_S = 120  # a finished turn's events stay replayable this long (as the Hub's)


class LiveLogUnavailable(Exception):
    """Redis could not be read for longer than the follower's ``reconnect_for_s``."""


class RedisEventLog:
    """One per server process, over one ``redis.asyncio.Redis`` client.

    The client's ``socket_timeout`` must exceed ``block_ms`` (use :meth:`from_url`);
    every call here is bounded by its own timeout anyway.
    """

    def __init__(
        self,
        client: Redis,
        *,
        timeout_s: float = 1.0,
        block_ms: int = 2_000,
        max_pending: int = 20_000,
        maxlen: int = 5_000,
        reconnect_for_s: float = 30.0,
    ) -> None:
        self.client = client
        self.timeout_s = timeout_s
        self.block_ms = block_ms
        self.reconnect_for_s = reconnect_for_s
        self.publisher = StreamPublisher(
            client, max_pending=max_pending, timeout_s=timeout_s, maxlen=maxlen
        )
        self._owns_client = False

    @classmethod
    def from_url(cls, url: str, **options: Any) -> RedisEventLog:
        client = Redis.from_url(url, socket_timeout=10.0, socket_connect_timeout=2.0)
        log = cls(client, **options)
        log._owns_client = True
        return log

    async def close(self, flush_timeout_s: float = 2.0) -> None:
        """Write what is queued (for at most ``flush_timeout_s``); close a client made by
        :meth:`from_url`."""
        await self.publisher.close(flush_timeout_s)
        if self._owns_client:
            await self.client.aclose()

    # --- the event log ----------------------------------------------------------------
    def publish(self, session_id: str, seq: int, frame: str) -> None:
        """Queue the frame for the session's stream (never waits; see ``stats``)."""
        self.publisher.publish(session_id, seq, frame)

    def expire_after_turn(self, session_id: str, ttl: int = REPLAY_TTL_S) -> None:
        """The turn ended: its stream goes ``ttl`` seconds later (unless a turn follows)."""
        self.publisher.expire_after_turn(session_id, ttl)

    async def flush(self, timeout_s: float) -> bool:
        return await self.publisher.flush(timeout_s)

    @property
    def stats(self) -> PublishStats:
        return self.publisher.stats

    async def oldest_seq(self, session_id: str) -> int | None:
        """The first seq the stream still holds (None: no stream): a replay from
        ``last_seq`` is whole only if this is at most ``last_seq + 1`` or the events
        between were never published."""
        entries: Any = await asyncio.wait_for(
            self.client.xrange(stream_key(session_id), count=1), self.timeout_s
        )
        return seq_of(entries[0][0]) if entries else None

    async def read_after(self, session_id: str, last_seq: int) -> list[tuple[int, str]]:
        """What the stream holds after ``last_seq`` now (the replay part alone)."""
        key = stream_key(session_id)
        out: list[tuple[int, str]] = []
        last_id = f"{last_seq}-0"
        while True:
            entries = await self._range_after(key, last_id)
            for entry_id, fields in entries:
                last_id = text(entry_id)
                out.append((seq_of(last_id), _frame(fields)))
            if len(entries) < 500:
                return out

    async def replay_and_follow(
        self, session_id: str, last_seq: int
    ) -> AsyncIterator[tuple[int, str]]:
        """``(seq, frame)`` for each entry with seq > ``last_seq``, in order and once each:
        first what the stream holds (XRANGE), then live entries (XREAD BLOCK from the last
        id seen, so nothing between the two is missed or repeated). Runs until cancelled.

        A lost connection (a Redis restart) is retried from the last id seen; failing for
        longer than ``reconnect_for_s`` raises :class:`LiveLogUnavailable`.
        """
        key = stream_key(session_id)
        last_id = f"{last_seq}-0"
        failing_since: float | None = None
        delay = 0.0
        replaying = True
        while True:
            try:
                if replaying:
                    entries = await self._range_after(key, last_id)
                    replaying = len(entries) == 500
                else:
                    entries = await self._read_after(key, last_id)
            except (RedisError, OSError, TimeoutError) as exc:
                now = time.monotonic()
                failing_since = failing_since or now
                if now - failing_since > self.reconnect_for_s:
                    raise LiveLogUnavailable(f"Redis unreachable: {exc!r}") from exc
                delay = min(max(delay * 2, 0.05), 1.0)
                await asyncio.sleep(delay)
                continue
            failing_since, delay = None, 0.0
            for entry_id, fields in entries:
                last_id = text(entry_id)
                yield seq_of(last_id), _frame(fields)

    async def _range_after(self, key: str, last_id: str) -> list[Any]:
        start = f"{seq_of(last_id) + 1}-0"
        entries: Any = await asyncio.wait_for(
            self.client.xrange(key, min=start, count=500), self.timeout_s
        )
        return list(entries or [])

    async def _read_after(self, key: str, last_id: str) -> list[Any]:
        # Bounded by the block time plus the usual timeout: a hung Redis surfaces as a
        # TimeoutError (and a retry) instead of a reader stuck forever.
        reply: Any = await asyncio.wait_for(
            self.client.xread({key: last_id}, count=500, block=self.block_ms),
            self.block_ms / 1000 + self.timeout_s,
        )
        if not reply:
            return []
        if isinstance(reply, dict):  # RESP3
            return list(next(iter(reply.values()))[0])
        return list(reply[0][1])

    # --- stops ----------------------------------------------------------------------
    async def send_stop(self, session_id: str, owner: str) -> bool:
        """Ask server ``owner`` (the store's owner of the session's running turn) to stop
        it; True when its listener got the request (False: it is not listening)."""
        heard: Any = await asyncio.wait_for(
            self.client.publish(control_channel(owner), session_id), self.timeout_s
        )
        return int(heard) > 0

    def stop_listener(self, owner: str, on_stop: Callable[[str], None]) -> StopListener:
        """The listener the server ``owner`` runs for its whole life (``await .start()``)."""
        return StopListener(self.client, owner, on_stop, timeout_s=self.timeout_s)


def _frame(fields: dict[Any, Any]) -> str:
    value = fields.get(FRAME_FIELD)
    if value is None:
        value = fields[FRAME_FIELD.encode()]
    return text(value)
