"""Fixtures shared by the unit tests."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator

import pytest


@pytest.fixture
def gc_state() -> Iterator[None]:
    """Put the garbage collector and the GIL switch interval back as they were: they are
    process-wide, and a frozen heap would outlive the test."""
    threshold = gc.get_threshold()
    interval = sys.getswitchinterval()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)
    sys.setswitchinterval(interval)
