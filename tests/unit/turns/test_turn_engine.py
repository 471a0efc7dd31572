"""TurnEngine edge cases that an integration test cannot time reliably."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from partchat.agent.streaming import text_sink
from partchat.ops.metrics import Metrics
from partchat.store.sqlite import SqliteStore
from partchat.turns.engine import SEQ_RESERVE, TurnEngine

pytestmark = pytest.mark.timeout(30)


class SlowGraph:
    """Stands in for the compiled graph: streams nothing for a while."""

    def __init__(self, seconds: float = 5.0) -> None:
        self.seconds = seconds
        self.calls = 0

    async def astream(
        self, state: Any, config: Any = None, stream_mode: Any = None
    ) -> AsyncIterator[Any]:
        self.calls += 1
        await asyncio.sleep(self.seconds)
        return
        yield  # an async generator


class Recorder:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def deliver(self, seq: int, frame: str) -> None:
        self.events.append(json.loads(frame))


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    s = await SqliteStore.open(tmp_path / "sessions.db")
    yield s
    await s.close()


async def test_stop_before_the_turn_task_started_still_finishes_it(store: SqliteStore) -> None:
    graph = SlowGraph()
    engine = TurnEngine(store, graph, Metrics())  # type: ignore[arg-type]
    hub, _ = await engine.open_session(None)
    sub = Recorder()
    engine.subscribe(hub, sub)
    submitted = await engine.submit(hub, "m-1", "hello")
    assert submitted.status == "started"
    # No await between submit and stop: the task has not taken its first step.
    assert engine.stop(hub)
    run = hub.turn
    assert run is not None and run.task is not None
    await asyncio.wait_for(run.task, 5)
    assert hub.turn is None and graph.calls == 0
    assert [e["type"] for e in sub.events] == ["start", "finish"]
    assert sub.events[-1]["finishReason"] == "aborted"
    history = await store.history(hub.session_id)
    assert [(m["role"], m["status"]) for m in history] == [
        ("user", "complete"),
        ("assistant", "failed"),
    ]
    # The session is not stuck: the next message starts a turn.
    assert (await engine.submit(hub, "m-2", "again")).status == "started"
    engine.stop(hub)
    await asyncio.sleep(0)
    await engine.shutdown(1.0)


async def test_concurrent_submits_start_one_turn_and_store_one_message(
    store: SqliteStore,
) -> None:
    engine = TurnEngine(store, SlowGraph(), Metrics())  # type: ignore[arg-type]
    hub, _ = await engine.open_session(None)
    a, b = await asyncio.gather(
        engine.submit(hub, "m-a", "first"), engine.submit(hub, "m-b", "second")
    )
    assert sorted([a.status, b.status]) == ["busy", "started"]
    history = await store.history(hub.session_id)
    assert len(history) == 1
    await engine.shutdown(0.1)


async def test_resent_id_of_a_finished_turn_while_another_runs_is_a_duplicate(
    store: SqliteStore,
) -> None:
    engine = TurnEngine(store, SlowGraph(0.0), Metrics())  # type: ignore[arg-type]
    hub, _ = await engine.open_session(None)
    first = await engine.submit(hub, "m-1", "one")
    assert hub.turn is not None and hub.turn.task is not None
    await hub.turn.task
    engine.graph = SlowGraph(5.0)  # type: ignore[assignment]
    assert (await engine.submit(hub, "m-2", "two")).status == "started"
    again = await engine.submit(hub, "m-1", "one")
    assert (again.status, again.turn_id) == ("duplicate", first.turn_id)
    await engine.shutdown(0.1)


async def test_reload_after_a_clean_finish_keeps_the_seq_and_after_a_crash_jumps(
    store: SqliteStore,
) -> None:
    engine = TurnEngine(store, SlowGraph(0.0), Metrics())  # type: ignore[arg-type]
    hub, _ = await engine.open_session(None)
    await engine.submit(hub, "m-1", "one")
    assert hub.turn is not None and hub.turn.task is not None
    await hub.turn.task
    assert hub.last_seq == 2  # start, finish

    fresh = TurnEngine(store, SlowGraph(), Metrics())  # type: ignore[arg-type]
    reloaded, resumed = await fresh.open_session(hub.session_id)
    assert resumed and reloaded.last_seq == 2
    assert reloaded.history[0]["id"] == "m-1"  # the client's id, not the store's

    # A turn that began but never finished (the process died): the reserve is used.
    await store.begin_turn(hub.session_id, "m-2", "two", seq_reserved=2 + SEQ_RESERVE)
    await store.mark_interrupted()
    after_crash = TurnEngine(store, SlowGraph(), Metrics())  # type: ignore[arg-type]
    crashed, _ = await after_crash.open_session(hub.session_id)
    assert crashed.last_seq == 2 + SEQ_RESERVE


class SinkGraph:
    """Streams answer text through the turn's text sink, checking what reached the
    subscriber after each delta."""

    def __init__(self, sub: Recorder) -> None:
        self.sub = sub
        self.seen: list[list[str]] = []

    def _deltas(self) -> list[str]:
        return [e["delta"] for e in self.sub.events if e["type"] == "text-delta"]

    async def astream(
        self, state: Any, config: Any = None, stream_mode: Any = None
    ) -> AsyncIterator[Any]:
        sink = text_sink(config)
        assert sink is not None
        for burst in (["Hel", "lo", ", "], ["wor", "ld"]):
            for delta in burst:  # one burst: deltas that arrive in one pass of the loop
                sink(delta)
                self.seen.append(self._deltas())
            await asyncio.sleep(0.01)
        return
        yield  # an async generator


async def test_first_delta_of_a_burst_goes_out_at_once_the_rest_at_the_end_of_the_pass(
    store: SqliteStore,
) -> None:
    sub = Recorder()
    graph = SinkGraph(sub)
    metrics = Metrics()
    engine = TurnEngine(store, graph, metrics)  # type: ignore[arg-type]
    hub, _ = await engine.open_session(None)
    engine.subscribe(hub, sub)
    await engine.submit(hub, "m-1", "hello")
    run = hub.turn
    assert run is not None and run.task is not None
    await asyncio.wait_for(run.task, 5)
    # Each burst's first delta was published before the next delta came in; the rest of
    # the burst was held and went out as one delta when the pass ended.
    assert graph.seen == [
        ["Hel"],
        ["Hel"],
        ["Hel"],
        ["Hel", "lo, ", "wor"],
        ["Hel", "lo, ", "wor"],
    ]
    deltas = [e["delta"] for e in sub.events if e["type"] == "text-delta"]
    assert deltas == ["Hel", "lo, ", "wor", "ld"]
    # the metric counts the model's five pieces, not the four frames they went out in
    samples = metrics.registry.get_sample_value
    assert samples("partchat_model_text_pieces_total") == 5
    assert samples("partchat_text_deltas_total") is None
    history = await store.history(hub.session_id)
    assert history[-1]["text"] == "Hello, world"
    await engine.shutdown(1.0)


async def test_opening_one_session_loads_it_one_caller_at_a_time(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A third caller arriving while the second holds the lock still waits for it."""
    engine = TurnEngine(store, SlowGraph(), Metrics())  # type: ignore[arg-type]
    gates = [asyncio.Event() for _ in range(3)]
    calls = 0
    inside = most = 0

    async def snapshot(session_id: str, **_: Any) -> None:
        nonlocal calls, inside, most
        gate = gates[calls]
        calls += 1
        inside += 1
        most = max(most, inside)
        await gate.wait()
        inside -= 1

    async def settle() -> None:
        for _ in range(10):
            await asyncio.sleep(0)

    monkeypatch.setattr(engine, "_snapshot", snapshot)
    first = asyncio.create_task(engine.open_session("s-1"))
    await settle()
    second = asyncio.create_task(engine.open_session("s-1"))
    await settle()
    assert (calls, inside) == (1, 1)  # the second one waits
    gates[0].set()
    await settle()
    assert (calls, inside) == (2, 1)  # the second one loads
    third = asyncio.create_task(engine.open_session("s-1"))
    await settle()
    assert (calls, inside) == (2, 1)  # the third one waits
    gates[1].set()
    gates[2].set()
    await asyncio.gather(first, second, third)
    assert (calls, most) == (3, 1)
    assert not engine._locks  # the last one out removed the lock


