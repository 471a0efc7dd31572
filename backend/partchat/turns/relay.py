"""Relaying a turn that another server runs, through the Redis live log.

With ``PARTCHAT_REDIS_URL`` set, every event a server publishes also goes to the session's
Redis stream (``partchat.live``). A client that reconnects to a server other than the one
running its turn gets that turn from the stream: :meth:`Relay.follow` loads what the
stream holds into the session's hub (so ``ready`` and the replay after ``lastSeq`` are
exact), then one task per session and server follows the stream into the hub, which fans
each frame out to this server's connections under the seq the owner gave it.

The relay ends with the turn's ``finish`` frame (the owner stores the answer before it
publishes ``finish``, so the store is whole by then). While no frame comes it checks the
owner's heartbeat (the store's ``workers`` rows, the lease of every turn): an owner that
died has its turn marked ``interrupted`` here, and the connections get a fresh ``ready``
with the stored history, as after a restart. Should Redis stay unreachable, the relay
waits on the store instead: the turn's stored answer ends it the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol

import orjson
from redis.exceptions import RedisError

from partchat.live import LiveLogUnavailable, RedisEventLog
from partchat.store import StorageUnavailable, TurnRecord

if TYPE_CHECKING:
    from partchat.ops.workers import WorkerRegistry
    from partchat.store import SessionStore
    from partchat.turns.hub import Hub

log = logging.getLogger(__name__)

_FINISH = '{"type":"finish"'
_DELTA = '{"type":"text-delta"'
STORE_POLL_S = 1.0  # how often a relay without Redis asks the store whether the turn ended


class RelayHost(Protocol):
    """What a relay needs of the turn engine (``TurnEngine`` is one), so this module does
    not import the engine that starts it."""

    workers: WorkerRegistry
    store: SessionStore

    async def relay_ended(self, hub: Hub, *, finished: bool) -> None: ...


class Relay:
    """The relays of one server process (one per session whose turn runs elsewhere)."""

    def __init__(self, live: RedisEventLog, engine: RelayHost) -> None:
        self.live = live
        self.engine = engine

    async def follow(self, hub: Hub) -> bool:
        """Relay the turn ``hub.elsewhere`` into the hub; False when Redis cannot be read
        (the caller tells the client the turn runs elsewhere)."""
        turn = hub.elsewhere
        if turn is None or hub.turn is not None:
            return False
        if hub.relay is not None:
            return True
        try:
            backlog = await self.live.read_after(hub.session_id, hub.last_seq)
        except (RedisError, OSError, TimeoutError) as exc:
            log.warning("relay: cannot read session %s's stream: %r", hub.session_id[:6], exc)
            return False
        if hub.relay is not None or hub.elsewhere is not turn:
            return hub.relay is not None  # another connection started it meanwhile
        finished = False
        for seq, frame in backlog:
            finished = _relay_frame(hub, seq, turn.id, frame) or finished
        hub.relay = asyncio.create_task(
            self._run(hub, turn, finished), name=f"relay-{hub.session_id[:6]}"
        )
        return True

    async def _run(self, hub: Hub, turn: TurnRecord, finished: bool) -> None:
        try:
            if not finished:
                finished = await self._follow(hub, turn)
        except asyncio.CancelledError:
            raise
        except LiveLogUnavailable as exc:
            log.warning("relay: %s; waiting for the stored answer", exc)
            await self._await_store(turn)
        except Exception:
            log.exception("relay of session %s failed", hub.session_id[:6])
            await self._await_store(turn)
        finally:
            hub.relay = None
        await self.engine.relay_ended(hub, finished=finished)

    async def _follow(self, hub: Hub, turn: TurnRecord) -> bool:
        """Frames into the hub until ``finish`` (True) or the owner is found dead (False)."""
        frames: AsyncIterator[tuple[int, str]] = self.live.replay_and_follow(
            hub.session_id, hub.last_seq
        )
        workers = self.engine.workers
        pending: asyncio.Future[tuple[int, str]] | None = None
        try:
            while True:
                if pending is None:
                    pending = asyncio.ensure_future(anext(frames))
                done, _ = await asyncio.wait({pending}, timeout=workers.heartbeat_s)
                if not done:
                    if not await workers.owner_alive(turn.owner):
                        await workers.interrupt(turn.owner)
                        return False
                    continue
                seq, frame = pending.result()
                pending = None
                if _relay_frame(hub, seq, turn.id, frame):
                    return True
        finally:
            if pending is not None:
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending
            with contextlib.suppress(Exception):
                await frames.aclose()  # type: ignore[attr-defined]

    async def _await_store(self, turn: TurnRecord) -> None:
        """Redis is gone: wait until the store no longer has the turn running."""
        workers = self.engine.workers
        store = self.engine.store
        while True:
            try:
                stored = await store.get_turn(turn.id)
                if stored is None or stored.status != "running":
                    return
                if not await workers.owner_alive(turn.owner):
                    await workers.interrupt(turn.owner)
                    return
            except StorageUnavailable:
                pass
            await asyncio.sleep(STORE_POLL_S)


async def recover_texts(live: RedisEventLog, turns: list[TurnRecord]) -> dict[str, str]:
    """What each turn had streamed, from its session's stream (the text of its
    ``text-delta`` frames): a dead owner's partial answers, so they are stored."""
    out: dict[str, str] = {}
    for turn in turns:
        parts: list[str] = []
        for _seq, frame in await live.read_after(turn.session_id, 0):
            if _DELTA in frame and f'"turnId":"{turn.id}"' in frame:
                event = orjson.loads(frame)
                if event.get("type") == "text-delta" and event.get("turnId") == turn.id:
                    parts.append(str(event.get("delta", "")))
        if parts:
            out[turn.id] = "".join(parts)
    return out


def _relay_frame(hub: Hub, seq: int, turn_id: str, frame: str) -> bool:
    """Put a frame of the relayed turn in the hub; True when it is the turn's finish."""
    hub.relay_frame(seq, turn_id, frame)
    return frame.startswith(_FINISH) and f'"turnId":"{turn_id}"' in frame
