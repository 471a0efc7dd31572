"""The Starlette app factory and its lifespan."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute

from partchat.ops.catalog_watch import CatalogWatcher, identity
from partchat.transport.ws import ws_endpoint

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph

    from partchat.catalog import Catalog
    from partchat.live import RedisEventLog
    from partchat.toolbox.dispatch import Toolbox
    from partchat.transport.services import Services

from partchat.ops.collector import Collector
from partchat.settings import Settings
from partchat.transport import http_api
from partchat.transport.admin_api import admin_routes
from partchat.transport.security import SecurityHeaders
from partchat.transport.static_files import (
    FrontendFiles,
    default_static_dir,
    is_built,
    not_built_response,
)

log = logging.getLogger(__name__)

SWEEP_INTERVAL_S = 30.0
SHUTDOWN_GRACE_S = 10.0
LIVE_CONNECT_S = 5.0


def model_name_of(model: BaseChatModel) -> str:
    """What each turn records as its model: the OpenAI model id, else the model's type
    (``partchat-offline`` for the built-in one)."""
    name = getattr(model, "model_name", None)
    if isinstance(name, str) and name:
        return name
    try:
        return str(model._llm_type)
    except Exception:  # a fake without one
        return type(model).__name__


async def open_services(settings: Settings, *, chat_model: BaseChatModel | None = None) -> Services:
    """Open the catalog (building it when missing or stale) and the session store."""
    from partchat.agent.llm import make_chat_model
    from partchat.catalog import build_catalog, needs_build
    from partchat.nlu.store import CATALOG_EXTENSION
    from partchat.ops.metrics import Metrics
    from partchat.ops.workers import WorkerRegistry
    from partchat.store import open_store
    from partchat.transport.limits import ConnectionLimiter
    from partchat.transport.services import Services
    from partchat.turns.admission import TurnGate
    from partchat.turns.engine import TurnEngine
    from partchat.turns.relay import recover_texts

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    if needs_build(settings.catalog_path, extension=CATALOG_EXTENSION):
        log.info("building the catalog into %s", settings.catalog_path)
        await asyncio.to_thread(
            build_catalog, None, settings.catalog_path, extension=CATALOG_EXTENSION
        )
    served = identity(settings.catalog_path)
    model = chat_model if chat_model is not None else make_chat_model(settings)
    catalog, toolbox, graph = await open_catalog(settings, model)
    store = await open_store(settings)
    live = await open_live(settings)
    # With the live log, a dead server's partial answers are recovered from its streams.
    recover = functools.partial(recover_texts, live) if live is not None else None
    workers = WorkerRegistry(store, heartbeat_s=settings.worker_heartbeat_s, recover=recover)
    interrupted = await workers.start()
    if interrupted:
        log.warning("marked %d turns of stopped server processes interrupted", interrupted)
    metrics = Metrics()
    gate = TurnGate(settings.turn_start_lag_ms, on_wait=metrics.gate_waits.inc)
    metrics.gate_waiting.set_function(lambda: gate.waiting)
    engine = TurnEngine(
        store,
        graph,
        metrics,
        workers=workers,
        hub_ttl_s=settings.hub_ttl_s,
        gate=gate,
        live=live,
        model_name=model_name_of(model),
    )
    await engine.start_live()
    services = Services(
        settings=settings,
        catalog=catalog,
        store=store,
        toolbox=toolbox,
        engine=engine,
        limiter=ConnectionLimiter(settings.max_connections_per_ip),
        metrics=metrics,
    )
    services.watcher = CatalogWatcher(
        settings.catalog_path,
        settings.catalog_check_s,
        functools.partial(reopen_catalog, services, model),
        served,
    )
    return services


async def open_catalog(
    settings: Settings, model: BaseChatModel
) -> tuple[Catalog, Toolbox, CompiledStateGraph[Any, Any, Any, Any]]:
    """The catalog, its understanding model, the tools over it and the graph using them."""
    from partchat.agent.graph import build_graph
    from partchat.catalog import Catalog
    from partchat.nlu import store as nlu_store
    from partchat.toolbox.dispatch import Toolbox

    catalog = await Catalog.open(settings.catalog_path)
    try:
        understanding = await asyncio.to_thread(nlu_store.load, settings.catalog_path)
        toolbox = Toolbox.load(catalog, validate_output=settings.log_level == "debug")
        graph = build_graph(model, toolbox, catalog, understanding)
    except BaseException:
        await catalog.close()
        raise
    return catalog, toolbox, graph


async def reopen_catalog(services: Services, model: BaseChatModel) -> None:
    """Serve the catalog file as it is now: new turns use it; turns in flight finish on
    the old one, closed once they end."""
    catalog, toolbox, graph = await open_catalog(services.settings, model)
    old = services.catalog
    running = [t.task for t in services.engine.running_turns() if t.task is not None]
    services.catalog, services.toolbox, services.engine.graph = catalog, toolbox, graph
    if services.watcher is not None:
        services.watcher.retire(old, running)


async def open_live(settings: Settings) -> RedisEventLog | None:
    """The Redis live log when ``PARTCHAT_REDIS_URL`` is set; refuses to start without it
    reachable (a server that cannot relay would strand its clients' resumes)."""
    if settings.redis_url is None:
        return None
    from partchat.live import RedisEventLog

    live = RedisEventLog.from_url(settings.redis_url)
    try:
        await asyncio.wait_for(live.client.ping(), LIVE_CONNECT_S)
    except Exception as exc:
        await live.close(0)
        raise RuntimeError(
            f"PARTCHAT_REDIS_URL is set but Redis does not answer ({type(exc).__name__})"
        ) from exc
    log.info(
        "live log on Redis: turns resume and stop from any server (sessions: %s)",
        "PostgreSQL" if settings.database_url else "SQLite, shared by this machine's processes",
    )
    return live


async def close_services(services: Services) -> None:
    """Give turns in flight their grace, abort the rest (stored), close sockets with 1001."""
    await services.engine.shutdown(SHUTDOWN_GRACE_S)
    if services.engine.live is not None:
        await services.engine.live.close()
    for conn in list(services.connections):
        with contextlib.suppress(Exception):
            await conn.ws.close(1001, "server shutting down")
    try:
        await services.engine.workers.stop()
    except Exception as exc:  # the store is unusable: the heartbeat goes stale instead
        log.warning("could not unregister this worker: %s", type(exc).__name__)
    await services.store.close()
    if services.watcher is not None:
        await services.watcher.close()
    await services.catalog.close()


async def _sweeper(services: Services) -> None:
    while True:
        await asyncio.sleep(min(SWEEP_INTERVAL_S, services.settings.hub_ttl_s))
        services.engine.sweep()
        services.metrics.live_sessions.set(len(services.engine.hubs))


async def _admin_off(request: Request) -> Response:
    return PlainTextResponse("Not Found", status_code=404)


def _frontend_routes(static_dir: Path, *, admin: bool) -> list[BaseRoute]:
    """The built frontend. The operator page (``/admin/``) is served only when the admin
    API is on (``admin``); otherwise every ``/admin`` path is 404 before the static mount
    could serve it."""
    admin_routes: list[BaseRoute] = []
    if not admin:
        admin_routes = [Route("/admin", _admin_off), Route("/admin/{rest:path}", _admin_off)]
    if not is_built(static_dir):

        async def not_built(request: Request) -> Response:
            return not_built_response()

        return [*admin_routes, Route("/", not_built), Route("/widget.js", not_built)]

    async def demo_redirect(request: Request) -> Response:
        return RedirectResponse("/demo/", status_code=308)

    async def admin_redirect(request: Request) -> Response:
        return RedirectResponse("/admin/", status_code=308)

    if admin:
        admin_routes = [Route("/admin", admin_redirect)]
    return [
        Route("/demo", demo_redirect),
        *admin_routes,
        Mount("/", app=FrontendFiles(directory=static_dir, html=True), name="frontend"),
    ]


_ANY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


async def _mcp_off(request: Request) -> Response:
    """``/mcp`` while ``PARTCHAT_MCP`` is off: a 404 that says why (not the frontend's 405)."""
    return JSONResponse(
        {
            "error": "not_found",
            "message": "MCP is off on this server; start it with PARTCHAT_MCP=on",
        },
        404,
    )


def create_app(
    settings: Settings, *, chat_model: BaseChatModel | None = None, own_process: bool = False
) -> Starlette:
    """Build the app; nothing is opened until the lifespan starts.

    ``chat_model`` replaces the one the settings select (tests pass fakes here).
    ``own_process``: the app is its process's server and tunes what is process-wide: it
    takes over full garbage collections (:mod:`partchat.ops.collector`) and sets the GIL
    switch interval (``settings.gil_switch_ms``); not tests, which build many apps in
    one process.
    """

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        services = await open_services(settings, chat_model=chat_model)
        app.state.services = services
        tasks = [asyncio.create_task(_sweeper(services))]
        if services.watcher is not None and settings.catalog_check_s > 0:
            tasks.append(asyncio.create_task(services.watcher.run()))
        if own_process:
            # The loop thread re-takes the GIL for every callback; a SQLite thread
            # holding it made each wait up to Python's 5 ms default (see settings).
            sys.setswitchinterval(settings.gil_switch_ms / 1000)
            services.catalog.warm()  # built now, so frozen with the rest
            Collector.install()
            tasks.append(asyncio.create_task(Collector(services.engine.busy).run()))
        try:
            async with mcp.run() if mcp is not None else contextlib.nullcontext():
                yield
        finally:
            for task in tasks:
                task.cancel()
            await close_services(services)

    mcp = None
    if settings.mcp:
        from partchat.transport.mcp_http import mcp_http

        mcp = mcp_http(settings, lambda: app.state.services.toolbox)
    static_dir = settings.static_dir or default_static_dir()
    routes: list[BaseRoute] = [
        Route("/health", http_api.health),
        Route("/ready", http_api.ready),
        Route("/metrics", http_api.metrics),
        Route("/api/chat", http_api.chat, methods=["POST"]),
        Route("/api/sessions/{session_id}", http_api.get_session),
        Route("/api/sessions/{session_id}/feedback", http_api.post_feedback, methods=["POST"]),
        *admin_routes(settings.admin_token),
        WebSocketRoute("/ws", ws_endpoint),
        mcp.route if mcp is not None else Route("/mcp", _mcp_off, methods=_ANY_METHOD),
        *_frontend_routes(static_dir, admin=settings.admin_token is not None),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders, frame_ancestors=settings.frame_ancestors)],
    )
    app.state.settings = settings
    return app


def create_app_from_env() -> Starlette:
    """Factory for ``uvicorn --factory`` (multi-worker serving)."""
    return create_app(Settings.from_env(), own_process=True)