async def test_a_turn_begins_on_the_session_another_process_wrote_read_again(
    store: SqliteStore, tmp_path: Path
) -> None:
    # Two processes on one sessions.db: A's hub goes stale while B runs a turn of it.
    other = await SqliteStore.open(tmp_path / "sessions.db")
    try:
        a = TurnEngine(store, SlowGraph(0.0), Metrics())  # type: ignore[arg-type]
        b = TurnEngine(other, SlowGraph(0.0), Metrics())  # type: ignore[arg-type]
        hub_a, _ = await a.open_session(None)
        hub_b, _ = await b.open_session(hub_a.session_id)
        assert (await b.submit(hub_b, "m-b", "from b")).status == "started"
        assert hub_b.turn is not None and hub_b.turn.task is not None
        await hub_b.turn.task
        assert hub_a.last_seq == 0 and hub_b.last_seq == 2
        # A's begin is refused at its stale version, A reads the session again, begins.
        submitted = await a.submit(hub_a, "m-a", "from a")
        assert submitted.status == "started"
        assert [m["text"] for m in hub_a.history] == ["from b", "", "from a"]
        assert hub_a.last_seq == 3  # start after B's start and finish
        assert hub_a.turn is not None and hub_a.turn.task is not None
        await hub_a.turn.task
        stored = await store.history(hub_a.session_id)
        assert [m["text"] for m in stored] == ["from b", "", "from a", ""]
        await a.shutdown(0.1)
        await b.shutdown(0.1)
    finally:
        await other.close()
