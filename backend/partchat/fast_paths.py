"""The fast paths built on other libraries' private APIs, and when each may run.

Three places lean on private APIs for a measured gain, each in one module with a public
fallback:

- ``openai`` (``agent/llm/openai_fast/``): ``FastChatOpenAI`` streams through aiohttp
  and overrides LangChain internals (docs/performance.md#d-aiohttp, #d-llm-hot-spots);
  fallback: stock ``ChatOpenAI``.
- ``ws`` (``direct_write.py``): a frame is written in the publisher's step by driving
  ``WebSocket.send_text``'s coroutine by hand (docs/performance.md#d-direct-write);
  fallback: every frame through the connection's send task (``await ws.send_text``).
- ``workers`` (``reuseport.py``): each uvicorn worker on its own ``SO_REUSEPORT`` socket
  by replacing ``uvicorn.supervisors.multiprocess.Process`` (docs/performance.md#d-reuseport);
  fallback: ``uvicorn.run(..., workers=N)``, one shared socket.

``PARTCHAT_FAST_PATHS`` (``Settings.fast_paths``) chooses which may run. A chosen path
whose libraries are not the minor versions in ``TESTED`` (the ranges ``pyproject.toml``
pins; a unit test keeps the two equal) runs its fallback, with one warning in the log:
the server keeps serving on a library upgrade, and ``tests/unit/test_fast_paths.py``
fails naming the library until the path is re-tested and ``TESTED`` updated.
"""

from __future__ import annotations

import functools
import logging
from importlib import metadata

from partchat.settings import FAST_PATHS, FastPath

__all__ = ["TESTED", "active", "untested"]

log = logging.getLogger(__name__)

TESTED: dict[FastPath, dict[str, str]] = {
    "openai": {"langchain-core": "1.7", "langchain-openai": "1.7", "aiohttp": "3.14"},
    "ws": {"starlette": "1.10", "uvicorn": "0.54", "websockets": "17.4"},
    "workers": {"uvicorn": "0.54"},
}
"""Per fast path, the ``major.minor`` of each library whose private API it uses."""


def untested(path: FastPath) -> list[str]:
    """What keeps ``path`` from running: each library installed at another minor version
    than ``TESTED`` (or missing), as ``"name X.Y.Z (tested A.B.x)"``."""
    problems: list[str] = []
    for name, minor in TESTED[path].items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            problems.append(f"{name} not installed (tested {minor}.x)")
            continue
        if not _same_minor(installed, minor):
            problems.append(f"{name} {installed} (tested {minor}.x)")
    return problems


@functools.cache
def active(chosen: frozenset[FastPath]) -> frozenset[FastPath]:
    """The fast paths of ``chosen`` that run: each whose libraries are the tested versions;
    the others are logged once and run their public fallback."""
    running: set[FastPath] = set()
    for path in FAST_PATHS:
        if path not in chosen:
            continue
        problems = untested(path)
        if problems:
            log.warning(
                "fast path %s off (its public fallback runs): %s; see partchat/fast_paths.py",
                path,
                ", ".join(problems),
            )
            continue
        running.add(path)
    log.info("fast paths on: %s", ", ".join(p for p in FAST_PATHS if p in running) or "none")
    return frozenset(running)


def _same_minor(version: str, minor: str) -> bool:
    """``version``'s first two numbers are ``minor``'s (``"3.14.5"`` and ``"3.14"``)."""
    return ".".join(version.split(".")[:2]) == minor
