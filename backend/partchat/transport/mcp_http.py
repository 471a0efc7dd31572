"""``/mcp``: the MCP tools over Streamable HTTP, mounted when ``PARTCHAT_MCP=on``.

Stateless with JSON responses: each POST is answered on its own, with no session kept in
the process, so several servers behind a load balancer without sticky sessions serve the
same client (the tools are read-only catalog queries: nothing to resume or push). The
SDK's session manager runs inside the app's lifespan (:meth:`McpHttp.run`). With
``PARTCHAT_MCP_TOKEN`` every request needs ``Authorization: Bearer <token>``, compared
in constant time; the token is never logged.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from partchat.settings import Settings
from partchat.toolbox.dispatch import Toolbox
from partchat.transport.mcp_server import build_server, shared_schema

log = logging.getLogger(__name__)

PATH = "/mcp"


class BearerGuard:
    """Answers 401 unless the request carries ``Authorization: Bearer <token>``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    def allows(self, headers: Headers) -> bool:
        scheme, _, given = headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode(), self._token
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.allows(Headers(scope=scope)):
            response = JSONResponse(
                {"error": "unauthorized", "message": "send Authorization: Bearer <token>"},
                status_code=401,
                headers={"www-authenticate": 'Bearer realm="partchat-mcp"'},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


@dataclass(frozen=True, slots=True)
class McpHttp:
    route: Route
    manager: StreamableHTTPSessionManager

    @asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """The session manager's task group; enter it inside the app's lifespan."""
        async with self.manager.run():
            yield


def mcp_http(settings: Settings, toolbox: Callable[[], Toolbox]) -> McpHttp:
    """The ``/mcp`` route over the toolbox ``toolbox()`` returns (the app's, once open)."""
    manager = StreamableHTTPSessionManager(
        app=build_server(toolbox, shared_schema()), json_response=True, stateless=True
    )
    if settings.log_level != "debug":  # stateless: it logs "Terminating session" per call
        logging.getLogger("mcp.server.streamable_http").setLevel(logging.WARNING)
    endpoint: ASGIApp = StreamableHTTPASGIApp(manager)
    if settings.mcp_token is not None:
        endpoint = BearerGuard(endpoint, settings.mcp_token)
    log.info(
        "MCP tools at %s (Streamable HTTP, stateless): %s",
        PATH,
        "bearer token required" if settings.mcp_token else "no token, open to any client",
    )
    return McpHttp(Route(PATH, endpoint=endpoint), manager)
