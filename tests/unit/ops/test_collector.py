"""The server's garbage-collection policy (``partchat.ops.collector``)."""

from __future__ import annotations

import gc
import weakref

import pytest

from partchat.ops.collector import NEVER, Collector


@pytest.fixture
def manual(gc_state: None) -> None:
    """No automatic full collection to free the test's garbage behind its back."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, NEVER)


class _Node:
    def __init__(self) -> None:
        self.me = self


def _aged_cycle() -> weakref.ref[_Node]:
    """A reference cycle only a full collection frees, aged into the oldest generation."""
    node = _Node()
    ref = weakref.ref(node)
    for _ in range(2):  # reachable through both younger collections: now in the oldest
        gc.collect(1)
    del node
    assert ref() is not None
    return ref


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_install_freezes_the_heap_and_stops_automatic_full_collections(gc_state: None) -> None:
    gc.unfreeze()
    young, middle, _ = gc.get_threshold()
    Collector.install()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (young, middle, NEVER)

    full: list[int] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(1)

    gc.callbacks.append(record)
    try:
        kept = []
        for i in range(200_000):  # long-lived containers: what ages into the old generation
            kept.append([i])
        assert gc.get_count()[2] > 10  # Python's own schedule would have collected by now
    finally:
        gc.callbacks.remove(record)
    assert full == []


def test_an_idle_server_collects_its_garbage(manual: None) -> None:
    ref = _aged_cycle()
    collector = Collector(lambda: False)
    assert collector.tick() is True
    assert ref() is None
    assert gc.get_count()[2] == 0
    assert collector.tick() is False  # nothing aged since: nothing to do


def test_a_busy_server_waits_until_the_interval_is_over(manual: None) -> None:
    clock = _Clock()
    busy = True
    collector = Collector(lambda: busy, max_interval_s=300.0, clock=clock)
    ref = _aged_cycle()
    clock.now += 299.0
    assert collector.tick() is False
    assert ref() is not None  # a turn is running: no stall for its stream
    clock.now += 2.0
    assert collector.tick() is True  # never idle: collected anyway, garbage is bounded
    assert ref() is None and collector.collections == 1

    ref = _aged_cycle()
    clock.now += 10.0
    assert collector.tick() is False  # the interval restarts from the last collection
    busy = False
    assert collector.tick() is True and ref() is None
