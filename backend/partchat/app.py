"""The Starlette app factory and its lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from partchat import __version__
from partchat.security import SecurityHeaders
from partchat.settings import Settings
from partchat.static_files import FrontendFiles, default_static_dir, is_built, not_built_response


async def health(request: Request) -> Response:
    return JSONResponse({"status": "ok", "version": __version__})


def _frontend_routes(static_dir: Path) -> list[BaseRoute]:
    if not is_built(static_dir):

        async def not_built(request: Request) -> Response:
            return not_built_response()

        return [Route("/", not_built), Route("/widget.js", not_built)]

    async def demo_redirect(request: Request) -> Response:
        return RedirectResponse("/demo/", status_code=308)

    return [
        Route("/demo", demo_redirect),
        Mount("/", app=FrontendFiles(directory=static_dir, html=True), name="frontend"),
    ]


def create_app(settings: Settings) -> Starlette:
    """Build the app; nothing is opened until the lifespan starts."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield

    static_dir = settings.static_dir or default_static_dir()
    routes: list[BaseRoute] = [Route("/health", health), *_frontend_routes(static_dir)]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders, frame_ancestors=settings.frame_ancestors)],
    )
    app.state.settings = settings
    return app


def create_app_from_env() -> Starlette:
    """Factory for ``uvicorn --factory`` (multi-worker serving)."""
    return create_app(Settings.from_env())
