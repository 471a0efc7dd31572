"""The fast path's failures as the openai SDK raises them, and the SDK's retry policy.

The stock path's callers (LangChain's error mapping, ``classify_llm_error``, the turn
engine) see the same ``openai.*Error`` classes, messages and bodies from either path.
The SDK types its errors' ``request``/``response`` as httpx objects, so they are built
here (only when an error is raised, never per request). Public APIs only: openai, httpx.
"""

from __future__ import annotations

import email.utils
import math
import random
import time
from collections.abc import Mapping
from typing import Any

import httpx
import openai
import orjson

from partchat.agent.llm.openai_fast.sse import MalformedEvent, StreamErrorEvent

__all__ = [
    "RETRY_AFTER_CAP",
    "LLMStreamError",
    "malformed",
    "retry_delay",
    "sdk",
    "should_retry",
    "status_error",
    "stream_error",
]

_INITIAL_RETRY_DELAY = 0.5
_MAX_RETRY_DELAY = 8.0
RETRY_AFTER_CAP = 10.0
"""Longest server-requested wait honoured: a shopper is waiting on the other end."""
_RETRY_STATUS = frozenset({408, 409, 429})


class LLMStreamError(openai.APIError):
    """The LLM server sent an SSE stream that cannot be parsed (bad JSON, early end)."""


def sdk(obj: httpx.Request | httpx.Response) -> Any:
    """openai>=3 types its errors against httpx2; the httpx objects quack the same."""
    return obj


def status_error(response: httpx.Response) -> openai.APIStatusError:
    """The exception the SDK raises for this status, with the same message and body."""
    status = response.status_code
    err_msg = f"Error code: {status}"
    text = response.text.strip()
    body: object = text
    try:
        body = orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    else:
        err = body.get("error", body) if isinstance(body, dict) else None
        message = err.get("message") if isinstance(err, dict) else None
        if isinstance(message, str) and message:
            err_msg += f" - {message}"
    data = body.get("error", body) if isinstance(body, dict) else body
    cls: type[openai.APIStatusError] = {
        400: openai.BadRequestError,
        401: openai.AuthenticationError,
        403: openai.PermissionDeniedError,
        404: openai.NotFoundError,
        409: openai.ConflictError,
        422: openai.UnprocessableEntityError,
        429: openai.RateLimitError,
    }.get(status, openai.InternalServerError if status >= 500 else openai.APIStatusError)
    return cls(err_msg, response=sdk(response), body=data)


def stream_error(request: httpx.Request, event: StreamErrorEvent) -> openai.APIError:
    """An ``{"error": ...}`` event mid-stream, raised as the SDK does."""
    return openai.APIError(str(event), sdk(request), body=event.error)


def malformed(request: httpx.Request, event: MalformedEvent) -> LLMStreamError:
    return LLMStreamError(str(event), sdk(request), body=None)


def should_retry(e: openai.APIConnectionError | openai.APIStatusError) -> bool:
    if isinstance(e, openai.APIConnectionError):
        return True
    flag = e.response.headers.get("x-should-retry")
    if flag == "true":
        return True
    if flag == "false":
        return False
    return e.status_code in _RETRY_STATUS or e.status_code >= 500


def retry_delay(e: openai.APIError, attempt: int) -> float:
    """Retry-After(-ms) when the server gives one (capped), else the SDK's backoff."""
    if isinstance(e, openai.APIStatusError):
        after = _retry_after(e.response.headers)
        if after is not None and after > 0:
            return min(after, RETRY_AFTER_CAP)
    delay = min(_INITIAL_RETRY_DELAY * 2.0**attempt, _MAX_RETRY_DELAY)
    return delay * (1 - 0.25 * random.random())  # jitter


def _retry_after(headers: Mapping[str, str]) -> float | None:
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            delay = float(value)
        except ValueError:
            continue
        return delay / divisor if math.isfinite(delay) else RETRY_AFTER_CAP
    value = headers.get("retry-after")
    if value:
        try:
            parsed = email.utils.parsedate_tz(value)
            if parsed is not None:
                return float(email.utils.mktime_tz(parsed) - time.time())
        except (TypeError, ValueError, OverflowError):
            return None
    return None
