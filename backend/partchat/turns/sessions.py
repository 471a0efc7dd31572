"""Sessions into hubs: a hub kept while it is up to date, read again from the store
when another server process may have written the session, one load per session at
a time. ``SessionHubs`` is a base of ``TurnEngine``: the state is the engine's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from partchat.ops.workers import WorkerRegistry
from partchat.protocol.frames import HistoryMessage
from partchat.protocol.shapes import Context, empty_context
from partchat.store import SessionRecord, SessionStore, TurnRecord
from partchat.turns.hub import HISTORY_FOR_READY, Hub, Subscriber

if TYPE_CHECKING:
    from partchat.live import RedisEventLog

SNAPSHOT_TRIES = 4  # a session read again while other servers keep writing it


@dataclass
class _Snapshot:
    """A session as the store has it, for a hub to be built or refreshed from."""

    record: SessionRecord
    history: list[HistoryMessage]
    last_seq: int
    elsewhere: TurnRecord | None
    version: int


@dataclass
class SessionLock:
    """Loading one session: one caller at a time. Removed by the last caller out (the
    holder or a waiter), never while another still waits for it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0  # callers holding or waiting for it


class SessionHubs:
    """The engine's hubs: loading, refreshing and creating them (a base of ``TurnEngine``)."""

    store: SessionStore
    workers: WorkerRegistry
    hubs: dict[str, Hub]
    live: RedisEventLog | None
    clock: Callable[[], float]
    _locks: dict[str, SessionLock]

    def _new_hub(self, *args: Any, **kwargs: Any) -> Hub:
        hub = Hub(*args, **kwargs)
        if self.live is not None:
            hub.mirror = self.live.publish
        self.hubs[hub.session_id] = hub
        return hub

    async def open_session(self, session_id: str | None) -> tuple[Hub, bool]:
        """The session's hub, loading or creating it; ``resumed`` is False for a new one.

        A hub kept from earlier is read again from the store when it may be stale
        (:meth:`_outdated`): with several server processes, turns of the session may have
        run in another one since.
        """
        if session_id:
            cached = self.hubs.get(session_id)
            if cached is not None and (cached.starting or not await self._outdated(cached)):
                return cached, True
            entry = self._locks.setdefault(session_id, SessionLock())
            entry.users += 1
            try:
                async with entry.lock:
                    cached = self.hubs.get(session_id)
                    if cached is not None and (cached.starting or not await self._outdated(cached)):
                        return cached, True
                    snapshot = await self._snapshot(session_id)
                    if snapshot is not None:
                        return self._install(snapshot), True
                    if cached is not None and cached.turn is None and not cached.subscribers:
                        del self.hubs[session_id]  # deleted (purged) by another process
            finally:
                entry.users -= 1
                if not entry.users:  # the last holder or waiter: no one else can use it
                    del self._locks[session_id]
        version = await self.store.data_version()
        record = await self.store.create_session()
        hub = self._new_hub(
            record.id,
            _context(record.context),
            [],
            record.last_seq,
            version=version,
            session_version=record.version,
        )
        return hub, False

    async def current_hub(self, session_id: str) -> Hub | None:
        """The session's hub if this process has it and it is up to date, else None."""
        hub = self.hubs.get(session_id)
        if hub is None or (not hub.starting and await self._outdated(hub)):
            return None
        return hub

    async def _outdated(self, hub: Hub) -> bool:
        """Whether the store may know more about the session than the hub does.

        Never while a turn of it runs here (the hub is the truth then). Always while a
        turn of it was running in another process. Otherwise when another process has
        written this session since the hub was whole: only then has the session's version
        moved past the hub's. That is read only when another process has committed
        anything at all (``PRAGMA data_version``: one process alone never sees it change,
        so a lone server never reads it).
        """
        if hub.turn is not None or hub.relay is not None:
            return False
        if hub.elsewhere is not None:
            return True
        data_version = await self.store.data_version()
        if data_version == hub.version:
            return False
        # data_version first: a write after it moves it again, so is caught next time.
        if await self.store.session_version(hub.session_id) != hub.session_version:
            return True
        hub.version = data_version
        return False

    async def _snapshot(self, session_id: str, *, reap: bool = True) -> _Snapshot | None:
        """The stored session (None: unknown). A turn of it left ``running`` by a dead
        process is marked interrupted first; one running in a live process is
        ``elsewhere``.

        The reads are several units: another server writing the session between them
        (a turn ending) would pair an old ``last_seq`` with a newer history. The
        session's version, which every write to it moves, is read again at the end, and
        the snapshot taken again when it moved."""
        for _ in range(SNAPSHOT_TRIES - 1):
            snapshot = await self._read_snapshot(session_id, reap=reap)
            if snapshot is None:
                return None
            if await self.store.session_version(session_id) == snapshot.record.version:
                return snapshot
        return await self._read_snapshot(session_id, reap=reap)

    async def _read_snapshot(self, session_id: str, *, reap: bool) -> _Snapshot | None:
        version = await self.store.data_version()
        record = await self.store.get_session(session_id)
        if record is None:
            return None
        running = await self.store.running_turn(session_id)
        mine = running is None or running.owner in (None, self.workers.boot_id)
        elsewhere = None if mine else running
        if elsewhere is not None and reap and not await self.workers.owner_alive(elsewhere.owner):
            await self.workers.interrupt(elsewhere.owner)
            return await self._snapshot(session_id, reap=False)
        history = await stored_history(self.store, record.id, HISTORY_FOR_READY)
        if elsewhere is not None:
            # Its events are the other process's: a client that resumes there from this
            # seq gets the whole turn replayed.
            last_seq = record.last_seq
        else:
            # seq_reserved (last_seq + SEQ_RESERVE, written when a turn begins) only
            # matters when the last turn did not end here: its events may have been sent
            # without last_seq being stored. After a turn that ended (finish stored)
            # last_seq is exact, and resuming from it keeps the stream contiguous across a
            # clean restart.
            ended = not history or (
                history[-1]["role"] == "assistant" and history[-1].get("status") != "interrupted"
            )
            last_seq = record.last_seq if ended else max(record.last_seq, record.seq_reserved)
        return _Snapshot(record, history, last_seq, elsewhere, version)

    def _install(self, snapshot: _Snapshot) -> Hub:
        """A new hub from the snapshot, or the cached one refreshed from it (unless a turn
        started on it meanwhile: then it is the truth)."""
        hub = self.hubs.get(snapshot.record.id)
        if hub is None:
            hub = self._new_hub(snapshot.record.id, _context(snapshot.record.context), [], 0)
        elif hub.turn is not None or hub.starting or hub.relay is not None:
            return hub
        refresh(hub, snapshot)
        return hub

    def subscribe(self, hub: Hub, sub: Subscriber) -> None:
        hub.subscribers.add(sub)

    def unsubscribe(self, hub: Hub, sub: Subscriber) -> None:
        hub.subscribers.discard(sub)
        if not hub.subscribers:
            hub.idle_since = self.clock()


def _context(raw: Any) -> Context:
    data: dict[str, Any] = {**empty_context(), **(raw if isinstance(raw, dict) else {})}
    return Context(
        productModel=data["productModel"],
        partNumber=data["partNumber"],
        symptoms=list(data["symptoms"] or []),
        applianceType=data["applianceType"],
    )


def refresh(hub: Hub, snapshot: _Snapshot) -> None:
    """Lay the stored state over a hub (its subscribers stay)."""
    if snapshot.last_seq != hub.last_seq:
        hub.buffer.clear()  # a stream the store has moved past: replay from history instead
    hub.context = _context(snapshot.record.context)
    hub.history = snapshot.history
    hub.last_seq = snapshot.last_seq
    hub.elsewhere = snapshot.elsewhere
    hub.version = snapshot.version
    hub.session_version = snapshot.record.version


async def stored_history(store: SessionStore, session_id: str, limit: int) -> list[HistoryMessage]:
    """The session's stored history as the wire carries it: user messages under the
    client's message id (the store keys them by its own id)."""
    return await store.history(session_id, limit=limit, client_ids=True)
