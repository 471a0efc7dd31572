"""HTTP endpoints: the Node original's ``POST /api/chat``, session lookup, health, metrics."""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING, Any

import orjson
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from partchat import __version__
from partchat.protocol.frames import MAX_TEXT_CHARS
from partchat.store import StorageUnavailable, UnknownSession, UnknownTurn, is_valid_id
from partchat.store.records import MAX_FEEDBACK_REASON_CHARS
from partchat.turns.engine import ServerClosing
from partchat.turns.hub import HISTORY_FOR_READY
from partchat.turns.sessions import stored_history

if TYPE_CHECKING:
    from partchat.transport.services import Services

MAX_BODY_BYTES = 16 * 1024
READY_TIMEOUT_S = 2.0


def _services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


async def _read_body(request: Request) -> bytes | None:
    """The body, or None when it is larger than ``MAX_BODY_BYTES`` (read no further)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            return None
    return bytes(body)


async def _json_body(request: Request, example: str) -> tuple[Any, Response | None]:
    """The decoded JSON body, or the 413 / 400 answer to send instead."""
    body = await _read_body(request)
    if body is None:
        return None, _error(
            413, "too_large", f"The request body is limited to {MAX_BODY_BYTES} bytes."
        )
    try:
        return orjson.loads(body), None
    except orjson.JSONDecodeError:
        return None, _error(400, "bad_request", f"The body must be JSON: {example}.")


async def chat(request: Request) -> Response:
    """``{message, sessionId?}`` → ``{message, sessionId, toolData}``, as the Node original."""
    data, refused = await _json_body(request, '{"message": "…"}')
    if refused is not None:
        return refused
    if not isinstance(data, dict) or not isinstance(data.get("message"), str):
        return _error(400, "bad_request", "The body needs a string 'message'.")
    text: str = data["message"]
    if not text.strip():
        return _error(400, "bad_request", "The message is empty.")
    if len(text) > MAX_TEXT_CHARS:
        return _error(
            413, "message_too_long", f"Messages are limited to {MAX_TEXT_CHARS} characters."
        )
    session_id = data.get("sessionId")
    if session_id is not None and not isinstance(session_id, str):
        return _error(400, "bad_request", "'sessionId' must be a string.")
    services = _services(request)
    engine = services.engine
    try:
        hub, _resumed = await engine.open_session(session_id)
        submitted = await engine.submit(hub, "http-" + uuid.uuid4().hex, text)
    except (ServerClosing, StorageUnavailable) as exc:
        if isinstance(exc, ServerClosing) or engine.closing:
            restarting = "The message was not accepted: the server is restarting; retry shortly."
            return _error(503, "server_restarting", restarting)
        return _error(503, "storage_unavailable", "The message was not accepted; please retry.")
    if submitted.status == "busy":
        return _error(409, "busy", "An answer is still being written for this session.")
    run = hub.turn
    if run is not None and run.task is not None and run.turn_id == submitted.turn_id:
        await asyncio.shield(run.task)
    answer = next(
        (
            m
            for m in reversed(hub.history)
            if m["turnId"] == submitted.turn_id and m["role"] == "assistant"
        ),
        None,
    )
    if answer is None:
        return _error(500, "internal", "The answer was not recorded.")
    tool_data: list[Any] = [o["output"] for o in answer.get("toolOutputs", [])]
    return JSONResponse(
        {
            "message": answer["text"],
            "sessionId": hub.session_id,
            "toolData": tool_data,
            "status": answer.get("status"),
            "context": hub.context,
        }
    )


async def get_session(request: Request) -> Response:
    session_id = request.path_params["session_id"]
    services = _services(request)
    if not is_valid_id(session_id):
        return _error(404, "not_found", "No such session.")
    hub = await services.engine.current_hub(session_id)
    if hub is not None:
        return JSONResponse(
            {"sessionId": session_id, "context": hub.context, "history": hub.history}
        )
    record = await services.store.get_session(session_id)
    if record is None:
        return _error(404, "not_found", "No such session.")
    history = await stored_history(services.store, session_id, HISTORY_FOR_READY)
    return JSONResponse({"sessionId": session_id, "context": record.context, "history": history})


async def post_feedback(request: Request) -> Response:
    """``{turnId, rating, reason?}`` → the stored rating (the WebSocket ``feedback`` frame's
    twin)."""
    session_id = request.path_params["session_id"]
    data, refused = await _json_body(request, '{"turnId": "…", "rating": "up"}')
    if refused is not None:
        return refused
    problem = feedback_problem(data)
    if problem is not None:
        return _error(400, "bad_request", problem)
    if not is_valid_id(session_id):
        return _error(404, "not_found", "No such session.")
    reason: str | None = data.get("reason")
    try:
        await _services(request).engine.save_feedback(
            session_id, data["turnId"], data["rating"], reason
        )
    except UnknownSession:
        return _error(404, "not_found", "No such session.")
    except UnknownTurn:
        return _error(404, "not_found", "This session has no finished answer with that turnId.")
    except StorageUnavailable:
        return _error(503, "storage_unavailable", "The rating was not saved; please retry.")
    answer: dict[str, Any] = {"turnId": data["turnId"], "rating": data["rating"]}
    if reason is not None:
        answer["reason"] = reason
    return JSONResponse(answer)


def feedback_problem(data: Any) -> str | None:
    """What is wrong with a feedback body (None: nothing)."""
    if not isinstance(data, dict):
        return "The body must be a JSON object."
    extra = sorted(set(data) - {"turnId", "rating", "reason"})
    if extra:
        return f"Unexpected fields: {', '.join(extra)[:200]}; expected turnId, rating, reason."
    if not isinstance(data.get("turnId"), str) or not 0 < len(data["turnId"]) <= 128:
        return "'turnId' must be a string of 1-128 characters."
    if data.get("rating") not in ("up", "down"):
        return '\'rating\' must be "up" or "down".'
    reason = data.get("reason")
    if "reason" in data and not isinstance(reason, str):
        return "'reason' must be a string."
    if isinstance(reason, str) and len(reason) > MAX_FEEDBACK_REASON_CHARS:
        return f"'reason' is limited to {MAX_FEEDBACK_REASON_CHARS} characters."
    return None


async def health(request: Request) -> Response:
    return JSONResponse({"status": "ok", "version": __version__})


async def ready(request: Request) -> Response:
    """Readiness for a load balancer: 503 while the session store (or Redis, when
    configured) does not answer, so traffic drains to the other servers."""
    services = _services(request)
    try:
        await asyncio.wait_for(services.store.ping(), READY_TIMEOUT_S)
    except Exception:
        return JSONResponse({"status": "unavailable", "failing": "storage"}, status_code=503)
    live = services.engine.live
    if live is not None:
        try:
            await asyncio.wait_for(live.client.ping(), READY_TIMEOUT_S)
        except Exception:
            return JSONResponse({"status": "unavailable", "failing": "redis"}, status_code=503)
    return JSONResponse({"status": "ready"})


async def metrics(request: Request) -> Response:
    return Response(_services(request).metrics.render(), media_type="text/plain; version=0.0.4")
