"""The operator's JSON API under ``/api/admin/``: sessions, one session's turns and tool
calls, an export, and figures.

Off unless ``PARTCHAT_ADMIN_TOKEN`` is set: then every ``/api/admin/*`` path answers 404.
On, each request needs ``Authorization: Bearer <token>`` (compared in constant time),
else 401 with ``WWW-Authenticate: Bearer``. The token is never read from the URL and
never logged. Timestamps are ISO 8601 UTC with ``Z``; answers are never cached.
"""

from __future__ import annotations

import base64
import binascii
import csv
import hmac
import io
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

import orjson
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from partchat.store import AdminFilters, StorageUnavailable, is_valid_id

if TYPE_CHECKING:
    from partchat.store import SessionStore
    from partchat.transport.services import Services

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
EXPORT_PAGE = 200  # sessions read per step of an export
STATS_DAYS = 30  # the default window of /stats
MAX_STATS_DAYS = 366
NO_STORE = {"Cache-Control": "no-store"}
LIST_PARAMS = frozenset(
    {"limit", "cursor", "feedback", "errors", "toolErrors", "unknown", "symptom", "from", "to"}
)
CSV_HEADER = (
    "session_id",
    "turn_id",
    "started_at",
    "user_text",
    "assistant_text",
    "status",
    "finish_reason",
    "model",
    "rating",
    "reason",
    "tool_calls",
    "tool_errors",
    "first_token_ms",
    "total_ms",
)
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_FORMULA_START = ("=", "+", "-", "@")

Handler = Callable[[Request], Awaitable[Response]]


class BadParameter(ValueError):
    """A query parameter the API refuses; ``name`` is the parameter."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name
        self.message = message


def _error(status: int, code: str, message: str, **headers: str) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": code, "message": message}},
        status_code=status,
        headers={**NO_STORE, **headers},
    )


def _json(value: Any) -> Response:
    return Response(orjson.dumps(value), media_type="application/json", headers=NO_STORE)


# ----------------------------------------------------------------------------- auth


def bearer_matches(header: str | None, token: str) -> bool:
    """``header`` is ``Bearer <token>`` (the token compared in constant time)."""
    if not header:
        return False
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), token.encode())


def _guarded(token: str, handler: Handler) -> Handler:
    async def guarded(request: Request) -> Response:
        if not bearer_matches(request.headers.get("authorization"), token):
            return _error(
                401,
                "unauthorized",
                "Send the admin token as 'Authorization: Bearer <token>'.",
                **{"WWW-Authenticate": 'Bearer realm="partchat-admin"'},
            )
        try:
            return await handler(request)
        except BadParameter as exc:
            return _error(400, "bad_request", f"{exc.name}: {exc.message}")
        except StorageUnavailable as exc:
            return _error(503, "storage_unavailable", f"The session store: {exc}.")

    return guarded


# ----------------------------------------------------------------------------- parameters


def parse_day(name: str, raw: str) -> date:
    if not _DAY.fullmatch(raw):
        raise BadParameter(name, "expected a date YYYY-MM-DD")
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise BadParameter(name, "expected a date YYYY-MM-DD") from None


def _flag(params: Mapping[str, str], name: str) -> bool:
    raw = params.get(name)
    if raw is None or raw in ("", "0"):
        return False
    if raw == "1":
        return True
    raise BadParameter(name, "expected 1 (or 0)")


def parse_filters(params: Mapping[str, str]) -> AdminFilters:
    """The filters of a list or export query (unknown parameters refused)."""
    for name in params:
        if name not in LIST_PARAMS and name != "format":
            raise BadParameter(
                name, f"unknown parameter; expected {', '.join(sorted(LIST_PARAMS))}"
            )
    feedback = params.get("feedback") or None
    if feedback not in (None, "up", "down"):
        raise BadParameter("feedback", "expected up or down")
    symptom = params.get("symptom")
    if symptom is not None and not 0 < len(symptom.strip()) <= 200:
        raise BadParameter("symptom", "expected a symptom label or id (1-200 characters)")
    first = parse_day("from", params["from"]) if params.get("from") else None
    last = parse_day("to", params["to"]) if params.get("to") else None
    if first and last and first > last:
        raise BadParameter("from", "is after 'to'")
    return AdminFilters(
        feedback=feedback,  # type: ignore[arg-type]
        errors=_flag(params, "errors"),
        tool_errors=_flag(params, "toolErrors"),
        unknown=_flag(params, "unknown"),
        symptom=symptom.strip() if symptom is not None else None,
        start=_day_start(first) if first else None,
        end=_day_start(last) + 86400.0 if last else None,
    )


def _day_start(day: date) -> float:
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()


def parse_limit(raw: str | None) -> int:
    if raw is None or raw == "":
        return DEFAULT_LIMIT
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_LIMIT:
        raise BadParameter("limit", f"expected a whole number from 1 to {MAX_LIMIT}")
    return int(raw)


def encode_cursor(after: tuple[float, str]) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(list(after))).decode().rstrip("=")


def decode_cursor(raw: str | None) -> tuple[float, str] | None:
    """The keyset a cursor stands for (opaque to clients)."""
    if not raw:
        return None
    try:
        value = orjson.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
    except (binascii.Error, ValueError):
        raise BadParameter("cursor", "not a cursor this API gave out") from None
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not isinstance(value[0], int | float)
        or not is_valid_id(value[1])
    ):
        raise BadParameter("cursor", "not a cursor this API gave out")
    return float(value[0]), str(value[1])


# ----------------------------------------------------------------------------- endpoints


def _store(request: Request) -> SessionStore:
    services: Services = request.app.state.services
    return services.store


async def whoami(request: Request) -> Response:
    return _json({"ok": True})


async def list_sessions(request: Request) -> Response:
    params = request.query_params
    filters = parse_filters(params)
    limit = parse_limit(params.get("limit"))
    after = decode_cursor(params.get("cursor"))
    page = await _store(request).admin_sessions(filters, limit=limit, after=after)
    cursor = encode_cursor(page.after) if page.after is not None else None
    return _json({"items": page.items, "nextCursor": cursor})


async def session_detail(request: Request) -> Response:
    session_id = request.path_params["session_id"]
    details = await _store(request).admin_details([session_id]) if is_valid_id(session_id) else []
    if not details:
        return _error(404, "not_found", "No such session.")
    return _json(details[0])


async def export(request: Request) -> Response:
    params = request.query_params
    form = params.get("format") or "jsonl"
    if form not in ("jsonl", "csv"):
        raise BadParameter("format", "expected jsonl or csv")
    filters = parse_filters(params)
    store = _store(request)
    day = datetime.now(UTC).date().isoformat()
    body = _export_jsonl(store, filters) if form == "jsonl" else _export_csv(store, filters)
    return StreamingResponse(
        body,
        media_type="application/x-ndjson" if form == "jsonl" else "text/csv; charset=utf-8",
        headers={
            **NO_STORE,
            "Content-Disposition": f'attachment; filename="partchat-sessions-{day}.{form}"',
        },
    )


async def _details(
    store: SessionStore, filters: AdminFilters
) -> AsyncIterator[list[dict[str, Any]]]:
    """The filtered sessions' details, a page at a time (never the whole set in memory)."""
    after: tuple[float, str] | None = None
    while True:
        page = await store.admin_sessions(filters, limit=EXPORT_PAGE, after=after)
        if page.items:
            yield await store.admin_details([item["sessionId"] for item in page.items])
        if page.after is None:
            return
        after = page.after


