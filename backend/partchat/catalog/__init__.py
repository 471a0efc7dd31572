"""The parts catalog: build catalog.db, query it (async).

Nothing runs at import time; open a catalog with ``await Catalog.open(path)``.
``loop_sqlite.py`` runs its SQLite reads on the event loop.

May import: ``protocol``, ``settings``; and ``nlu.store`` from ``build.py`` alone (building
catalog.db trains the NLU model and stores it inside: the one known cycle, named in the
import contracts in pyproject.toml).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .build import build_catalog, needs_build, stats_sync
    from .store import Catalog, catalog_stats

__all__ = [
    "Catalog",
    "build_catalog",
    "catalog_stats",
    "needs_build",
    "stats_sync",
]

_HOME = {
    "Catalog": "store",
    "catalog_stats": "store",
    "build_catalog": "build",
    "needs_build": "build",
    "stats_sync": "build",
}


def __getattr__(name: str) -> Any:
    """Lazy re-exports: importing the package loads none of its modules."""
    if name in _HOME:
        import importlib

        return getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    raise AttributeError(name)
