"""partchat.transport.mcp_http: the bearer guard in front of /mcp."""

from __future__ import annotations

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import Receive, Scope, Send

from partchat.transport.mcp_http import BearerGuard

TOKEN = "s3cret-token"


async def inner(scope: Scope, receive: Receive, send: Send) -> None:
    response: Response = PlainTextResponse("through " + Request(scope).method)
    await response(scope, receive, send)


async def _post(authorization: str | None) -> httpx.Response:
    headers = {"authorization": authorization} if authorization is not None else {}
    transport = httpx.ASGITransport(app=BearerGuard(inner, TOKEN))
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        return await client.post("/mcp", headers=headers)


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "",
        "Bearer",
        "Bearer wrong",
        f"Basic {TOKEN}",
        TOKEN,
        f"Bearer {TOKEN}x",
        "Bearer s3cret",
    ],
)
async def test_refuses_without_the_token(authorization: str | None) -> None:
    r = await _post(authorization)
    assert r.status_code == 401
    assert r.headers["www-authenticate"].startswith("Bearer")
    assert TOKEN not in r.text


@pytest.mark.parametrize("authorization", [f"Bearer {TOKEN}", f"bearer {TOKEN}"])
async def test_lets_the_token_through(authorization: str) -> None:
    r = await _post(authorization)
    assert (r.status_code, r.text) == (200, "through POST")
