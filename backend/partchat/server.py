"""Running the app under uvicorn (one process, or several workers).

Several workers each listen on their own ``SO_REUSEPORT`` socket (``reuseport.py``, the
``workers`` fast path); with it off, without ``SO_REUSEPORT`` or on port 0, they share
uvicorn's one socket (``uvicorn.run(..., workers=N)``).
"""

from __future__ import annotations

import logging
import socket
from typing import Any

import uvicorn

from partchat import fast_paths
from partchat.settings import Settings


def configure_logging(settings: Settings) -> None:
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


def serve(settings: Settings) -> None:
    configure_logging(settings)
    common: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "log_level": settings.log_level,
        "ws": "websockets-sansio",
        "ws_max_size": 64 * 1024,
        "ws_per_message_deflate": settings.ws_compression,
        "ws_ping_interval": 20.0,
        "ws_ping_timeout": 20.0,
        "timeout_graceful_shutdown": 12,
        "proxy_headers": True,
        "server_header": False,
    }
    if settings.workers > 1:
        # Each worker reads the same environment and builds its own app.
        app = "partchat.transport.app:create_app_from_env"
        own = "workers" in fast_paths.active(settings.fast_paths)
        if own and settings.port and hasattr(socket, "SO_REUSEPORT"):
            from partchat.ops import reuseport

            config = uvicorn.Config(app, factory=True, workers=settings.workers, **common)
            reuseport.serve_workers(config)
        else:
            uvicorn.run(app, factory=True, workers=settings.workers, **common)
    else:
        from partchat.transport.app import create_app

        uvicorn.run(create_app(settings, own_process=True), **common)