async def _export_jsonl(store: SessionStore, filters: AdminFilters) -> AsyncIterator[bytes]:
    async for details in _details(store, filters):
        yield b"".join(orjson.dumps(d) + b"\n" for d in details)


def safe_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet will not run as a formula (a leading ``'`` when it starts
    with ``= + - @``)."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def csv_rows(detail: Mapping[str, Any]) -> list[list[Any]]:
    """One row per turn of a session detail (columns of ``CSV_HEADER``)."""
    rows = []
    for turn in detail["turns"]:
        feedback = turn["feedback"] or {}
        assistant = turn["assistant"] or {}
        calls = turn["toolCalls"]
        timings = turn["timings"]
        row = [
            detail["sessionId"],
            turn["turnId"],
            turn["startedAt"],
            turn["user"]["text"],
            assistant.get("text", ""),
            turn["status"],
            turn["finishReason"],
            turn["model"],
            feedback.get("rating"),
            feedback.get("reason"),
            len(calls),
            sum(1 for c in calls if not c["ok"]),
            timings.get("firstTokenMs"),
            timings.get("totalMs"),
        ]
        rows.append([safe_cell("" if v is None else v) for v in row])
    return rows


async def _export_csv(store: SessionStore, filters: AdminFilters) -> AsyncIterator[bytes]:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_HEADER)
    yield out.getvalue().encode()
    async for details in _details(store, filters):
        out.seek(0)
        out.truncate()
        for detail in details:
            writer.writerows(csv_rows(detail))
        yield out.getvalue().encode()


async def stats(request: Request) -> Response:
    params = request.query_params
    for name in params:
        if name not in ("from", "to"):
            raise BadParameter(name, "unknown parameter; expected from, to")
    last = parse_day("to", params["to"]) if params.get("to") else datetime.now(UTC).date()
    first = (
        parse_day("from", params["from"])
        if params.get("from")
        else last - timedelta(days=STATS_DAYS - 1)
    )
    if first > last:
        raise BadParameter("from", "is after 'to'")
    if (last - first).days + 1 > MAX_STATS_DAYS:
        raise BadParameter("from", f"the window is limited to {MAX_STATS_DAYS} days")
    return _json(await _store(request).admin_stats(first, last))


# ----------------------------------------------------------------------------- routes


async def _not_found(request: Request) -> Response:
    return _error(404, "not_found", "Not found.")


ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def admin_routes(token: str | None) -> list[BaseRoute]:
    """The ``/api/admin/`` routes: the API when ``token`` is set, else 404 everywhere."""
    catch_all = Route("/api/admin/{rest:path}", _not_found, methods=ALL_METHODS)
    bare = Route("/api/admin", _not_found, methods=ALL_METHODS)
    if token is None:
        return [bare, catch_all]
    endpoints: list[tuple[str, Handler]] = [
        ("/api/admin/whoami", whoami),
        ("/api/admin/sessions", list_sessions),
        ("/api/admin/sessions/{session_id}", session_detail),
        ("/api/admin/export", export),
        ("/api/admin/stats", stats),
    ]
    guarded: list[BaseRoute] = [
        Route(path, _guarded(token, handler), methods=["GET"]) for path, handler in endpoints
    ]
    return [*guarded, bare, catch_all]
