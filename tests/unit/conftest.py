"""Fixtures shared by the unit tests."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.fixture
def gc_state() -> Iterator[None]:
    """Put the garbage collector back as it was: freezing and thresholds are
    process-wide, and a frozen heap would outlive the test."""
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)
