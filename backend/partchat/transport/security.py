"""Security headers for every HTTP response, and the WebSocket origin check."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def content_security_policy(frame_ancestors: Iterable[str]) -> str:
    # The app loads only its own scripts and styles; the socket is same-origin (ws/wss).
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: https:",
            "connect-src 'self' ws: wss:",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            f"frame-ancestors {' '.join(frame_ancestors)}",
        ]
    )


class SecurityHeaders:
    """Pure ASGI middleware (no per-response allocation beyond the headers themselves)."""

    def __init__(self, app: ASGIApp, frame_ancestors: Iterable[str]) -> None:
        self.app = app
        self.csp = content_security_policy(frame_ancestors)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("x-content-type-options", "nosniff")
                headers.setdefault("referrer-policy", "strict-origin-when-cross-origin")
                # widget.js is embedded by other sites: it must be loadable cross-origin.
                if path == "/widget.js":
                    headers.setdefault("cross-origin-resource-policy", "cross-origin")
                else:
                    headers.setdefault("content-security-policy", self.csp)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """Same origin is always allowed; others only when listed (or ``*``).

    A request without an Origin header is not a browser page (curl, a server-side
    client) and cannot be a cross-site hijack, so it is allowed.
    """
    if origin is None:
        return True
    origin = origin.rstrip("/")
    if "*" in allowed or origin in allowed:
        return True
    if host is None or origin == "null":
        return False
    return urlsplit(origin).netloc.lower() == host.lower()
