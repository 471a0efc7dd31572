"""The parts catalog: build catalog.db, query it (async).

Nothing runs at import time; open a catalog with ``await Catalog.open(path)``.
``loop_sqlite.py`` runs its SQLite reads on the event loop.

May import: ``protocol``, ``settings``. What else is built into catalog.db (the NLU
model) is passed to ``build_catalog`` by its caller as a ``build.Extension``.
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
