"""What the lifespan opens and the endpoints share: built once, passed down."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from partchat.ops.metrics import Metrics
from partchat.settings import Settings

if TYPE_CHECKING:
    from partchat.catalog import Catalog
    from partchat.ops.catalog_watch import CatalogWatcher
    from partchat.store import SessionStore
    from partchat.toolbox.dispatch import Toolbox
    from partchat.transport.limits import ConnectionLimiter
    from partchat.turns.engine import TurnEngine


@dataclass
class Services:
    settings: Settings
    catalog: Catalog
    store: SessionStore
    toolbox: Toolbox
    engine: TurnEngine
    limiter: ConnectionLimiter
    metrics: Metrics
    connections: set[Any] = field(default_factory=set)
    # Swaps catalog, toolbox and the engine's graph when catalog.db is replaced.
    watcher: CatalogWatcher | None = None
