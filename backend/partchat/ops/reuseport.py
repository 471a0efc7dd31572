"""Each uvicorn worker on its own ``SO_REUSEPORT`` socket: the ``workers`` fast path.

uvicorn's workers share one listening socket, and whichever is awake first accepts
everything queued: with two workers one took most connections (176.2–184.1 turns/s,
one worker idle, against 193.7–197.7 with a socket each; docs/performance.md#d-reuseport).
uvicorn has no public option for a socket per worker, so its supervisor (restarts,
signals, health pings) is kept and only its worker class replaced, through the module
global ``uvicorn.supervisors.multiprocess.Process`` (private; tested versions:
``partchat.fast_paths``). With ``PARTCHAT_FAST_PATHS`` leaving ``workers`` out, or
another uvicorn installed, ``server.serve`` runs ``uvicorn.run(..., workers=N)`` instead.
"""

from __future__ import annotations

import logging
import socket
import sys

import uvicorn
from uvicorn.config import STARTUP_FAILURE
from uvicorn.supervisors import multiprocess

__all__ = ["reuse_port_socket", "serve_workers"]

log = logging.getLogger(__name__)


def reuse_port_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` that others may share (``SO_REUSEPORT``)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def _listen_or_exit(host: str, port: int) -> socket.socket:
    """:func:`reuse_port_socket`, or one clear error and uvicorn's startup-failure exit
    code (its supervisor then stops rather than restarting workers that cannot listen)."""
    try:
        return reuse_port_socket(host, port)
    except OSError as exc:
        log.error("cannot listen on %s:%s: %s", host, port, exc)
        sys.exit(STARTUP_FAILURE)


class _OwnSocketWorker(multiprocess.Process):
    """A uvicorn worker listening on its own ``SO_REUSEPORT`` socket.

    uvicorn's workers share one listening socket, and whichever is awake first accepts
    everything queued: a burst of connections could all land on one worker while the
    other idled (measured: 9 s of CPU against 0 s over 10 s). With a socket each, the
    kernel spreads new connections over the workers. A worker that dies takes its socket
    with it, so no connection waits on a queue nobody accepts from.
    """

    def target(self, sockets: list[socket.socket] | None = None) -> None:  # pragma: no cover
        super().target([_listen_or_exit(self.config.host, self.config.port)])


def serve_workers(config: uvicorn.Config) -> None:
    """uvicorn's supervisor (restarts, signals, health pings) with workers that each
    listen on their own socket (:class:`_OwnSocketWorker`)."""
    _listen_or_exit(config.host, config.port).close()  # a taken port fails here, once
    log.info(
        "partchat: %d workers on http://%s:%d (a socket each, SO_REUSEPORT)",
        config.workers,
        config.host,
        config.port,
    )
    # The supervisor makes its workers through this module global (uvicorn 0.5x).
    multiprocess.Process = _OwnSocketWorker  # type: ignore[misc]
    multiprocess.Multiprocess(config, sockets=[]).run()
