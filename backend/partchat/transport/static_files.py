"""Serving the built frontend: hashed assets cached forever, everything else revalidated."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from starlette.responses import HTMLResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"

NOT_BUILT_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>partchat: frontend not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto">
<h1>partchat is running</h1>
<p>The chat frontend has not been built, so there is nothing to show here yet.
The server itself works: <a href="/health">/health</a>, WebSocket at <code>/ws</code>,
<code>POST /api/chat</code>.</p>
<p>To build the frontend, from the repository: <code>make run</code>
(or <code>npm ci &amp;&amp; npm run build</code>), then reload.</p>
</body></html>
"""


def default_static_dir() -> Path:
    """The frontend build shipped inside the package (``partchat/static``)."""
    return Path(str(resources.files("partchat"))) / "static"


def is_built(static_dir: Path) -> bool:
    return (static_dir / "index.html").is_file()


class FrontendFiles(StaticFiles):
    """StaticFiles with cache headers: Vite's hashed ``assets/`` are immutable."""

    def file_response(
        self,
        full_path: os.PathLike[str] | str,
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        rel = scope.get("path", "")
        response.headers["cache-control"] = IMMUTABLE if "/assets/" in rel else REVALIDATE
        return response


def not_built_response() -> Response:
    return HTMLResponse(NOT_BUILT_PAGE, status_code=200, headers={"cache-control": REVALIDATE})
