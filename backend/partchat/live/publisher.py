"""Writes frames to the sessions' Redis Streams without ever making a turn wait.

``publish`` only appends to a bounded in-memory queue (no await, O(1)); one background task
drains it in pipelined batches, each bounded by a timeout. While Redis is slow or down the
queue holds up to ``max_pending`` operations; beyond that the oldest are dropped (the
newest, e.g. a turn's ``finish`` with its whole text, matter most to a resuming client),
and counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError, ResponseError

from partchat.live.keys import stream_key

log = logging.getLogger(__name__)

FRAME_FIELD = "f"


@dataclass(frozen=True, slots=True)
class _Frame:
    session_id: str
    seq: int
    frame: str


@dataclass(frozen=True, slots=True)
class _Expire:
    session_id: str
    ttl_s: int


_Op = _Frame | _Expire


@dataclass
class PublishStats:
    published: int = 0  # frames Redis holds (written, or found already written on a retry)
    dropped: int = 0  # frames discarded unwritten: the queue was full while Redis lagged
    failed: int = 0  # frames Redis refused (e.g. a seq not above the stream's last); not retried
    batches_failed: int = 0  # batches that timed out or lost the connection (then retried)
    pending: int = 0  # operations waiting to be written now


class StreamPublisher:
    def __init__(
        self,
        client: Redis,
        *,
        max_pending: int = 20_000,
        batch_size: int = 256,
        timeout_s: float = 1.0,
        maxlen: int = 5_000,
        active_ttl_s: int = 3_600,
        retry_max_s: float = 1.0,
    ) -> None:
        self.client = client
        self.max_pending = max_pending
        self.batch_size = batch_size
        self.timeout_s = timeout_s
        self.maxlen = maxlen
        self.active_ttl_s = active_ttl_s
        self.retry_max_s = retry_max_s
        self._stats = PublishStats()
        self._queue: deque[_Op] = deque()
        self._inflight = 0
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None
        self._outage_since: float | None = None

    @property
    def stats(self) -> PublishStats:
        self._stats.pending = len(self._queue) + self._inflight
        return PublishStats(**vars(self._stats))

    def publish(self, session_id: str, seq: int, frame: str) -> None:
        self._put(_Frame(session_id, seq, frame))

    def expire_after_turn(self, session_id: str, ttl_s: int) -> None:
        # Queued behind the turn's frames, so it lands after them (a frame written later
        # would otherwise set the long active TTL again).
        self._put(_Expire(session_id, ttl_s))

    def _put(self, op: _Op) -> None:
        self._queue.append(op)
        self._shed()
        self._idle.clear()
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._drain(), name="live-publisher"
            )

    def _shed(self) -> None:
        while len(self._queue) > self.max_pending:
            if isinstance(self._queue.popleft(), _Frame):
                self._stats.dropped += 1

    async def flush(self, timeout_s: float) -> bool:
        """Wait until everything queued is written; False if that took over ``timeout_s``."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout_s)
        except TimeoutError:
            return False
        return True

    async def close(self, timeout_s: float = 2.0) -> None:
        """Write what is queued (for at most ``timeout_s``), then stop the writer."""
        await self.flush(timeout_s)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _drain(self) -> None:
        delay = 0.0
        while True:
            if not self._queue:
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            batch = [self._queue.popleft() for _ in range(min(self.batch_size, len(self._queue)))]
            self._inflight = len(batch)
            try:
                results = await asyncio.wait_for(self._send(batch), self.timeout_s)
            except (RedisError, OSError, TimeoutError) as exc:
                self._inflight = 0
                self._queue.extendleft(reversed(batch))
                self._shed()
                self._stats.batches_failed += 1
                if self._outage_since is None:
                    self._outage_since = time.monotonic()
                    log.warning("live log: Redis write failed (%r); frames are queued", exc)
                delay = min(max(delay * 2, 0.05), self.retry_max_s)
                await asyncio.sleep(delay)
                continue
            self._inflight = 0
            delay = 0.0
            self._account(results)
            if self._outage_since is not None:
                log.warning(
                    "live log: Redis writes resumed after %.1f s (dropped so far: %d)",
                    time.monotonic() - self._outage_since,
                    self._stats.dropped,
                )
                self._outage_since = None

    async def _send(self, batch: list[_Op]) -> list[tuple[bool, Any]]:
        """One pipeline for the batch; per command (is_xadd, result or exception)."""
        pipe = self.client.pipeline(transaction=False)
        kinds: list[bool] = []
        armed: set[str] = set()  # sessions whose stream got the active TTL in this batch
        for op in batch:
            key = stream_key(op.session_id)
            if isinstance(op, _Frame):
                pipe.xadd(
                    key,
                    {FRAME_FIELD: op.frame},
                    id=f"{op.seq}-0",
                    maxlen=self.maxlen,
                    approximate=True,
                )
                kinds.append(True)
                if op.session_id not in armed:
                    # After the XADD (it creates the key): a stream whose owner died
                    # before its turn ended still goes away.
                    pipe.expire(key, self.active_ttl_s)
                    kinds.append(False)
                    armed.add(op.session_id)
            else:
                pipe.expire(key, op.ttl_s)
                kinds.append(False)
                armed.discard(op.session_id)
        results = await pipe.execute(raise_on_error=False)
        for result in results:
            # A lost connection inside the batch: retry it whole (written frames come back
            # as "ID equal or smaller", which counts as written).
            if isinstance(result, OSError) or (
                isinstance(result, RedisError) and not isinstance(result, ResponseError)
            ):
                raise result
        return list(zip(kinds, results, strict=True))

    def _account(self, results: list[tuple[bool, Any]]) -> None:
        for is_xadd, result in results:
            if not is_xadd:
                continue
            if not isinstance(result, ResponseError):
                self._stats.published += 1
            elif "equal or smaller" in str(result):
                self._stats.published += 1  # written by an attempt whose reply was lost
            else:
                self._stats.failed += 1
                log.warning("live log: Redis refused a frame: %s", result)
